#!/usr/bin/env python3
"""The z^4 + c Mandelbrot set of lb4mpi-mandelbrot (apps/mandelbrot), in NumPy:
its W^2 points scheduled across the MPI ranks by lb4mpi, each chunk computed
vectorised (mandelbrot_numpy.py).

    mpiexec -n 4 python3 examples/python/mandelbrot.py
    mpiexec -n 4 python3 examples/python/mandelbrot.py --width 512 --threshold 1000 --technique GSS --mode distributed

Rank 0 prints one JSON summary line like the C++ apps (common.summary): its
checksum is the one `lb4mpi-mandelbrot --width W --threshold T` prints.

A NumPy call has a fixed cost (here: `threshold` rounds of a few array
operations over the chunk's points, however few), so the body wants pieces
of many iterations: the coordinator, which computes too, runs its chunks in
pieces of --break-after iterations (default 16 W: 16 columns of the image;
lb4mpi's automatic value aims at pieces of 20 us, made for bodies whose cost
grows with their iterations, and would call this body for one point at a
time: docs/PYTHON.md) and --min-chunk (default W: one column) keeps the last
chunks from shrinking to single points.
"""
import os

from common import Cli, MPI, lb4mpi, print_summary, run, run_steps, summary  # common finds lb4mpi
from mandelbrot_numpy import Params, checksum, escape_counts


def main():
    comm = MPI.COMM_WORLD
    cli = Cli("Mandelbrot set of z^4 + c in NumPy, load-balanced across MPI ranks by lb4mpi")
    cli.add_argument("--width", type=int, default=256, help="image width W: the loop has W^2 iterations")
    cli.add_argument("--threshold", type=int, default=1000, help="the most steps of z <- z^4 + c per point")
    args = cli.parse_args()
    params = Params(width=args.width, threshold=args.threshold)
    try:
        params.validate()
    except ValueError as e:
        raise lb4mpi.Error(str(e)) from e
    options = cli.options(args)
    if args.break_after is None and "LB4MPI_BREAK_AFTER" not in os.environ:
        options.break_after = 16 * params.width
    if args.min_chunk is None and "LB4MPI_MIN_CHUNK" not in os.environ:
        options.min_chunk = params.width
    n = params.iterations

    def chunk_sum(begin, end):
        return checksum(begin, escape_counts(params, begin, end))

    steps = run_steps(comm, n, options, args.repeat, chunk_sum)
    print_summary(comm, summary("mandelbrot", comm, options, n, steps, {
        "width": params.width, "threshold": params.threshold,
        "window": [params.x_min, params.x_max, params.y_min, params.y_max], "numpy": True}))


if __name__ == "__main__":
    run("mandelbrot.py", main)
