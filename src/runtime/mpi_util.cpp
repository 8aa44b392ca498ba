#include "runtime/mpi_util.hpp"

#include <sched.h>

#include <algorithm>
#include <climits>
#include <deque>
#include <vector>

#include "lb4mpi/types.hpp"

namespace lb4mpi::detail {

void check_mpi(int rc, const char* what) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, text, &len);
  throw Error(std::string("lb4mpi: ") + what + " failed: " + std::string(text, static_cast<std::size_t>(len)));
}

void backoff(int polls) {
  if (polls >= kSpinPolls) sched_yield();
}

void wait(MPI_Request& request, MPI_Status* status, const char* what) {
  for (int polls = 0;; ++polls) {
    int done = 0;
    check_mpi(MPI_Test(&request, &done, status), what);
    if (done != 0) return;
    backoff(polls);
  }
}

int wait_any(int count, MPI_Request* requests, MPI_Status* status) {
  for (int polls = 0;; ++polls) {
    int index = MPI_UNDEFINED;
    int done = 0;
    check_mpi(MPI_Testany(count, requests, &index, &done, status), "MPI_Waitany");
    if (done != 0) return index;
    backoff(polls);
  }
}

void allreduce(const void* send, void* recv, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  MPI_Request r = MPI_REQUEST_NULL;
  check_mpi(MPI_Iallreduce(send, recv, count, type, op, comm, &r), "MPI_Iallreduce");
  wait(r, MPI_STATUS_IGNORE, "MPI_Iallreduce");
}

void allgather(const void* send, int count, MPI_Datatype type, void* recv, MPI_Comm comm) {
  MPI_Request r = MPI_REQUEST_NULL;
  check_mpi(MPI_Iallgather(send, count, type, recv, count, type, comm, &r), "MPI_Iallgather");
  wait(r, MPI_STATUS_IGNORE, "MPI_Iallgather");
}

void barrier(MPI_Comm comm) {
  MPI_Request r = MPI_REQUEST_NULL;
  check_mpi(MPI_Ibarrier(comm, &r), "MPI_Ibarrier");
  wait(r, MPI_STATUS_IGNORE, "MPI_Ibarrier");
}

namespace {

using ChannelList = std::deque<Channel>;

// Every channel list alive, in creation order (the same on every rank: lists
// are created at a collective loop start).
std::vector<ChannelList*>& all_lists() {
  static std::vector<ChannelList*> lists;
  return lists;
}

// Frees a list's windows and communicators (collective, like the frees).
void release(ChannelList& list) {
  for (Channel& c : list) {
    for (Channel::Window& w : c.windows) {
      MPI_Win_unlock_all(w.win);
      MPI_Win_free(&w.win);
    }
    c.windows.clear();
    if (c.comm != MPI_COMM_NULL) MPI_Comm_free(&c.comm);
  }
}

int delete_private(MPI_Comm, int, void* value, void*) {
  auto* list = static_cast<ChannelList*>(value);
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized == 0) release(*list);
  auto& lists = all_lists();
  lists.erase(std::remove(lists.begin(), lists.end(), list), lists.end());
  delete list;
  return MPI_SUCCESS;
}

// MPI_Finalize deletes MPI_COMM_SELF's attributes first, while MPI still
// works: the moment to free what the lists of communicators that outlive
// the program (MPI_COMM_WORLD) still hold.
int at_finalize(MPI_Comm, int, void*, void*) {
  for (ChannelList* list : all_lists()) release(*list);
  return MPI_SUCCESS;
}

int keyval() {
  static int key = [] {
    int k = MPI_KEYVAL_INVALID;
    check_mpi(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_private, &k, nullptr),
              "MPI_Comm_create_keyval");
    int self = MPI_KEYVAL_INVALID;
    check_mpi(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, at_finalize, &self, nullptr),
              "MPI_Comm_create_keyval");
    check_mpi(MPI_Comm_set_attr(MPI_COMM_SELF, self, nullptr), "MPI_Comm_set_attr");
    return k;
  }();
  return key;
}

}  // namespace

Channel& private_channel(MPI_Comm comm, int channel) {
  if (comm == MPI_COMM_NULL) throw Error("lb4mpi: the communicator is MPI_COMM_NULL");
  void* value = nullptr;
  int found = 0;
  check_mpi(MPI_Comm_get_attr(comm, keyval(), &value, &found), "MPI_Comm_get_attr");
  // A deque: references to its elements survive appending more channels.
  auto* dups = static_cast<ChannelList*>(value);
  if (found == 0) {
    dups = new ChannelList();
    const int rc = MPI_Comm_set_attr(comm, keyval(), dups);
    if (rc != MPI_SUCCESS) {
      delete dups;
      check_mpi(rc, "MPI_Comm_set_attr");
    }
    all_lists().push_back(dups);
  }
  while (static_cast<int>(dups->size()) <= channel) {
    Channel c;
    check_mpi(MPI_Comm_dup(comm, &c.comm), "MPI_Comm_dup");
    dups->push_back(c);
  }
  return (*dups)[static_cast<std::size_t>(channel)];
}

void agree(MPI_Comm comm, const std::string& error, std::uint64_t hash, const std::string& mismatch) {
  // One allreduce: {failed?, max hash, max of the complemented hash (= -min)}.
  const std::int64_t h = static_cast<std::int64_t>(hash >> 1);
  std::int64_t local[3] = {error.empty() ? 0 : 1, h, -h};
  std::int64_t global[3] = {0, 0, 0};
  allreduce(local, global, 3, MPI_INT64_T, MPI_MAX, comm);
  if (global[0] == 0) {
    if (global[1] != -global[2]) {
      if (!mismatch.empty()) throw Error(mismatch);
      throw Error(
          "lb4mpi: the ranks disagree on the loop (range, technique, mode or parameters differ "
          "between ranks); every rank must start a loop with the same arguments");
    }
    return;
  }
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  int mine = error.empty() ? INT_MAX : rank;
  int first = INT_MAX;
  allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm);
  int len = static_cast<int>(error.size());
  check_mpi(MPI_Bcast(&len, 1, MPI_INT, first, comm), "MPI_Bcast");
  std::vector<char> text(error.begin(), error.end());
  text.resize(static_cast<std::size_t>(len));
  check_mpi(MPI_Bcast(text.data(), len, MPI_CHAR, first, comm), "MPI_Bcast");
  // The same text on every rank: the first failing rank's message.
  throw Error(std::string(text.begin(), text.end()));
}

}  // namespace lb4mpi::detail
