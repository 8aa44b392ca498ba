! The Mandelbrot of the apps (z <- z^4 + c, apps/mandelbrot) through the
! modern module `lb4mpi` and `use mpi_f08`: the same points, escape counts and
! checksum as `lb4mpi-mandelbrot --width W --threshold CT` (docs/FORTRAN.md).
!
!   mpiexec -n 4 lb4mpi-mandelbrot-f [W [CT [technique [mode]]]]   (512 1000 FAC2 centralized)
!
! Prints one JSON line; its "checksum" equals the C++ app's. The checksum
! is a sum mod 2^64 of the apps' mix of (point, count): integer(int64)
! arithmetic that wraps (compiled with -fwrapv).
program mandelbrot_f
  use, intrinsic :: iso_fortran_env, only: int32, int64, real64
  use mpi_f08
  use lb4mpi
  implicit none
  integer(int64) :: width, n, first, last, i, sum, total
  integer(int64), allocatable :: sums(:)
  integer(int32) :: threshold
  character(len=32) :: technique, mode, arg
  character(len=4096) :: per_rank
  type(lb4mpi_loop) :: loop
  type(lb4mpi_report) :: rep
  integer :: rank, size, r

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, size)
  width = 512
  threshold = 1000
  technique = 'FAC2'
  mode = 'centralized'
  if (command_argument_count() >= 1) then
    call get_command_argument(1, arg)
    read (arg, *) width
  end if
  if (command_argument_count() >= 2) then
    call get_command_argument(2, arg)
    read (arg, *) threshold
  end if
  if (command_argument_count() >= 3) call get_command_argument(3, technique)
  if (command_argument_count() >= 4) call get_command_argument(4, mode)
  n = width * width

  ! Points 0 .. W^2-1 as the app numbers them, here 1 .. W^2.
  sum = 0
  call lb4mpi_start(loop, MPI_COMM_WORLD, 1_int64, n, technique=technique, mode=mode)
  do while (lb4mpi_next(loop, first, last))
    do i = first, last
      sum = sum + mix_result(i - 1, int(escape_count(i - 1), int64))
    end do
  end do
  call lb4mpi_finish(loop, rep)

  allocate (sums(size))
  call MPI_Gather(sum, 1, MPI_INTEGER8, sums, 1, MPI_INTEGER8, 0, MPI_COMM_WORLD)
  if (rank == 0) then
    total = 0
    do r = 1, size
      total = total + sums(r)
    end do
    per_rank = ''
    do r = 0, size - 1
      write (arg, '(i0)') rep%iterations(r)
      per_rank = trim(per_rank) // trim(merge(',', ' ', r > 0)) // trim(arg)
    end do
    write (*, '(a,a,a,a,a,i0,a,i0,a,es12.5,a,a,a,a,a)') '{"app":"mandelbrot-fortran","technique":"', &
        trim(rep%technique), '","mode":"', trim(mode), '","ranks":', size, ',"iterations":', n, &
        ',"t_par_s":', rep%t_par, ',"checksum":"', hex64(total), '","iterations_per_rank":[', trim(per_rank), ']}'
  end if
  call MPI_Finalize()

contains

  integer(int32) function escape_count(i)
    integer(int64), intent(in) :: i
    real(real64) :: cr, ci, zr, zi, sr, si, w
    w = real(width, real64)
    cr = -2.0_real64 + real(i / width, real64) / w * 4.0_real64
    ci = -2.0_real64 + real(mod(i, width), real64) / w * 4.0_real64
    zr = 0
    zi = 0
    escape_count = 0
    do while (escape_count < threshold .and. zr * zr + zi * zi < 4.0_real64)
      sr = zr * zr - zi * zi
      si = 2.0_real64 * zr * zi
      zr = sr * sr - si * si + cr
      zi = 2.0_real64 * sr * si + ci
      escape_count = escape_count + 1
    end do
  end function escape_count

  ! SplitMix64's finalizer and the apps' mix (apps/common/mix.hpp), in
  ! wrapping int64 arithmetic; the constants are the unsigned ones' bits.
  integer(int64) function fmix64(z0)
    integer(int64), intent(in) :: z0
    integer(int64) :: z
    z = z0
    z = ieor(z, shiftr(z, 30)) * (-4658895280553007687_int64)
    z = ieor(z, shiftr(z, 27)) * (-7723592293110705685_int64)
    fmix64 = ieor(z, shiftr(z, 31))
  end function fmix64

  integer(int64) function mix_result(i, result)
    integer(int64), intent(in) :: i, result
    mix_result = fmix64(fmix64(ieor(i, 6364136223846793005_int64)) + result * (-7046029254386353131_int64) + &
                        7146057691288625177_int64)
  end function mix_result

  character(len=18) function hex64(v)
    integer(int64), intent(in) :: v
    character(len=16) :: h
    integer :: k
    write (h, '(z16.16)') v
    do k = 1, 16
      if (h(k:k) >= 'A' .and. h(k:k) <= 'F') h(k:k) = achar(iachar(h(k:k)) + 32)
    end do
    hex64 = '0x' // h
  end function hex64

end program mandelbrot_f
