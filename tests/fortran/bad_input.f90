! Bad input that ends the program (tests/fortran/CMakeLists.txt expects the
! message on every rank and exit status 2):
!   dls_method  DLS_StartLoop with DLS4LB method 42
!   dls_range   DLS_StartLoop(info, 10, 5, SS)
!   modern      lb4mpi_start with technique 'NOPE' and no status argument
program bad_input
  use mpi
  use DLS
  use lb4mpi
  implicit none
  type(infoDLS) :: info
  type(lb4mpi_loop) :: loop
  character(len=16) :: what
  integer :: ierr
  call MPI_Init(ierr)
  call get_command_argument(1, what)
  select case (trim(what))
  case ('dls_method')
    call DLS_Setup(MPI_COMM_WORLD, info)
    call DLS_StartLoop(info, 1, 100, 42)
  case ('dls_range')
    call DLS_Setup(MPI_COMM_WORLD, info)
    call DLS_StartLoop(info, 10, 5, 1)
  case ('modern')
    call lb4mpi_start(loop, MPI_COMM_WORLD, 1, 100, technique='NOPE')
  end select
  print *, 'bad_input: not stopped'
  call MPI_Finalize(ierr)
end program bad_input
