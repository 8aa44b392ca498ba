// An MPI window over memory this rank allocates, in one passive-target
// epoch (MPI_Win_lock_all) from creation to destruction: what A2WS's deques
// and ring information live in.
//
// MPI_Win_allocate, but under MPICH MPI_Alloc_mem + MPI_Win_create: with
// MPICH 4.0.2 over UCX 1.13 (Debian 12) a rank's atomics on its own part of
// an MPI_Win_allocate window land in another rank's memory (ranks 1 and 3
// of 4 added to ranks 0 and 2; fixed upstream by pmodels/mpich#6140,
// "ch4/ucx: Only set window base pointer when allocating"), and Open MPI
// 4.1 cannot create a window over user memory without a single-copy
// mechanism (OMPI_MCA_btl_vader_single_copy_mechanism=none, as in the
// tests: MPI_ERR_WIN), while its MPI_Win_allocate is fine.
#pragma once
#include <mpi.h>

#include <cstddef>

namespace lb4mpi::a2ws {

class Window {
 public:
  /// Collective over `comm`: `bytes` of this rank's memory, zeroed, in
  /// units of `unit` bytes; errors return (MPI_ERRORS_RETURN).
  Window(MPI_Comm comm, std::size_t bytes, int unit);
  /// Ends the epoch, frees the window (collective) and the memory.
  ~Window();
  Window(const Window&) = delete;
  Window& operator=(const Window&) = delete;

  /// Opens the epoch (after the caller filled its memory and the ranks
  /// synchronized).
  void lock_all();
  [[nodiscard]] MPI_Win win() const { return win_; }
  [[nodiscard]] void* base() const { return base_; }

 private:
  MPI_Comm comm_;
  MPI_Win win_ = MPI_WIN_NULL;
  void* base_ = nullptr;
  bool owns_memory_ = false;  // MPI_Alloc_mem'd (MPICH)
  bool locked_ = false;
};

}  // namespace lb4mpi::a2ws
