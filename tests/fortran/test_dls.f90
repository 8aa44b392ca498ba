! `use DLS` (DLS4LB's module), with `use mpi` here, `include 'mpif.h'` in
! dls_mpif.f90 and `use mpi_f08` in dls_f08.f90: every DLS.f90 method number
! (0..13) in every chunk-calculation mode, exactly once over 1..N (Fortran
! ranges); the names and the method count against the
! library's; a Type II loop (DLS_GroupSetup) in each mode. One launch.
program test_dls
  use mpi
  use DLS
  use, intrinsic :: iso_c_binding, only: c_int
  implicit none
  interface
    integer(c_int) function lib_method_count() bind(C, name="lb4mpi_f_dls_method_count")
      import :: c_int
    end function lib_method_count
    integer(c_int) function lib_c_method(m) bind(C, name="lb4mpi_f_dls_c_method")
      import :: c_int
      integer(c_int), value :: m
    end function lib_c_method
  end interface
  integer, parameter :: N = 777
  type(infoDLS) :: info
  integer :: mode, method, step, ierr, rank, bad
  logical :: ok

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  bad = 0
  if (DLS_MethodCount /= lib_method_count()) then
    bad = bad + 1
    print *, 'DLS_MethodCount', DLS_MethodCount, 'but the library has', lib_method_count()
  end if
  ! DLS.f90's numbers against lb4mpi.h's (FAC = 7 ... AF = 14 there).
  if (lib_c_method(5) /= 5 .or. lib_c_method(6) /= 7 .or. lib_c_method(13) /= 14 .or. lib_c_method(14) /= -1) then
    bad = bad + 1
    print *, 'method numbers: 5 ->', lib_c_method(5), ', 6 ->', lib_c_method(6), ', 13 ->', lib_c_method(13)
  end if
  if (DLS_ShortName(0) /= 'STATIC' .or. DLS_ShortName(4) /= 'GSS' .or. DLS_ShortName(6) /= 'FAC2' .or. &
      DLS_ShortName(13) /= 'AF' .or. DLS_ShortName(14) /= 'unknown' .or. DLS_LongName(6) /= 'FACTORING') then
    bad = bad + 1
    print *, 'names: ', DLS_ShortName(0), DLS_ShortName(4), DLS_ShortName(6), DLS_ShortName(13), DLS_LongName(6)
  end if

  call DLS_Setup(MPI_COMM_WORLD, info)
  do mode = 0, 2
    call DLS_ChunkCalculationMode(mode)
    do method = 0, DLS_MethodCount - 1
      do step = 1, 1  ! time steps: the C API tests (capi_awf_learns_p2)
        if (.not. run_loop(info, method, N)) then
          bad = bad + 1
          if (rank == 0) print *, 'mode', mode, trim(DLS_ShortName(method)), 'step', step, ': not exactly once'
        end if
      end do
    end do
    if (.not. type2(mode)) bad = bad + 1
  end do
  call DLS_Finalize(info)
  call DLS_ChunkCalculationMode(0)

  call dls_mpif(ok)
  if (.not. ok) bad = bad + 1
  call dls_f08(ok)
  if (.not. ok) bad = bad + 1

  if (rank == 0) print '(a,i0,a)', 'test_dls: ', bad, ' failures'
  call MPI_Finalize(ierr)
  if (bad /= 0) error stop 1

contains

  ! A Type I loop 1..n: .true. on every rank when each iteration ran once and
  ! DLS_EndLoop counted this rank's.
  logical function run_loop(info, method, n)
    type(infoDLS), intent(inout) :: info
    integer, intent(in) :: method, n
    integer :: marks(n), total(n), iStart, iSize, iIters, mine, i, err, flag(1), anyflag(1)
    double precision :: iTime
    marks = 0
    mine = 0
    call DLS_StartLoop(info, 1, n, method)
    do while (.not. DLS_Terminated(info))
      call DLS_StartChunk(info, iStart, iSize)
      do i = iStart, iStart + iSize - 1
        marks(i) = marks(i) + 1
      end do
      mine = mine + iSize
      call DLS_EndChunk(info)
    end do
    call DLS_EndLoop(info, iIters, iTime)
    call MPI_Allreduce(marks, total, n, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, err)
    flag(1) = merge(1, 0, iIters /= mine .or. iTime < 0)
    call MPI_Allreduce(flag, anyflag, 1, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD, err)
    run_loop = all(total == 1) .and. anyflag(1) == 0
  end function run_loop

  ! DLS4LB's Type II: outer FAC among the coordinator and the foremen, inner
  ! GSS inside each group; every (j, i) once.
  logical function type2(mode)
    integer, intent(in) :: mode
    integer, parameter :: M = 17
    type(infoDLS) :: gs, ls
    integer :: marks(M * 20), total(M * 20), jStart, jSize, iStart, iSize, jIters, iIters, i, j, err
    double precision :: t
    marks = 0
    call DLS_GroupSetup(MPI_COMM_WORLD, 0, gs, ls)
    call DLS_StartLoop(gs, 1, M, 6)
    do while (.not. DLS_Terminated(gs))
      call DLS_StartChunk(gs, jStart, jSize)
      do j = jStart, jStart + jSize - 1
        call DLS_StartLoop(ls, 1, 20, 4)
        do while (.not. DLS_Terminated(ls))
          call DLS_StartChunk(ls, iStart, iSize)
          do i = iStart, iStart + iSize - 1
            marks((j - 1) * 20 + i) = marks((j - 1) * 20 + i) + 1
          end do
          call DLS_EndChunk(ls)
        end do
        call DLS_EndLoop(ls, iIters, t)
      end do
      call DLS_EndChunk(gs)
    end do
    call DLS_EndLoop(gs, jIters, t)
    call DLS_Finalize(ls)
    call DLS_Finalize(gs)
    call MPI_Allreduce(marks, total, size(marks), MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, err)
    type2 = all(total == 1)
    if (.not. type2 .and. rank == 0) print *, 'Type II, mode', mode, ': not exactly once'
  end function type2

end program test_dls
