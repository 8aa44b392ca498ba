! `use lb4mpi` with `use mpi_f08` (and an integer communicator from `use mpi`
! in modern_int.f90): every technique by name and `auto` in every mode,
! exactly once over a 64-bit range; robust mode; the report (T_par, per-rank
! iterations); errors returned as status and message (an unknown technique,
! an unknown mode, a bad range) on every rank, the program going on. One launch.
program test_modern
  use, intrinsic :: iso_fortran_env, only: int64
  use mpi_f08
  use lb4mpi
  implicit none
  integer, parameter :: N = 600
  integer(int64), parameter :: base = 8589934592_int64  ! 2^33: beyond 32 bits
  character(len=16), parameter :: modes(3) = [character(len=16) :: 'centralized', 'distributed', 'distributed-rma']
  character(len=16) :: technique
  character(len=512) :: message
  type(lb4mpi_loop) :: loop
  type(lb4mpi_report) :: rep
  integer :: t, m, rank, nranks, bad, status
  logical :: ok

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks)
  bad = 0
  do m = 1, size(modes)
    do t = 1, lb4mpi_technique_count() + 1  ! the last: 'auto'
      technique = lb4mpi_technique_name(t)
      if (.not. run(technique, modes(m), .false.)) bad = bad + 1
    end do
  end do
  if (trim(lb4mpi_technique_name(lb4mpi_technique_count() + 1)) /= 'auto') bad = bad + 1
  if (.not. run('GSS', 'centralized', .true.)) bad = bad + 1  ! robust mode

  ! Errors as a status: every rank gets it, nothing stops.
  call lb4mpi_start(loop, MPI_COMM_WORLD, 1, 10, technique='NOPE', status=status, message=message)
  if (status /= 2 .or. index(message, "unknown scheduling technique 'NOPE'") == 0) then
    bad = bad + 1
    print *, 'unknown technique: status', status, trim(message)
  end if
  call lb4mpi_start(loop, MPI_COMM_WORLD, 1, 10, mode='sideways', status=status, message=message)
  if (status /= 2 .or. index(message, 'sideways') == 0) then
    bad = bad + 1
    print *, 'unknown mode: status', status, trim(message)
  end if
  call lb4mpi_start(loop, MPI_COMM_WORLD, 10, 5, status=status, message=message)
  if (status /= 2 .or. index(message, 'last must be >= first - 1') == 0) then
    bad = bad + 1
    print *, 'bad range: status', status, trim(message)
  end if
  ! ... and a good call returns status 0 with an empty message.
  call lb4mpi_start(loop, MPI_COMM_WORLD, 1, 0, technique='SS', status=status, message=message)
  if (status /= 0 .or. len_trim(message) /= 0) bad = bad + 1
  do while (lb4mpi_next(loop, t, m))
    bad = bad + 1  ! an empty loop has no chunk
  end do
  call lb4mpi_finish(loop, rep, status=status)
  if (status /= 0 .or. sum(rep%iterations) /= 0) bad = bad + 1

  call modern_int(ok)
  if (.not. ok) bad = bad + 1
  if (rank == 0) print '(a,i0,a)', 'test_modern: ', bad, ' failures'
  call MPI_Finalize()
  if (bad /= 0) error stop 1

contains

  ! base+1 .. base+N with `technique` in `mode`: each once (robust: at least
  ! once), the report right.
  logical function run(technique, mode, robust)
    character(len=*), intent(in) :: technique, mode
    logical, intent(in) :: robust
    integer :: marks(N), total(N)
    integer(int64) :: first, last, i, mine
    marks = 0
    mine = 0
    call lb4mpi_start(loop, MPI_COMM_WORLD, base + 1, base + N, technique=technique, mode=mode, robust=robust)
    do while (lb4mpi_next(loop, first, last))
      do i = first, last
        marks(i - base) = marks(i - base) + 1
      end do
      mine = mine + last - first + 1
    end do
    call lb4mpi_finish(loop, rep)
    call MPI_Allreduce(marks, total, N, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
    ! Robust mode may run a chunk twice (docs/ROBUST.md; its results are committed once): at least once.
    if (robust) then
      run = all(total >= 1) .and. sum(rep%iterations) == sum(total) .and. size(rep%iterations) == nranks .and. &
            rep%iterations(rank) == mine
    else
      run = all(total == 1) .and. size(rep%iterations) == nranks .and. sum(rep%iterations) == N .and. &
            rep%iterations(rank) == mine .and. rep%t_par >= 0 .and. len_trim(rep%technique) > 0
    end if
    if (.not. run) print *, trim(technique), " ", trim(mode), ": rank", rank, " once:", all(total == 1), &
        " iterations:", rep%iterations, " mine:", mine, " t_par:", rep%t_par, " technique: ", trim(rep%technique)
  end function run

end program test_modern
