#include "runtime/mpi_util.hpp"

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

namespace {

int delete_private(MPI_Comm, int, void* value, void*) {
  auto* dups = static_cast<std::deque<Channel>*>(value);
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized == 0) {
    for (Channel& c : *dups) MPI_Comm_free(&c.comm);
  }
  delete dups;
  return MPI_SUCCESS;
}

int keyval() {
  static int key = [] {
    int k = MPI_KEYVAL_INVALID;
    check_mpi(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_private, &k, nullptr),
              "MPI_Comm_create_keyval");
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
  auto* dups = static_cast<std::deque<Channel>*>(value);
  if (found == 0) {
    dups = new std::deque<Channel>();
    const int rc = MPI_Comm_set_attr(comm, keyval(), dups);
    if (rc != MPI_SUCCESS) {
      delete dups;
      check_mpi(rc, "MPI_Comm_set_attr");
    }
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
  check_mpi(MPI_Allreduce(local, global, 3, MPI_INT64_T, MPI_MAX, comm), "MPI_Allreduce");
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
  check_mpi(MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm), "MPI_Allreduce");
  int len = static_cast<int>(error.size());
  check_mpi(MPI_Bcast(&len, 1, MPI_INT, first, comm), "MPI_Bcast");
  std::vector<char> text(error.begin(), error.end());
  text.resize(static_cast<std::size_t>(len));
  check_mpi(MPI_Bcast(text.data(), len, MPI_CHAR, first, comm), "MPI_Bcast");
  // The same text on every rank: the first failing rank's message.
  throw Error(std::string(text.begin(), text.end()));
}

}  // namespace lb4mpi::detail
