! A DLS4LB "Type II" loop (an outer j-loop whose iterates contain an inner
! i-loop) through `use DLS`, written as for DLS4LB's module: DLS_GroupSetup
! splits the ranks into groups by node (LB4MPI_RANKS_PER_NODE=k emulates
! nodes of k ranks); the coordinator and the foremen schedule j, each group
! schedules the i of its j (docs/FORTRAN.md, docs/MIGRATION.md).
!
!   mpiexec -n 6 lb4mpi-type2-f [jMethod [iMethod]]     (DLS.f90's numbers; 6 = FAC, 4 = GSS)
!
! Checks that every (j, i) ran exactly once and prints one JSON line.
program type2_f
  use mpi
  use DLS
  implicit none
  integer, parameter :: M = 40
  type(infoDLS) :: iInfo, jInfo
  integer :: jMethod, iMethod, jStart, jSize, iStart, iSize, jIters, iIters
  integer :: i, j, ierr, rank, nbad, coordinator
  double precision :: jTime, iTime
  integer, allocatable :: marks(:), all(:)
  integer :: offset(M + 1)
  character(len=16) :: arg

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  jMethod = 6  ! FAC
  iMethod = 4  ! GSS
  if (command_argument_count() >= 1) then
    call get_command_argument(1, arg)
    read (arg, *) jMethod
  end if
  if (command_argument_count() >= 2) then
    call get_command_argument(2, arg)
    read (arg, *) iMethod
  end if
  offset(1) = 0
  do j = 1, M
    offset(j + 1) = offset(j) + n_of(j)
  end do
  allocate (marks(offset(M + 1)), all(offset(M + 1)))
  marks = 0

  coordinator = 0
  call DLS_GroupSetup(MPI_COMM_WORLD, coordinator, jInfo, iInfo)
  call DLS_StartLoop(jInfo, 1, M, jMethod)
  do while (.not. DLS_Terminated(jInfo))
    call DLS_StartChunk(jInfo, jStart, jSize)
    do j = jStart, jStart + jSize - 1
      call DLS_StartLoop(iInfo, 1, n_of(j), iMethod)
      do while (.not. DLS_Terminated(iInfo))
        call DLS_StartChunk(iInfo, iStart, iSize)
        do i = iStart, iStart + iSize - 1
          marks(offset(j) + i) = marks(offset(j) + i) + 1
        end do
        call DLS_EndChunk(iInfo)
      end do
      call DLS_EndLoop(iInfo, iIters, iTime)
    end do
    call DLS_EndChunk(jInfo)
  end do
  call DLS_EndLoop(jInfo, jIters, jTime)
  call DLS_Finalize(iInfo)
  call DLS_Finalize(jInfo)

  call MPI_Allreduce(marks, all, size(marks), MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  nbad = count(all /= 1)
  if (rank == 0) then
    write (*, '(a,a,a,a,a,i0,a,i0,a)') '{"example":"type2-fortran","outer":"', trim(DLS_ShortName(jMethod)), &
        '","inner":"', trim(DLS_ShortName(iMethod)), '","iterations":', size(all), ',"not_exactly_once":', nbad, '}'
  end if
  call MPI_Finalize(ierr)
  if (nbad /= 0) error stop 1

contains

  integer function n_of(j)  ! N(j): 3 .. 49 inner iterations
    integer, intent(in) :: j
    n_of = 3 + mod(j * 13, 47)
  end function n_of

end program type2_f
