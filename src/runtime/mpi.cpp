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

void allreduce(const void* send, void* recv, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  if (blocking_collectives()) {
    check_mpi(MPI_Allreduce(send, recv, count, type, op, comm), "MPI_Allreduce");
    return;
  }
  MPI_Request r = MPI_REQUEST_NULL;
  check_mpi(MPI_Iallreduce(send, recv, count, type, op, comm, &r), "MPI_Iallreduce");
  wait(r, MPI_STATUS_IGNORE, "MPI_Iallreduce");
}

void allgather(const void* send, int count, MPI_Datatype type, void* recv, MPI_Comm comm) {
  if (blocking_collectives()) {
    check_mpi(MPI_Allgather(send, count, type, recv, count, type, comm), "MPI_Allgather");
    return;
  }
  MPI_Request r = MPI_REQUEST_NULL;
  check_mpi(MPI_Iallgather(send, count, type, recv, count, type, comm, &r), "MPI_Iallgather");
  wait(r, MPI_STATUS_IGNORE, "MPI_Iallgather");
}

void barrier(MPI_Comm comm) {
  if (blocking_collectives()) {
    check_mpi(MPI_Barrier(comm), "MPI_Barrier");
    return;
  }
  MPI_Request r = MPI_REQUEST_NULL;
  check_mpi(MPI_Ibarrier(comm, &r), "MPI_Ibarrier");
  wait(r, MPI_STATUS_IGNORE, "MPI_Ibarrier");
}

}  // namespace lb4mpi::rt
