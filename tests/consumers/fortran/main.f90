! A program written for DLS4LB's Fortran module (use DLS, include 'mpif.h',
! DLS.f90's method numbers, a Type I loop over 1..N), built against an
! installed lb4mpi: by a Fortran-only CMake project (CMakeLists.txt here) and
! by `mpifort main.f90 $(pkg-config --cflags --libs lb4mpi-fortran)`
! (scripts/check_install.cmake, scripts/check_deb.sh). Every iteration must
! run exactly once for STATIC, SS, GSS, TSS, FAC and AF.
program consumer_fortran
  use DLS
  implicit none
  include 'mpif.h'
  integer, parameter :: N = 1000
  integer, parameter :: methods(6) = [0, 1, 4, 5, 6, 13]  ! STATIC SS GSS TSS FAC AF
  type(infoDLS) :: info
  integer :: method, iStart, iSize, iIters, i, k, ierr, rank, bad, mine
  double precision :: iTime
  integer :: marks(N), all(N)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call DLS_Setup(MPI_COMM_WORLD, info)
  bad = 0
  do k = 1, size(methods)
    method = methods(k)
    marks = 0
    mine = 0
    call DLS_StartLoop(info, 1, N, method)
    do while (.not. DLS_Terminated(info))
      call DLS_StartChunk(info, iStart, iSize)
      do i = iStart, iStart + iSize - 1
        marks(i) = marks(i) + 1
      end do
      mine = mine + iSize
      call DLS_EndChunk(info)
    end do
    call DLS_EndLoop(info, iIters, iTime)
    call MPI_Allreduce(marks, all, N, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
    if (any(all /= 1) .or. iIters /= mine) then
      bad = bad + 1
      if (rank == 0) print *, 'consumer-fortran: ', trim(DLS_ShortName(method)), ': not exactly once'
    end if
  end do
  call DLS_Finalize(info)
  if (rank == 0 .and. bad == 0) print '(a)', 'consumer-fortran: ok'
  call MPI_Finalize(ierr)
  if (bad /= 0) error stop 1
end program consumer_fortran
