#!/usr/bin/env python3
"""What handing out one chunk costs through the Python package, the
counterpart of bench/bench_handout.cpp's hand-out part: an empty-bodied loop
over N iterations with SS (one iteration per chunk), so T_par is nothing but
hand-out and, here, the call of the Python body.

    mpiexec -n 2 python3 bench/python/bench_handout.py --n 200000 --reps 5 --api parallel_for

--api parallel_for: lb4mpi.parallel_for with a Python body (the chunk loop
runs in C++, the body is called with the GIL); --api loop: one lb4mpi.Loop
per mode, restarted for each repetition, driven by a Python for loop
(`for begin, end in loop: pass`). Rank 0 prints one JSON line per mode and
repetition, with the fields of bench_handout's ("bench": "handout", api
"python-parallel_for" or "python-loop", t_par_s, chunks, ns_per_chunk, ...).
"""
import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples", "python"))
from common import MPI, lb4mpi  # noqa: E402  (common finds the package lb4mpi)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=200_000)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--modes", default="centralized,distributed,distributed-rma")
    ap.add_argument("--technique", default="SS")
    ap.add_argument("--api", choices=["parallel_for", "loop"], default="parallel_for")
    args = ap.parse_args()
    comm = MPI.COMM_WORLD
    modes = args.modes.split(",")
    loops = {}

    def body(begin, end):
        pass

    for rep in range(-args.warmup, args.reps):
        for mode in modes:
            comm.Barrier()
            t0 = time.perf_counter()
            if args.api == "parallel_for":
                r = lb4mpi.parallel_for(comm, 0, args.n, body, technique=args.technique, mode=mode)
            else:
                if mode not in loops:
                    loops[mode] = lb4mpi.Loop(comm, 0, args.n, technique=args.technique, mode=mode)
                else:
                    loops[mode].restart(0, args.n)
                loop = loops[mode]
                for begin, end in loop:
                    pass
                r = loop.finish()
            wall = time.perf_counter() - t0
            if rep < 0 or comm.rank != 0:
                continue
            chunks = r.chunks()
            print(json.dumps({
                "bench": "handout", "mpi": "openmpi" if MPI.get_vendor()[0] == "Open MPI" else "mpich",
                "ranks": comm.size, "mode": mode, "technique": args.technique, "api": f"python-{args.api}",
                "n": args.n, "rep": rep, "t_par_s": r.t_par, "wall_s": wall, "chunks": chunks,
                "iterations": r.iterations(), "chunks_per_s": chunks / r.t_par if r.t_par > 0 else 0.0,
                "ns_per_chunk": r.t_par * 1e9 / chunks if chunks else 0.0,
                "chunks_per_rank": [x.chunks for x in r.ranks],
                "overhead_s_per_rank": [x.overhead for x in r.ranks],
                "serve_s_coordinator": r.ranks[0].serve_time}), flush=True)
    loops.clear()


if __name__ == "__main__":
    main()
