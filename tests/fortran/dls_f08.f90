! `use DLS` with `use mpi_f08` (test_dls.f90): DLS_Setup and DLS_GroupSetup
! on type(MPI_Comm), a FAC loop and a Type II loop exactly once.
subroutine dls_f08(ok)
  use mpi_f08
  use DLS
  implicit none
  logical, intent(out) :: ok
  integer, parameter :: N = 500
  type(infoDLS) :: info, gs, ls
  integer :: marks(N), total(N), iStart, iSize, jStart, jSize, iIters, i
  double precision :: iTime
  marks = 0
  call DLS_Setup(MPI_COMM_WORLD, info)
  call DLS_StartLoop(info, 1, N, 6)
  do while (.not. DLS_Terminated(info))
    call DLS_StartChunk(info, iStart, iSize)
    do i = iStart, iStart + iSize - 1
      marks(i) = marks(i) + 1
    end do
    call DLS_EndChunk(info)
  end do
  call DLS_EndLoop(info, iIters, iTime)
  call DLS_Finalize(info)
  call MPI_Allreduce(marks, total, N, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  ok = all(total == 1)
  ! Type II on type(MPI_Comm): N outer iterations of one inner iteration each.
  marks = 0
  call DLS_GroupSetup(MPI_COMM_WORLD, 0, gs, ls)
  call DLS_StartLoop(gs, 1, N, 1)
  do while (.not. DLS_Terminated(gs))
    call DLS_StartChunk(gs, jStart, jSize)
    do i = jStart, jStart + jSize - 1
      call DLS_StartLoop(ls, i, i, 0)
      do while (.not. DLS_Terminated(ls))
        call DLS_StartChunk(ls, iStart, iSize)
        if (iSize > 0) marks(iStart) = marks(iStart) + 1
        call DLS_EndChunk(ls)
      end do
      call DLS_EndLoop(ls, iIters, iTime)
    end do
    call DLS_EndChunk(gs)
  end do
  call DLS_EndLoop(gs, iIters, iTime)
  call DLS_Finalize(ls)
  call DLS_Finalize(gs)
  call MPI_Allreduce(marks, total, N, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  ok = ok .and. all(total == 1)
  if (.not. ok) print *, 'use mpi_f08: not exactly once'
end subroutine dls_f08
