!> \file
!> \brief `use DLS`: lb4mpi's drop-in for DLS4LB's Fortran module DLS
!> (DLS.f90), over lb4mpi's C API (lb4mpi.h). docs/FORTRAN.md.

!> \brief lb4mpi's drop-in for DLS4LB's Fortran module DLS (DLS.f90, the
!> Fortran side of `003`'s interface): the same names, arguments and method
!> numbers (STATIC 0, SS 1, FSC 2, mFSC 3, GSS 4, TSS 5, FAC 6, WF 7, AWF 8,
!> AWF-B..E 9..12, AF 13), Fortran ranges (1..N), over lb4mpi's C API.
!> docs/FORTRAN.md.
!>
!> \code{.f90}
!> use DLS
!> type(infoDLS) :: info
!> call DLS_Setup(MPI_COMM_WORLD, info)       ! integer or type(MPI_Comm)
!> call DLS_StartLoop(info, 1, N, method)
!> do while (.not. DLS_Terminated(info))
!>   call DLS_StartChunk(info, iStart, iSize)
!>   do i = iStart, iStart + iSize - 1 ... end do
!>   call DLS_EndChunk(info)
!> end do
!> call DLS_EndLoop(info, iIters, iTime)
!> call DLS_Finalize(info)
!> \endcode
!>
!> Besides the procedures listed below, the module exports (Doxygen 1.9.4
!> leaves types and generic interfaces of a module with a `private` default
!> out of the lists, so they are described here):
!> - `type(infoDLS)`: the handle, opaque (one C pointer; DLS4LB's fields do
!>   not exist). Set up by DLS_Setup or DLS_GroupSetup, released by
!>   DLS_Finalize.
!> - `DLS_Setup(icomm, info)`: collective over `icomm` (an `integer`, or a
!>   `type(MPI_Comm)` with `use mpi_f08`); sets up `info` with DLS4LB's
!>   defaults: the C API's DLS_Setup.
!> - `DLS_GroupSetup(world, coordinator, GS, LS)`: collective over `world`
!>   (`integer` or `type(MPI_Comm)`); two-level ("Type II") loops: `GS`
!>   schedules the outer loop among the groups (nodes), `LS` the inner loops
!>   inside each group; the C API's DLS_GroupSetup.
!>
!> Errors are the C API's (lb4mpi.h): they end the job with status 2, the
!> message on every rank where the error is collective. An unknown method
!> number is reported by DLS_StartLoop on every rank, naming DLS.f90's
!> numbers. Default `integer` must be 32 bits (the C API takes `int`).
module DLS
  use, intrinsic :: iso_c_binding, only: c_ptr, c_null_ptr, c_int, c_double, c_char
#ifdef LB4MPI_HAVE_MPI_F08
  use mpi_f08, only: MPI_Comm
#endif
  implicit none
  private
  public :: infoDLS
  public :: DLS_MethodCount, DLS_LongName, DLS_ShortName
  public :: DLS_GroupSetup, DLS_Setup, DLS_Terminated
  public :: DLS_StartLoop, DLS_StartChunk, DLS_EndChunk, DLS_EndLoop
  public :: DLS_Finalize
  public :: DLS_ChunkCalculationMode  ! lb4mpi extension: 0 centralized, 1 distributed, 2 distributed-rma

  !> The handle (opaque: DLS4LB's fields do not exist; see docs/FORTRAN.md).
  type, bind(C) :: infoDLS
    type(c_ptr) :: state = c_null_ptr  !< owned by lb4mpi
  end type infoDLS

  !> DLS.f90's methods 0..13 (its SimAS, 14, is not in lb4mpi). A test checks
  !> that it equals the library's count (lb4mpi_f_dls_method_count).
  integer, parameter :: DLS_MethodCount = 14

  !> Sets up a handle with DLS4LB's defaults (collective): the C API's DLS_Setup.
  interface DLS_Setup
    module procedure setup_int
#ifdef LB4MPI_HAVE_MPI_F08
    module procedure setup_f08
#endif
  end interface DLS_Setup

  !> Two-level ("Type II") loops (collective): the C API's DLS_GroupSetup.
  interface DLS_GroupSetup
    module procedure group_setup_int
#ifdef LB4MPI_HAVE_MPI_F08
    module procedure group_setup_f08
#endif
  end interface DLS_GroupSetup

  interface
    subroutine c_setup(comm, info) bind(C, name="lb4mpi_f_dls_setup")
      import :: c_int, infoDLS
      integer(c_int), value :: comm
      type(infoDLS) :: info
    end subroutine c_setup
    subroutine c_group_setup(world, coordinator, gs, ls) bind(C, name="lb4mpi_f_dls_groupsetup")
      import :: c_int, infoDLS
      integer(c_int), value :: world, coordinator
      type(infoDLS) :: gs, ls
    end subroutine c_group_setup
    subroutine c_start_loop(info, first, last, method) bind(C, name="lb4mpi_f_dls_startloop")
      import :: c_int, infoDLS
      type(infoDLS) :: info
      integer(c_int), value :: first, last, method
    end subroutine c_start_loop
    integer(c_int) function c_terminated(info) bind(C, name="DLS_Terminated")
      import :: c_int, infoDLS
      type(infoDLS) :: info
    end function c_terminated
    subroutine c_start_chunk(info, start, size) bind(C, name="DLS_StartChunk")
      import :: c_int, infoDLS
      type(infoDLS) :: info
      integer(c_int) :: start, size
    end subroutine c_start_chunk
    subroutine c_end_chunk(info) bind(C, name="DLS_EndChunk")
      import :: infoDLS
      type(infoDLS) :: info
    end subroutine c_end_chunk
    subroutine c_end_loop(info, iters, time) bind(C, name="DLS_EndLoop")
      import :: c_int, c_double, infoDLS
      type(infoDLS) :: info
      integer(c_int) :: iters
      real(c_double) :: time
    end subroutine c_end_loop
    subroutine c_finalize(info) bind(C, name="DLS_Finalize")
      import :: infoDLS
      type(infoDLS) :: info
    end subroutine c_finalize
    subroutine c_mode(mode) bind(C, name="Configure_Chunk_Calculation_Mode")
      import :: c_int
      integer(c_int), value :: mode
    end subroutine c_mode
    subroutine c_name(method, buf, len) bind(C, name="lb4mpi_f_dls_name")
      import :: c_int, c_char
      integer(c_int), value :: method, len
      character(kind=c_char) :: buf(*)
    end subroutine c_name
  end interface

contains

  subroutine setup_int(icomm, info)
    integer, intent(in) :: icomm
    type(infoDLS), intent(inout) :: info
    call c_setup(int(icomm, c_int), info)
  end subroutine setup_int

  subroutine group_setup_int(world, coordinator, GS, LS)
    integer, intent(in) :: world, coordinator
    type(infoDLS), intent(inout) :: GS, LS
    call c_group_setup(int(world, c_int), int(coordinator, c_int), GS, LS)
  end subroutine group_setup_int

#ifdef LB4MPI_HAVE_MPI_F08
  subroutine setup_f08(icomm, info)
    type(MPI_Comm), intent(in) :: icomm
    type(infoDLS), intent(inout) :: info
    call c_setup(int(icomm%MPI_VAL, c_int), info)
  end subroutine setup_f08

  subroutine group_setup_f08(world, coordinator, GS, LS)
    type(MPI_Comm), intent(in) :: world
    integer, intent(in) :: coordinator
    type(infoDLS), intent(inout) :: GS, LS
    call c_group_setup(int(world%MPI_VAL, c_int), int(coordinator, c_int), GS, LS)
  end subroutine group_setup_f08
#endif

  !> Starts a loop: the C API's DLS_StartLoop with DLS.f90's method number.
  !> Collective over the handle's communicator.
  !> \param info the handle.
  !> \param firstIter the first iteration.
  !> \param lastIter the last iteration (inclusive); firstIter - 1: an empty loop.
  !> \param imeth DLS.f90's method number, 0..DLS_MethodCount-1; another
  !>   number is reported on every rank (exit status 2).
  subroutine DLS_StartLoop(info, firstIter, lastIter, imeth)
    type(infoDLS), intent(inout) :: info
    integer, intent(in) :: firstIter, lastIter, imeth
    call c_start_loop(info, int(firstIter, c_int), int(lastIter, c_int), int(imeth, c_int))
  end subroutine DLS_StartLoop

  !> Whether this rank's part of the loop is over: the C API's DLS_Terminated.
  !> \param info the handle.
  !> \return .true. when the loop has no chunk left for this rank.
  logical function DLS_Terminated(info)
    type(infoDLS), intent(inout) :: info
    DLS_Terminated = c_terminated(info) /= 0
  end function DLS_Terminated

  !> This rank's next chunk: the C API's DLS_StartChunk.
  !> \param info the handle.
  !> \param chunkStart the chunk's first iteration.
  !> \param chunkSize the chunk's number of iterations (0: none left).
  subroutine DLS_StartChunk(info, chunkStart, chunkSize)
    type(infoDLS), intent(inout) :: info
    integer, intent(out) :: chunkStart, chunkSize
    integer(c_int) :: s, n
    call c_start_chunk(info, s, n)
    chunkStart = s
    chunkSize = n
  end subroutine DLS_StartChunk

  !> Ends the chunk of the last DLS_StartChunk: the C API's DLS_EndChunk.
  !> \param info the handle.
  subroutine DLS_EndChunk(info)
    type(infoDLS), intent(inout) :: info
    call c_end_chunk(info)
  end subroutine DLS_EndChunk

  !> Ends the loop: the C API's DLS_EndLoop. Collective.
  !> \param info the handle.
  !> \param niters this rank's number of executed iterations.
  !> \param worktime this rank's time in its chunks [s].
  subroutine DLS_EndLoop(info, niters, worktime)
    type(infoDLS), intent(inout) :: info
    integer, intent(out) :: niters
    double precision, intent(out) :: worktime
    integer(c_int) :: n
    real(c_double) :: t
    call c_end_loop(info, n, t)
    niters = n
    worktime = t
  end subroutine DLS_EndLoop

  !> Releases the handle: the C API's DLS_Finalize. Collective.
  !> \param info the handle.
  subroutine DLS_Finalize(info)
    type(infoDLS), intent(inout) :: info
    call c_finalize(info)
  end subroutine DLS_Finalize

  !> lb4mpi extension: the execution model of the loops started afterwards
  !> (Configure_Chunk_Calculation_Mode of the C API; LB4MPI_MODE works as well).
  !> \param mode 0 centralized, 1 distributed, 2 distributed-rma, 3
  !>   hierarchical; another value is reported by the next collective call.
  subroutine DLS_ChunkCalculationMode(mode)
    integer, intent(in) :: mode
    call c_mode(int(mode, c_int))
  end subroutine DLS_ChunkCalculationMode

  !> The technique's name in lb4mpi (e.g. 'GSS', 'FAC2' for FAC), 'unknown'
  !> outside 0..DLS_MethodCount-1. A function: DLS_ShortName(m) reads as
  !> DLS4LB's array did.
  !> \param method DLS.f90's method number.
  !> \return the name, blank-padded.
  function DLS_ShortName(method) result(name)
    integer, intent(in) :: method
    character(len=8) :: name
    character(kind=c_char) :: buf(8)
    integer :: i
    call c_name(int(method, c_int), buf, 8_c_int)
    do i = 1, 8
      name(i:i) = buf(i)
    end do
  end function DLS_ShortName

  !> DLS4LB's long names (its table, with lb4mpi's technique name).
  !> \param method DLS.f90's method number.
  !> \return the long name, blank-padded; 'unknown' outside 0..DLS_MethodCount-1.
  function DLS_LongName(method) result(name)
    integer, intent(in) :: method
    character(len=25) :: name
    character(len=25), parameter :: long(0:DLS_MethodCount - 1) = [character(len=25) :: &
        'STATIC SCHEDULING', 'SELF-SCHEDULING', 'FIXED SIZE SCHEDULING', 'MODIFIED FSC', &
        'GUIDED SELF SCHEDULING', 'TRAPEZOID SELF-SCHEDULING', 'FACTORING', 'WEIGHTED FACTORING', &
        'ADAPTIVE WEIGHTED FAC', 'BATCH AWF', 'CHUNK AWF', 'BATCH AWF (chunk time)', &
        'CHUNK AWF (chunk time)', 'ADAPTIVE FACTORING']
    if (method >= 0 .and. method < DLS_MethodCount) then
      name = long(method)
    else
      name = 'unknown'
    end if
  end function DLS_LongName

end module DLS
