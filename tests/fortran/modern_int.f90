! `use lb4mpi` with `use mpi` (test_modern.f90): the integer communicator,
! 32-bit bounds, FAC2 distributed, exactly once.
subroutine modern_int(ok)
  use mpi
  use lb4mpi
  implicit none
  logical, intent(out) :: ok
  integer, parameter :: N = 400
  type(lb4mpi_loop) :: loop
  integer :: marks(N), total(N), first, last, i, ierr
  marks = 0
  call lb4mpi_start(loop, MPI_COMM_WORLD, 1, N, technique='FAC2', mode='distributed')
  do while (lb4mpi_next(loop, first, last))
    do i = first, last
      marks(i) = marks(i) + 1
    end do
  end do
  call lb4mpi_finish(loop)
  call MPI_Allreduce(marks, total, N, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  ok = all(total == 1)
  if (.not. ok) print *, 'use mpi: not exactly once'
end subroutine modern_int
