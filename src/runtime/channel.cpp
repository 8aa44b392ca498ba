#include "runtime/channel.hpp"

#include <algorithm>
#include <deque>

#include "lb4mpi/types.hpp"
#include "runtime/mpi.hpp"
#include "runtime/waiting.hpp"

namespace lb4mpi::rt {

namespace {

using ChannelList = std::deque<Channel>;

// Every channel list alive, in creation order (the same on every rank: lists
// are created at a collective loop start).
// Never destroyed: a program may call MPI_Finalize from an atexit handler
// registered before the first loop, i.e. after static destructors would have
// run, and MPI_Finalize reads this list (finalize_lists).
std::vector<ChannelList*>& all_lists() {
  static auto* lists = new std::vector<ChannelList*>;
  return *lists;
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
    // First use of `comm` (collective): how crowded its ranks' node is, for
    // the automatic wait policy (runtime/waiting.hpp).
    detect_node_share(comm);
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
    const int rc = MPI_Comm_set_errhandler(c.comm, MPI_ERRORS_RETURN);
    dups->push_back(c);
    check_mpi(rc, "MPI_Comm_set_errhandler");
  }
  return (*dups)[static_cast<std::size_t>(channel)];
}

}  // namespace lb4mpi::rt
