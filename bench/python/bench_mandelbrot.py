#!/usr/bin/env python3
"""lb4mpi against a hand-written mpi4py master-worker loop (master_worker.py)
on the same NumPy Mandelbrot (examples/python/mandelbrot_numpy.py), in one
MPI job: every repetition runs each variant once, one after the other, so
that the machine's load hits them alike.

    mpiexec -n 4 python3 bench/python/bench_mandelbrot.py --width 512 --threshold 1000 --reps 5 \
        --lb4mpi technique=FAC2,mode=centralized,break_after=16384 --master-worker 4096

Variants: --lb4mpi K=V,... (lb4mpi.parallel_for with these options;
repeatable) and --master-worker CHUNK (iterations per chunk; repeatable).
Each run is timed on rank 0 from a barrier before to a barrier after it.
Rank 0 prints one JSON line per run ("bench": "mandelbrot_python": variant,
ranks, rep, time_s, checksum; lb4mpi's t_par_s and chunks) and fails when
the variants' checksums differ.
"""
import argparse
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "examples", "python"))
from common import MPI, lb4mpi  # noqa: E402  (common finds the package lb4mpi)
from mandelbrot_numpy import Params, checksum, escape_counts  # noqa: E402
from master_worker import master_worker  # noqa: E402


def parse_options(text):
    out = {}
    for item in filter(None, text.split(",")):
        key, _, value = item.partition("=")
        for kind in (int, float):
            try:
                value = kind(value)
                break
            except ValueError:
                pass
        out[key] = value
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--width", type=int, default=512)
    ap.add_argument("--threshold", type=int, default=1000)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--lb4mpi", action="append", default=[], help="K=V,... options of one lb4mpi variant")
    ap.add_argument("--master-worker", type=int, action="append", default=[], help="chunk size of one variant")
    args = ap.parse_args()
    comm = MPI.COMM_WORLD
    params = Params(width=args.width, threshold=args.threshold)
    n = params.iterations

    def chunk_sum(begin, end):
        return checksum(begin, escape_counts(params, begin, end))

    variants = []
    for text in args.lb4mpi:
        options = lb4mpi.Options(**parse_options(text))

        def run_lb4mpi(options=options):
            local = [0]

            def body(begin, end):
                local[0] += chunk_sum(begin, end)
            report = lb4mpi.parallel_for(comm, 0, n, body, options=options)
            total = comm.reduce(local[0], root=0)
            return (total or 0) % 2**64, {"t_par_s": report.t_par, "chunks": report.chunks()}
        variants.append((f"lb4mpi {text}", run_lb4mpi))
    for chunk in args.master_worker:
        variants.append((f"master-worker chunk={chunk}",
                         lambda chunk=chunk: (master_worker(comm, n, chunk, chunk_sum), {})))
    sums = set()
    for rep in range(-args.warmup, args.reps):
        for name, run in variants:
            comm.Barrier()
            t0 = time.perf_counter()
            total, extra = run()
            comm.Barrier()
            dt = time.perf_counter() - t0
            if comm.rank == 0 and rep >= 0:
                sums.add(total)
                print(json.dumps(dict({"bench": "mandelbrot_python", "variant": name, "ranks": comm.size,
                                       "width": args.width, "threshold": args.threshold, "rep": rep,
                                       "time_s": dt, "checksum": f"0x{total:016x}"}, **extra)), flush=True)
    if comm.rank == 0 and len(sums) > 1:
        sys.exit(f"bench_mandelbrot.py: the variants' checksums differ: {sorted(sums)}")


if __name__ == "__main__":
    main()
