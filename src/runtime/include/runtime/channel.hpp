// lb4mpi's private communicators ("channels") and what the executions of
// loops on one channel share.
#pragma once
#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace lb4mpi::rt {

/// One of lb4mpi's own duplicates of a user communicator, and what the
/// executions that use it share: a counter that gives every execution on the
/// channel its own message epoch (the same number on every rank, because
/// executions start collectively), and the execution in flight on it.
struct Channel {
  MPI_Comm comm = MPI_COMM_NULL;
  std::int32_t next_epoch = 1;   ///< epoch of the next execution started on the channel
  const void* busy = nullptr;    ///< the execution in flight here (not yet drained on this rank)
  /// RMA windows of finished executions (in a lock_all epoch, their memory
  /// at `owner`), kept for the next execution on the channel: creating and
  /// freeing a window are collective and cost a millisecond or more. They
  /// are taken and given back at collective points (a loop's start and
  /// finish), so every rank's list is the same. Freed with the channel.
  struct Window {
    MPI_Win win = MPI_WIN_NULL;
    int owner = 0;            ///< the rank that holds the memory
    std::size_t doubles = 0;  ///< its size at the owner
  };
  std::vector<Window> windows;
};

/// lb4mpi's own duplicates of `comm`, one per channel (loops in flight at
/// the same time use different channels), created on first use and cached
/// on `comm` as an attribute (freed with it, or at MPI_Finalize), so the
/// library's messages never match the application's and repeated loops do
/// not pay for MPI_Comm_dup. Errors on them return (MPI_ERRORS_RETURN).
/// Collective on first use of a channel. The reference stays valid as long
/// as `comm` exists.
Channel& private_channel(MPI_Comm comm, int channel = 0);

}  // namespace lb4mpi::rt
