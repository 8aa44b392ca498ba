// Small MPI helpers of the runtime: error checks, lb4mpi's private
// communicator, and the collective agreement every loop starts with.
#pragma once
#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

namespace lb4mpi::detail {

/// Throws lb4mpi::Error("lb4mpi: <what> failed: <MPI error string>") unless rc == MPI_SUCCESS.
void check_mpi(int rc, const char* what);

/// Completes `request` like MPI_Wait, but shares the core: it polls with
/// MPI_Test, busily for the first kSpinPolls polls (a reply that is on its
/// way arrives within them), then yielding the processor between polls
/// (sched_yield), so that a rank waiting for a peer that shares its core
/// (more ranks than cores) does not take the core's time from that peer.
/// MPI implementations busy-wait inside MPI_Wait; MPICH's ch4 device does
/// not yield (MPIR_CVAR_POLLS_BEFORE_YIELD has no effect there), and with
/// two ranks per core every round trip then costs a scheduler time slice.
void wait(MPI_Request& request, MPI_Status* status, const char* what = "MPI_Wait");
/// The same for MPI_Waitany: returns the index completed (MPI_UNDEFINED
/// when every request is MPI_REQUEST_NULL).
int wait_any(int count, MPI_Request* requests, MPI_Status* status);
inline constexpr int kSpinPolls = 256;
/// The pause between two fruitless polls number `polls` and `polls + 1` of
/// something another rank must do first: none for the first kSpinPolls,
/// then the processor is yielded.
void backoff(int polls);

/// MPI_Allreduce, MPI_Allgather and MPI_Barrier as their nonblocking forms
/// completed by wait(): collectives that share the core while they wait.
void allreduce(const void* send, void* recv, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm);
void allgather(const void* send, int count, MPI_Datatype type, void* recv, MPI_Comm comm);
void barrier(MPI_Comm comm);

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
/// on `comm` as an attribute (freed with it), so the library's messages
/// never match the application's and repeated loops do not pay for
/// MPI_Comm_dup. Collective on first use of a channel. The reference stays
/// valid as long as `comm` exists.
Channel& private_channel(MPI_Comm comm, int channel = 0);

/// Collective over `comm`: every rank passes its local validation result
/// (`error` empty when fine) and a hash of the parameters that all ranks
/// must share. If any rank failed, or the hashes differ, every rank throws
/// the same lb4mpi::Error (the lowest failing rank's message, or `mismatch`
/// when the hashes differ; a default names the loop's arguments). Costs one
/// MPI_Allreduce when all is well.
void agree(MPI_Comm comm, const std::string& error, std::uint64_t hash, const std::string& mismatch = {});

/// FNV-1a style accumulation for agree()'s hash.
class Hasher {
 public:
  template <class T>
  Hasher& add(const T& v) {
    const auto* p = reinterpret_cast<const unsigned char*>(&v);
    for (std::size_t i = 0; i < sizeof(T); ++i) {
      h_ = (h_ ^ p[i]) * 1099511628211ULL;
    }
    return *this;
  }
  [[nodiscard]] std::uint64_t value() const { return h_; }

 private:
  std::uint64_t h_ = 1469598103934665603ULL;
};

}  // namespace lb4mpi::detail
