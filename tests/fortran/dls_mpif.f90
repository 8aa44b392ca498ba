! `use DLS` with `include 'mpif.h'` (test_dls.f90): DLS_Setup on the integer
! MPI_COMM_WORLD of mpif.h, a GSS loop exactly once.
subroutine dls_mpif(ok)
  use DLS
  implicit none
  include 'mpif.h'
  logical, intent(out) :: ok
  integer, parameter :: N = 500
  type(infoDLS) :: info
  integer :: marks(N), total(N), iStart, iSize, iIters, i, ierr
  double precision :: iTime
  marks = 0
  call DLS_Setup(MPI_COMM_WORLD, info)
  call DLS_StartLoop(info, 1, N, 4)
  do while (.not. DLS_Terminated(info))
    call DLS_StartChunk(info, iStart, iSize)
    do i = iStart, iStart + iSize - 1
      marks(i) = marks(i) + 1
    end do
    call DLS_EndChunk(info)
  end do
  call DLS_EndLoop(info, iIters, iTime)
  call DLS_Finalize(info)
  call MPI_Allreduce(marks, total, N, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  ok = all(total == 1)
  if (.not. ok) print *, "include 'mpif.h': not exactly once"
end subroutine dls_mpif
