// Small MPI helpers of the runtime: error checks, lb4mpi's private
// communicator, and the collective agreement every loop starts with.
#pragma once
#include <mpi.h>

#include <cstdint>
#include <string>

namespace lb4mpi::detail {

/// Throws lb4mpi::Error("lb4mpi: <what> failed: <MPI error string>") unless rc == MPI_SUCCESS.
void check_mpi(int rc, const char* what);

/// One of lb4mpi's own duplicates of a user communicator, and what the
/// executions that use it share: a counter that gives every execution on the
/// channel its own message epoch (the same number on every rank, because
/// executions start collectively), and the execution in flight on it.
struct Channel {
  MPI_Comm comm = MPI_COMM_NULL;
  std::int32_t next_epoch = 1;   ///< epoch of the next execution started on the channel
  const void* busy = nullptr;    ///< the execution in flight here (not yet drained on this rank)
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
