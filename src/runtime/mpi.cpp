#include "runtime/mpi.hpp"

#include <string>

#include "lb4mpi/types.hpp"
#include "platform/platform.hpp"
#include "runtime/clock.hpp"
#include "runtime/waiting.hpp"

namespace lb4mpi::rt {

void check_mpi(int rc, const char* what) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, text, &len);
  throw Error(std::string("lb4mpi: ") + what + " failed: " + std::string(text, static_cast<std::size_t>(len)));
}

void wait(MPI_Request& request, MPI_Status* status, const char* what) {
  if constexpr (platform::kBlockingWaits) {
    check_mpi(MPI_Wait(&request, status), what);
    return;
  }
  for (int polls = 0;; ++polls) {
    int done = 0;
    check_mpi(MPI_Test(&request, &done, status), what);
    if (done != 0) return;
    backoff(polls);
  }
}

int wait_any(int count, MPI_Request* requests, MPI_Status* status) {
  if constexpr (platform::kBlockingWaits) {
    int index = MPI_UNDEFINED;
    check_mpi(MPI_Waitany(count, requests, &index, status), "MPI_Waitany");
    return index;
  }
  for (int polls = 0;; ++polls) {
    int index = MPI_UNDEFINED;
    int done = 0;
    check_mpi(MPI_Testany(count, requests, &index, &done, status), "MPI_Waitany");
    if (done != 0) return index;
    backoff(polls);
  }
}

int wait_any_until(int count, MPI_Request* requests, MPI_Status* status, double deadline) {
  for (int polls = 0;; ++polls) {
    int index = MPI_UNDEFINED;
    int done = 0;
    check_mpi(MPI_Testany(count, requests, &index, &done, status), "MPI_Waitany");
    if (done != 0) return index;
    if (polls >= kSpinPolls && clock_now() > deadline) return kTimedOut;
    backoff(polls);
  }
}

bool wait_until(MPI_Request& request, MPI_Status* status, double deadline, const char* what) {
  for (int polls = 0;; ++polls) {
    int done = 0;
    check_mpi(MPI_Test(&request, &done, status), what);
    if (done != 0) return true;
    if (polls >= kSpinPolls && clock_now() > deadline) return false;
    backoff(polls);
  }
}

namespace {

// The attribute that records, on a communicator, whether lb4mpi's
// collectives there are the blocking ones: its value is the address of one
// of these two.
int g_blocking = 1;
int g_polling = 0;

int collectives_keyval() {
  static const int keyval = [] {
    int k = MPI_KEYVAL_INVALID;
    check_mpi(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &k, nullptr),
              "MPI_Comm_create_keyval");
    return k;
  }();
  return keyval;
}

}  // namespace

bool blocking_collectives(MPI_Comm comm) {
  if constexpr (platform::kBlockingWaits) return true;
  void* value = nullptr;
  int found = 0;
  check_mpi(MPI_Comm_get_attr(comm, collectives_keyval(), &value, &found), "MPI_Comm_get_attr");
  if (found != 0) return value == &g_blocking;
  // lb4mpi's first collective on `comm`: MPI matches a blocking collective
  // only with a blocking one, and each rank's preference depends on its
  // node and its LB4MPI_WAIT, so the ranks decide together, once (blocking
  // only if every rank prefers it), with the one collective that is
  // blocking everywhere.
  int mine = blocking_collectives() ? 1 : 0;
  int all = 0;
  check_mpi(MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, comm), "MPI_Allreduce");
  check_mpi(MPI_Comm_set_attr(comm, collectives_keyval(), all != 0 ? &g_blocking : &g_polling), "MPI_Comm_set_attr");
  return all != 0;
}

void allreduce(const void* send, void* recv, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  if (blocking_collectives(comm)) {
    check_mpi(MPI_Allreduce(send, recv, count, type, op, comm), "MPI_Allreduce");
    return;
  }
  MPI_Request r = MPI_REQUEST_NULL;
  check_mpi(MPI_Iallreduce(send, recv, count, type, op, comm, &r), "MPI_Iallreduce");
  wait(r, MPI_STATUS_IGNORE, "MPI_Iallreduce");
}

void allgather(const void* send, int count, MPI_Datatype type, void* recv, MPI_Comm comm) {
  if (blocking_collectives(comm)) {
    check_mpi(MPI_Allgather(send, count, type, recv, count, type, comm), "MPI_Allgather");
    return;
  }
  MPI_Request r = MPI_REQUEST_NULL;
  check_mpi(MPI_Iallgather(send, count, type, recv, count, type, comm, &r), "MPI_Iallgather");
  wait(r, MPI_STATUS_IGNORE, "MPI_Iallgather");
}

void barrier(MPI_Comm comm) {
  if (blocking_collectives(comm)) {
    check_mpi(MPI_Barrier(comm), "MPI_Barrier");
    return;
  }
  MPI_Request r = MPI_REQUEST_NULL;
  check_mpi(MPI_Ibarrier(comm, &r), "MPI_Ibarrier");
  wait(r, MPI_STATUS_IGNORE, "MPI_Ibarrier");
}

}  // namespace lb4mpi::rt
