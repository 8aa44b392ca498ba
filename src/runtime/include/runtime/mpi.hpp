// MPI helpers of the runtime: errors become lb4mpi::Error, and waits that
// share the core (every wait of lb4mpi goes through these).
#pragma once
#include <mpi.h>

#include "runtime/waiting.hpp"  // backoff, kSpinPolls

namespace lb4mpi::rt {

/// Throws lb4mpi::Error("lb4mpi: <what> failed: <MPI error string>") unless
/// rc == MPI_SUCCESS. lb4mpi's communicators and windows return errors
/// (MPI_ERRORS_RETURN) instead of aborting the job, so every MPI error of
/// the library reaches its caller as an lb4mpi::Error.
void check_mpi(int rc, const char* what);

/// Completes `request` like MPI_Wait, but shares the core: it polls with
/// MPI_Test and pauses between polls by the wait policy (runtime/waiting.hpp:
/// by default busily for the first kSpinPolls polls — a reply that is on its
/// way arrives within them — then yielding the processor, or sleeping when
/// the node's ranks outnumber its cores), so that a rank waiting for a peer
/// that shares its core does not take the core's time from that peer.
/// MPI implementations busy-wait inside MPI_Wait; MPICH's ch4 device does
/// not yield (MPIR_CVAR_POLLS_BEFORE_YIELD has no effect there), and with
/// two ranks per core every round trip then costs a scheduler time slice.
/// Where the platform says waits block (platform::kBlockingWaits: the
/// simulation build), it is MPI_Wait; wait_any() is MPI_Waitany and the
/// collectives below are the blocking ones.
void wait(MPI_Request& request, MPI_Status* status, const char* what = "MPI_Wait");
/// The same for MPI_Waitany: returns the index completed (MPI_UNDEFINED
/// when every request is MPI_REQUEST_NULL).
int wait_any(int count, MPI_Request* requests, MPI_Status* status);
/// wait_any() with a deadline on clock_now(): MPI_UNDEFINED when every
/// request is MPI_REQUEST_NULL, kTimedOut when `deadline` passed first.
int wait_any_until(int count, MPI_Request* requests, MPI_Status* status, double deadline);
/// wait() with a deadline: false (the request still posted) when it passed first.
bool wait_until(MPI_Request& request, MPI_Status* status, double deadline, const char* what = "MPI_Wait");
inline constexpr int kTimedOut = -2;

/// MPI_Allreduce, MPI_Allgather and MPI_Barrier as their nonblocking forms
/// completed by wait(): collectives that share the core while they wait;
/// or their blocking forms when blocking_collectives(comm).
void allreduce(const void* send, void* recv, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm);
void allgather(const void* send, int count, MPI_Datatype type, void* recv, MPI_Comm comm);
void barrier(MPI_Comm comm);
/// Whether lb4mpi's collectives on `comm` are the blocking forms: decided
/// at its first one by all its ranks together (blocking only when every
/// rank's blocking_collectives() prefers it) and kept as an attribute of
/// `comm`, because MPI does not match a blocking collective with a
/// nonblocking one: ranks on nodes with and without spare cores, or with
/// different LB4MPI_WAIT, would otherwise hang. Collective at that first call.
bool blocking_collectives(MPI_Comm comm);

}  // namespace lb4mpi::rt
