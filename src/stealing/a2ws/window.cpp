// An MPI window over memory this rank allocates: see a2ws/window.hpp.
#include "a2ws/window.hpp"

#include <cstring>

#include "runtime/mpi.hpp"

namespace lb4mpi::a2ws {

using rt::check_mpi;

Window::Window(MPI_Comm comm, std::size_t bytes, int unit) : comm_(comm) {
  const auto size = static_cast<MPI_Aint>(bytes);
  // Creating and freeing a window are collective and wait inside MPI, where
  // MPICH spins without yielding: the ranks arrive together first, waiting
  // politely (rt::barrier), so that early ones do not take the cores of
  // late ones (more ranks than cores).
  rt::barrier(comm);
#if defined(MPICH_VERSION)
  check_mpi(MPI_Alloc_mem(size > 0 ? size : 1, MPI_INFO_NULL, &base_), "MPI_Alloc_mem");
  const int rc = MPI_Win_create(base_, size, unit, MPI_INFO_NULL, comm, &win_);
  if (rc != MPI_SUCCESS) {
    MPI_Free_mem(base_);
    base_ = nullptr;
    check_mpi(rc, "MPI_Win_create");
  }
  owns_memory_ = true;
#else
  check_mpi(MPI_Win_allocate(size, unit, MPI_INFO_NULL, comm, &base_, &win_), "MPI_Win_allocate");
#endif
  std::memset(base_, 0, bytes);
  check_mpi(MPI_Win_set_errhandler(win_, MPI_ERRORS_RETURN), "MPI_Win_set_errhandler");
}

Window::~Window() {
  if (locked_) MPI_Win_unlock_all(win_);
  if (win_ != MPI_WIN_NULL) {
    // The same polite meeting before the collective free (see the constructor).
    try {
      rt::barrier(comm_);
    } catch (...) {
    }
  }
  if (win_ != MPI_WIN_NULL) MPI_Win_free(&win_);  // collective
  if (owns_memory_ && base_ != nullptr) MPI_Free_mem(base_);
}

void Window::lock_all() {
  check_mpi(MPI_Win_lock_all(MPI_MODE_NOCHECK, win_), "MPI_Win_lock_all");
  locked_ = true;
}

}  // namespace lb4mpi::a2ws
