#!/usr/bin/env python3
"""The z^4 + c Mandelbrot set of lb4mpi-mandelbrot (apps/mandelbrot), in NumPy:
its W^2 points scheduled across the MPI ranks by lb4mpi, each chunk computed
vectorised (mandelbrot_numpy.py).

    mpiexec -n 4 python3 examples/python/mandelbrot.py
    mpiexec -n 4 python3 examples/python/mandelbrot.py --width 256 --threshold 2000 --technique GSS

Rank 0 prints one JSON summary line like the C++ apps (common.summary): its
checksum is the one `lb4mpi-mandelbrot --width W --threshold T` prints.
Defaults: --width 512 (as the C++ app), --threshold 1000 (the C++ app's
20000 would take 20 times as long in NumPy).

A NumPy call has a fixed cost (here: up to `threshold` rounds of about ten
array operations, however few the points), so the body wants few pieces of
many iterations; the defaults, when neither a flag nor an LB4MPI_* variable
gives them (docs/PYTHON.md, "Vectorised bodies"):
  --mode         distributed-rma: a rank takes its chunk with one atomic on
                 the coordinator's window, and the coordinator need not stop
                 its own work to serve anybody (Open MPI);
  --break-after  the whole loop in distributed-rma mode (no pieces), else
                 16 W (16 columns of the image): lb4mpi's automatic value
                 aims at pieces of 20 us and would call this body for one
                 point at a time;
  --min-chunk    W^2 / 16, a sixteenth of the image.
"""
import os

from common import Cli, MPI, lb4mpi, print_summary, run, run_steps, summary  # common finds lb4mpi
from mandelbrot_numpy import Params, checksum, escape_counts


def main():
    comm = MPI.COMM_WORLD
    cli = Cli("Mandelbrot set of z^4 + c in NumPy, load-balanced across MPI ranks by lb4mpi")
    cli.add_argument("--width", type=int, default=512, help="image width W: the loop has W^2 iterations")
    cli.add_argument("--threshold", type=int, default=1000, help="the most steps of z <- z^4 + c per point")
    args = cli.parse_args()
    params = Params(width=args.width, threshold=args.threshold)
    try:
        params.validate()
    except ValueError as e:
        raise lb4mpi.Error(str(e)) from e
    options = cli.options(args)
    n = params.iterations
    given = lambda flag, var: flag is not None or var in os.environ  # noqa: E731
    if not given(args.mode, "LB4MPI_MODE"):
        options.mode = "distributed-rma"
    if not given(args.break_after, "LB4MPI_BREAK_AFTER"):
        options.break_after = min(n, 2**31 - 1) if options.mode == "distributed-rma" else 16 * params.width
    if not given(args.min_chunk, "LB4MPI_MIN_CHUNK"):
        options.min_chunk = max(1, n // 16)

    def chunk_sum(begin, end):
        return checksum(begin, escape_counts(params, begin, end))

    steps = run_steps(comm, n, options, args.repeat, chunk_sum)
    print_summary(comm, summary("mandelbrot", comm, options, n, steps, {
        "width": params.width, "threshold": params.threshold,
        "window": [params.x_min, params.x_max, params.y_min, params.y_max], "numpy": True}))


if __name__ == "__main__":
    run("mandelbrot.py", main)
