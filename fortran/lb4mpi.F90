!> \file
!> \brief `use lb4mpi`: lb4mpi's modern Fortran module, over lb4mpi's C++
!> library through ISO_C_BINDING. docs/FORTRAN.md.

!> \brief lb4mpi's modern Fortran module: the chunk loop over ISO_C_BINDING,
!> options by name, 64-bit ranges, the report, errors as an optional status.
!> docs/FORTRAN.md.
!>
!> \code{.f90}
!> use lb4mpi
!> type(lb4mpi_loop) :: loop
!> type(lb4mpi_report) :: rep
!> integer(int64) :: first, last
!> call lb4mpi_start(loop, MPI_COMM_WORLD, 1_int64, n, technique='FAC2', mode='distributed')
!> do while (lb4mpi_next(loop, first, last))
!>   do i = first, last ... end do
!> end do
!> call lb4mpi_finish(loop, rep)            ! rep%t_par, rep%iterations(0:P-1)
!> \endcode
!>
!> Besides the procedures listed below, the module exports (Doxygen 1.9.4
!> leaves types and generic interfaces of a module with a `private` default
!> out of the lists, so they are described here):
!> - `type(lb4mpi_loop)`: a loop in flight on this rank (lb4mpi_start ...
!>   lb4mpi_finish); opaque.
!> - `type(lb4mpi_report)`: what lb4mpi_finish returns on every rank:
!>   `t_par` (the parallel time [s]), `iterations(0:P-1)` (each rank's
!>   executed iterations), `technique` (the technique that ran; with `auto`,
!>   the one it chose).
!> - `lb4mpi_start(loop, comm, first, last [, technique] [, mode] [, robust]
!>   [, status] [, message])`: starts the loop over first..last (inclusive;
!>   last = first - 1: empty). Collective over `comm` (an `integer`, or a
!>   `type(MPI_Comm)` with `use mpi_f08`). `first`, `last`: both `integer` or
!>   both `integer(int64)`. `technique`: any name LB4MPI_SCHEDULING accepts
!>   (case-insensitive; `auto` selects one per execution); `mode`:
!>   `centralized`, `distributed`, `distributed-rma`, `hierarchical` (what
!>   LB4MPI_MODE accepts); `robust`: rDLB (docs/ROBUST.md). An absent
!>   argument keeps the LB4MPI_* variable or the default.
!> - `lb4mpi_next(loop, first, last)`: `.true.` with this rank's next chunk
!>   first..last (`integer` or `integer(int64)`), `.false.` when the loop has
!>   none left for it; it also ends the previous chunk.
!>
!> Errors (an unknown technique or mode, last < first - 1, a bad LB4MPI_*
!> variable, ranks passing different arguments) are found on every rank
!> together. With `status` (and `message`) lb4mpi_start and lb4mpi_finish
!> return them: status 0 fine, 2 an error, the message the same on every
!> rank; without `status` every rank prints the message and the program ends
!> with status 2. A failure inside the loop (lb4mpi_next), or lb4mpi_next or
!> lb4mpi_finish on a loop that was not started, is seen by one rank and ends
!> the job (MPI_Abort).
module lb4mpi
  use, intrinsic :: iso_c_binding, only: c_ptr, c_null_ptr, c_int, c_int64_t, c_double, c_char, &
      c_null_char
  use, intrinsic :: iso_fortran_env, only: int32, int64
#ifdef LB4MPI_HAVE_MPI_F08
  use mpi_f08, only: MPI_Comm
#endif
  implicit none
  private
  public :: lb4mpi_loop, lb4mpi_report
  public :: lb4mpi_start, lb4mpi_next, lb4mpi_finish
  public :: lb4mpi_technique_count, lb4mpi_technique_name

  !> A loop in flight on this rank (lb4mpi_start ... lb4mpi_finish).
  type :: lb4mpi_loop
    type(c_ptr) :: handle = c_null_ptr  !< owned by lb4mpi
  end type lb4mpi_loop

  !> What lb4mpi_finish returns on every rank.
  type :: lb4mpi_report
    real(c_double) :: t_par = 0                   !< parallel time [s]
    integer(int64), allocatable :: iterations(:)  !< per rank, 0..P-1
    character(len=16) :: technique = ''           !< the technique that ran (auto: the one it chose)
  end type lb4mpi_report

  !> Starts a loop (collective); see the module's description for its arguments.
  interface lb4mpi_start
    module procedure start_int_i8, start_int_i4
#ifdef LB4MPI_HAVE_MPI_F08
    module procedure start_f08_i8, start_f08_i4
#endif
  end interface lb4mpi_start

  !> This rank's next chunk; see the module's description.
  interface lb4mpi_next
    module procedure next_i8, next_i4
  end interface lb4mpi_next

  interface
    integer(c_int) function c_start(comm, first, last, technique, mode, robust, want_status, handle, &
                                    msg, msglen) bind(C, name="lb4mpi_f_loop_start")
      import :: c_int, c_int64_t, c_char, c_ptr
      integer(c_int), value :: comm, robust, want_status, msglen
      integer(c_int64_t), value :: first, last
      character(kind=c_char) :: technique(*), mode(*), msg(*)
      type(c_ptr) :: handle
    end function c_start
    integer(c_int) function c_next(handle, first, last) bind(C, name="lb4mpi_f_loop_next")
      import :: c_int, c_int64_t, c_ptr
      type(c_ptr), value :: handle
      integer(c_int64_t) :: first, last
    end function c_next
    integer(c_int) function c_size(handle) bind(C, name="lb4mpi_f_loop_size")
      import :: c_int, c_ptr
      type(c_ptr), value :: handle
    end function c_size
    integer(c_int) function c_finish(handle, t_par, iterations, technique, techlen, want_status, msg, &
                                     msglen) bind(C, name="lb4mpi_f_loop_finish")
      import :: c_int, c_int64_t, c_double, c_char, c_ptr
      type(c_ptr), value :: handle
      real(c_double) :: t_par
      integer(c_int64_t) :: iterations(*)
      character(kind=c_char) :: technique(*), msg(*)
      integer(c_int), value :: techlen, want_status, msglen
    end function c_finish
    integer(c_int) function c_technique_count() bind(C, name="lb4mpi_f_technique_count")
      import :: c_int
    end function c_technique_count
    subroutine c_technique_name(i, buf, len) bind(C, name="lb4mpi_f_technique_name")
      import :: c_int, c_char
      integer(c_int), value :: i, len
      character(kind=c_char) :: buf(*)
    end subroutine c_technique_name
  end interface

  integer, parameter :: kMessage = 1024

contains

  subroutine start_int_i8(loop, comm, first, last, technique, mode, robust, status, message)
    type(lb4mpi_loop), intent(inout) :: loop
    integer, intent(in) :: comm
    integer(int64), intent(in) :: first, last
    character(len=*), intent(in), optional :: technique, mode
    logical, intent(in), optional :: robust
    integer, intent(out), optional :: status
    character(len=*), intent(out), optional :: message
    call start_common(loop, int(comm, c_int), first, last, technique, mode, robust, status, message)
  end subroutine start_int_i8

  subroutine start_int_i4(loop, comm, first, last, technique, mode, robust, status, message)
    type(lb4mpi_loop), intent(inout) :: loop
    integer, intent(in) :: comm
    integer(int32), intent(in) :: first, last
    character(len=*), intent(in), optional :: technique, mode
    logical, intent(in), optional :: robust
    integer, intent(out), optional :: status
    character(len=*), intent(out), optional :: message
    call start_common(loop, int(comm, c_int), int(first, int64), int(last, int64), technique, mode, robust, &
                      status, message)
  end subroutine start_int_i4

#ifdef LB4MPI_HAVE_MPI_F08
  subroutine start_f08_i8(loop, comm, first, last, technique, mode, robust, status, message)
    type(lb4mpi_loop), intent(inout) :: loop
    type(MPI_Comm), intent(in) :: comm
    integer(int64), intent(in) :: first, last
    character(len=*), intent(in), optional :: technique, mode
    logical, intent(in), optional :: robust
    integer, intent(out), optional :: status
    character(len=*), intent(out), optional :: message
    call start_common(loop, int(comm%MPI_VAL, c_int), first, last, technique, mode, robust, status, message)
  end subroutine start_f08_i8

  subroutine start_f08_i4(loop, comm, first, last, technique, mode, robust, status, message)
    type(lb4mpi_loop), intent(inout) :: loop
    type(MPI_Comm), intent(in) :: comm
    integer(int32), intent(in) :: first, last
    character(len=*), intent(in), optional :: technique, mode
    logical, intent(in), optional :: robust
    integer, intent(out), optional :: status
    character(len=*), intent(out), optional :: message
    call start_common(loop, int(comm%MPI_VAL, c_int), int(first, int64), int(last, int64), technique, mode, &
                      robust, status, message)
  end subroutine start_f08_i4
#endif

  subroutine start_common(loop, comm, first, last, technique, mode, robust, status, message)
    type(lb4mpi_loop), intent(inout) :: loop
    integer(c_int), intent(in) :: comm
    integer(int64), intent(in) :: first, last
    character(len=*), intent(in), optional :: technique, mode
    logical, intent(in), optional :: robust
    integer, intent(out), optional :: status
    character(len=*), intent(out), optional :: message
    character(kind=c_char) :: msg(kMessage)
    integer(c_int) :: rc, rob
    rob = -1
    if (present(robust)) rob = merge(1, 0, robust)
    rc = c_start(comm, int(first, c_int64_t), int(last, c_int64_t), c_string(technique), c_string(mode), rob, &
                 merge(1, 0, present(status)), loop%handle, msg, int(kMessage, c_int))
    call set_status(rc, msg, status, message)
  end subroutine start_common

  !> The next chunk first..last of this rank; .false. when the loop has no more.
  logical function next_i8(loop, first, last)
    type(lb4mpi_loop), intent(inout) :: loop
    integer(int64), intent(out) :: first, last
    integer(c_int64_t) :: f, l
    next_i8 = c_next(loop%handle, f, l) /= 0
    first = f
    last = l
  end function next_i8

  logical function next_i4(loop, first, last)
    type(lb4mpi_loop), intent(inout) :: loop
    integer(int32), intent(out) :: first, last
    integer(c_int64_t) :: f, l
    next_i4 = c_next(loop%handle, f, l) /= 0
    first = int(f, int32)
    last = int(l, int32)
  end function next_i4

  !> Collective: ends the loop and releases it; the report on every rank.
  !> \param loop the loop of lb4mpi_start; released (a loop not started ends
  !>   the job).
  !> \param report the report, the same on every rank (set when the call
  !>   succeeded).
  !> \param status 0, or 2 on an error (e.g. a trace that cannot be written);
  !>   absent: an error ends the program with status 2.
  !> \param message the error's message (blank when status is 0).
  subroutine lb4mpi_finish(loop, report, status, message)
    type(lb4mpi_loop), intent(inout) :: loop
    type(lb4mpi_report), intent(out), optional :: report
    integer, intent(out), optional :: status
    character(len=*), intent(out), optional :: message
    character(kind=c_char) :: msg(kMessage), tech(16)
    integer(c_int64_t), allocatable :: iters(:)
    real(c_double) :: t
    integer(c_int) :: rc
    integer :: i
    allocate (iters(max(1, c_size(loop%handle))))
    rc = c_finish(loop%handle, t, iters, tech, 16_c_int, merge(1, 0, present(status)), msg, &
                  int(kMessage, c_int))
    loop%handle = c_null_ptr
    if (present(report) .and. rc == 0) then
      report%t_par = t
      allocate (report%iterations(0:size(iters) - 1))
      report%iterations = iters
      do i = 1, 16
        report%technique(i:i) = tech(i)
      end do
    end if
    call set_status(rc, msg, status, message)
  end subroutine lb4mpi_finish

  !> The number of techniques lb4mpi knows (without 'auto').
  !> \return the count, from the technique layer.
  integer function lb4mpi_technique_count()
    lb4mpi_technique_count = c_technique_count()
  end function lb4mpi_technique_count

  !> Technique i's name, 1..lb4mpi_technique_count(); lb4mpi_technique_count()+1: 'auto'.
  !> \param i the technique's position, from 1.
  !> \return the name (as lb4mpi_start's `technique` accepts it), blank-padded.
  function lb4mpi_technique_name(i) result(name)
    integer, intent(in) :: i
    character(len=16) :: name
    character(kind=c_char) :: buf(16)
    integer :: k
    call c_technique_name(int(i - 1, c_int), buf, 16_c_int)
    do k = 1, 16
      name(k:k) = buf(k)
    end do
  end function lb4mpi_technique_name

  function c_string(s) result(c)
    character(len=*), intent(in), optional :: s
    character(kind=c_char), allocatable :: c(:)
    integer :: i, n
    n = 0
    if (present(s)) n = len_trim(s)
    allocate (c(n + 1))
    do i = 1, n
      c(i) = s(i:i)
    end do
    c(n + 1) = c_null_char
  end function c_string

  subroutine set_status(rc, msg, status, message)
    integer(c_int), intent(in) :: rc
    character(kind=c_char), intent(in) :: msg(:)
    integer, intent(out), optional :: status
    character(len=*), intent(out), optional :: message
    integer :: i
    if (present(status)) status = rc
    if (present(message)) then
      message = ''
      if (rc /= 0) then
        do i = 1, min(len(message), size(msg))
          message(i:i) = msg(i)
        end do
      end if
    end if
  end subroutine set_status

end module lb4mpi
