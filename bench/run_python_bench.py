#!/usr/bin/env python3
"""Benchmarks of the Python package lb4mpi (docs/PERFORMANCE.md, "Python
interface"): runs the commands in rounds, one after the other within a
round (A B C A B C ...), so that the machine's load hits them alike, reads
their JSON lines and prints Markdown tables of medians.

  bench/run_python_bench.py handout    --ranks 1 2 --rounds 5
  bench/run_python_bench.py mandelbrot --ranks 2 4 --rounds 3 --reps 3

handout: what a chunk costs through Python against the C++ API: the
  empty-bodied SS loop of bench/bench_handout.cpp (--api restart and
  parallel_for) and of bench/python/bench_handout.py (--api loop and
  parallel_for), N = --n, centralized mode; ns per chunk = T_par / chunks.
mandelbrot: lb4mpi.parallel_for against the hand-written mpi4py
  master-worker loop of bench/python/master_worker.py on the NumPy
  Mandelbrot (bench/python/bench_mandelbrot.py: every variant in the same
  MPI job, alternating, timed from a barrier before to a barrier after).

Options: --build-dir (default build-bench: a Release build with the
package), --python (default: the build's LB4MPI_PYTHON), --mpiexec,
--raw FILE (append every JSON line with its command), --out FILE (append the
Markdown). Launcher: Open MPI `mpiexec --bind-to none -n P` as root
(OMPI_ALLOW_RUN_AS_ROOT*), oversubscription allowed.
"""
from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "bench"))
from run_runtime_bench import fmt, fmt_ns, git_describe, load_avg, median, table  # noqa: E402


def log(msg):
    print(msg, file=sys.stderr, flush=True)


class Runner:
    def __init__(self, args):
        self.args = args
        self.build = (REPO / args.build_dir) if not Path(args.build_dir).is_absolute() else Path(args.build_dir)
        self.python = args.python or self.cached("LB4MPI_PYTHON") or "/usr/bin/python3"
        self.env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
                        OMPI_MCA_rmaps_base_oversubscribe="1", PYTHONPATH=str(self.build / "python"),
                        PYTHONDONTWRITEBYTECODE="1")
        self.raw = open(args.raw, "a") if args.raw else None
        self.loads = []

    def cached(self, name):
        try:
            for line in (self.build / "CMakeCache.txt").read_text().splitlines():
                if line.startswith(name + ":"):
                    return line.split("=", 1)[1]
        except OSError:
            pass
        return None

    def launch(self, ranks, argv):
        return [self.args.mpiexec, "--bind-to", "none", "-n", str(ranks), *argv]

    def run(self, cmd):
        self.loads.append(load_avg().split(",")[0])
        log("$ " + " ".join(shlex.quote(c) for c in cmd))
        p = subprocess.run(cmd, capture_output=True, text=True, env=self.env, timeout=self.args.timeout)
        if p.returncode != 0:
            sys.exit(f"run_python_bench: failed ({p.returncode}): {' '.join(cmd)}\n{p.stdout}\n{p.stderr}")
        out = [json.loads(line) for line in p.stdout.splitlines() if line.startswith("{")]
        if self.raw:
            for o in out:
                self.raw.write(json.dumps({"command": cmd, "result": o}) + "\n")
        return out

    def load_note(self):
        values = sorted(float(x) for x in self.loads if x)
        return f"{values[0]:.1f}–{values[-1]:.1f}" if values else "?"


def emit(args, text):
    print(text)
    if args.out:
        with open(args.out, "a") as f:
            f.write(text + "\n")


def cmd_handout(args):
    r = Runner(args)
    exe = str(r.build / "bench" / "bench_handout")
    script = str(REPO / "bench" / "python" / "bench_handout.py")
    common = ["--n", str(args.n), "--reps", str(args.reps), "--warmup", "1", "--modes", "centralized"]
    variants = {
        "C++ Loop (restart)": [exe, *common, "--api", "restart", "--skip-mpi"],
        "C++ parallel_for": [exe, *common, "--api", "parallel_for", "--skip-mpi"],
        "Python parallel_for": [r.python, script, *common, "--api", "parallel_for"],
        "Python Loop (for loop)": [r.python, script, *common, "--api", "loop"],
    }
    results = {(v, p): [] for v in variants for p in args.ranks}
    for rnd in range(args.rounds):
        for p in args.ranks:
            for name, argv in variants.items():
                results[(name, p)] += [o["ns_per_chunk"] for o in r.run(r.launch(p, argv))
                                       if o.get("bench") == "handout"]
    rows = []
    for name in variants:
        row = [name]
        for p in args.ranks:
            m = median(results[(name, p)])
            base = median(results[("C++ Loop (restart)", p)])
            row += [fmt_ns(m), fmt(m / base if m and base else None) + "×"]
        rows.append(row)
    header = ["empty-bodied SS, ns per chunk (median)"]
    for p in args.ranks:
        header += [f"P = {p}", "vs C++ Loop"]
    emit(args, f"`bench/run_python_bench.py handout --ranks {' '.join(map(str, args.ranks))} --rounds "
               f"{args.rounds} --reps {args.reps} --n {args.n}` — commit {git_describe()}, "
               f"{args.rounds * args.reps} executions per cell, 1-minute load {r.load_note()}\n")
    emit(args, table(header, rows))


def cmd_mandelbrot(args):
    r = Runner(args)
    script = str(REPO / "bench" / "python" / "bench_mandelbrot.py")
    argv = [r.python, script, "--width", str(args.width), "--threshold", str(args.threshold),
            "--reps", str(args.reps), "--warmup", "1"]
    for v in args.lb4mpi:
        argv += ["--lb4mpi", v]
    for c in args.master_worker:
        argv += ["--master-worker", str(c)]
    times = {}   # (variant, P) -> every execution's seconds
    ratios = {}  # (variant, P) -> per MPI job: its median / the best master-worker median of that job
    for rnd in range(args.rounds):
        for p in args.ranks:
            job = {}
            for o in r.run(r.launch(p, argv)):
                times.setdefault((o["variant"], p), []).append(o["time_s"])
                job.setdefault(o["variant"], []).append(o["time_s"])
            best = min(median(v) for k, v in job.items() if k.startswith("master-worker"))
            for k, v in job.items():
                ratios.setdefault((k, p), []).append(median(v) / best)
    names = list(dict.fromkeys(v for v, _ in times))
    rows = []
    for name in names:
        row = [name]
        for p in args.ranks:
            row += [fmt(median(times.get((name, p), []))), fmt(median(ratios.get((name, p), []))) + "×"]
        rows.append(row)
    header = [f"NumPy Mandelbrot {args.width}², threshold {args.threshold}"]
    for p in args.ranks:
        header += [f"P = {p}: s", "vs best master-worker"]
    emit(args, f"`bench/run_python_bench.py mandelbrot --ranks {' '.join(map(str, args.ranks))} --rounds "
               f"{args.rounds} --reps {args.reps} --width {args.width} --threshold {args.threshold}` "
               f"(variants below) — commit {git_describe()}, {args.rounds * args.reps} executions per cell, "
               f"1-minute load {r.load_note()}. Seconds: median of every execution; the ratio: median over "
               f"the {args.rounds} MPI jobs of the variant's median in that job over the best master-worker "
               f"median in the same job\n")
    emit(args, table(header, rows))


def main(argv=None):
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--ranks", type=int, nargs="+", default=[2])
    common.add_argument("--rounds", type=int, default=3)
    common.add_argument("--reps", type=int, default=5, help="repetitions inside each run")
    common.add_argument("--build-dir", default="build-bench")
    common.add_argument("--python", help="the interpreter (default: the build's LB4MPI_PYTHON)")
    common.add_argument("--mpiexec", default="mpiexec")
    common.add_argument("--timeout", type=float, default=600)
    common.add_argument("--raw", help="append every JSON line, with its command, to this file")
    common.add_argument("--out", help="append the Markdown to this file")
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="what", required=True)
    s = sub.add_parser("handout", parents=[common])
    s.add_argument("--n", type=int, default=200_000)
    s.set_defaults(func=cmd_handout)
    s = sub.add_parser("mandelbrot", parents=[common])
    s.add_argument("--width", type=int, default=512)
    s.add_argument("--threshold", type=int, default=1000)
    s.add_argument("--lb4mpi", action="append", help="K=V,... options of an lb4mpi variant (repeatable)")
    s.add_argument("--master-worker", type=int, action="append", help="chunk size of a master-worker variant")
    s.set_defaults(func=cmd_mandelbrot)
    args = ap.parse_args(argv)
    if args.what == "mandelbrot":
        args.lb4mpi = args.lb4mpi or ["technique=FAC2,break_after=8192,min_chunk=512"]
        args.master_worker = args.master_worker or [512, 4096]
    args.func(args)


if __name__ == "__main__":
    main()
