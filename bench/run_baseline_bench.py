#!/usr/bin/env python3
"""lb4mpi's C interface against the loop a C programmer writes by hand
(issue 32; bench/baseline/). Every launch runs both loops alternating on the
same driver (`lb4mpi-baseline --impl both`), every technique one after the
other; the sweep repeats `--rounds` times over the MPIs, rank counts and
kernels, interleaved. Per cell: the medians of T_par and the median of the
paired ratios lb4mpi / hand (repetition k of one against repetition k of the
other, run back to back).

  bench/run_baseline_bench.py --rounds 3 --reps 5 --ranks 2 4 --mpi openmpi mpich \\
      --build-dir build-bench --build-dir-mpich build-bench-mpich

Launchers as bench/run_runtime_bench.py: Open MPI `mpiexec --bind-to none
-n P` (oversubscription allowed), MPICH `mpiexec.mpich -n P`. `--env K=V`
adds to every launch's environment (e.g. LB4MPI_WAIT=spin).
"""
from __future__ import annotations

import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TECHNIQUES = ["STATIC", "SS", "GSS", "TSS", "FAC"]
KERNELS = {"null": ["--kernel", "null", "--n", "1000000"],
           "mandelbrot": ["--kernel", "mandelbrot", "--width", "256", "--threshold", "2000"]}


def launcher(mpi: str, ranks: int) -> list[str]:
    if mpi == "openmpi":
        return ["mpiexec", "--bind-to", "none", "-n", str(ranks)]
    return ["mpiexec.mpich", "-n", str(ranks)]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build-dir", default="build-bench")
    ap.add_argument("--build-dir-mpich", default="build-bench-mpich")
    ap.add_argument("--mpi", nargs="+", default=["openmpi", "mpich"], choices=["openmpi", "mpich"])
    ap.add_argument("--ranks", nargs="+", type=int, default=[2, 4])
    ap.add_argument("--kernels", nargs="+", default=["null", "mandelbrot"], choices=list(KERNELS))
    ap.add_argument("--techniques", nargs="+", default=TECHNIQUES, choices=TECHNIQUES)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--timeout", type=float, default=300.0)
    ap.add_argument("--env", action="append", default=[], help="K=V for every launch")
    ap.add_argument("--raw", help="append every JSON line here")
    args = ap.parse_args()

    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1")
    for kv in args.env:
        k, _, v = kv.partition("=")
        env[k] = v
    raw = open(args.raw, "a") if args.raw else None
    # (mpi, ranks, kernel, technique) -> impl -> {rep index: t_par}
    cells: dict[tuple, dict[str, list[float]]] = {}
    failures = 0
    for rnd in range(args.rounds):
        for mpi in args.mpi:
            exe = Path(args.build_dir if mpi == "openmpi" else args.build_dir_mpich) / "bench" / "lb4mpi-baseline"
            for ranks in args.ranks:
                for kernel in args.kernels:
                    for tech in args.techniques:
                        cmd = launcher(mpi, ranks) + [str(exe), "--impl", "both", "--technique", tech,
                                                      "--reps", str(args.reps)] + KERNELS[kernel]
                        print(f"[round {rnd + 1}] {shlex.join(cmd)}", file=sys.stderr, flush=True)
                        try:
                            out = subprocess.run(cmd, env=env, capture_output=True, text=True,
                                                 timeout=args.timeout)
                        except subprocess.TimeoutExpired:
                            print("  timed out", file=sys.stderr)
                            failures += 1
                            continue
                        if out.returncode != 0:
                            print(f"  failed ({out.returncode}): {out.stderr.strip()[-400:]}", file=sys.stderr)
                            failures += 1
                            continue
                        cell = cells.setdefault((mpi, ranks, kernel, tech), {"hand": [], "lb4mpi": []})
                        for line in out.stdout.splitlines():
                            if not line.startswith("{"):
                                continue
                            j = json.loads(line)
                            cell[j["impl"]].append(j["t_par_s"])
                            if raw:
                                raw.write(json.dumps({"mpi": mpi, "round": rnd, **j}) + "\n")
    load = Path("/proc/loadavg").read_text().split()[:3]
    print(f"\nload average after the sweep: {', '.join(load)}; {args.rounds} rounds x {args.reps} "
          f"repetitions per cell; ratio = median over the pairs of lb4mpi / hand\n")
    print("| MPI | P | kernel | technique | hand T_par [ms] | lb4mpi T_par [ms] | lb4mpi / hand |")
    print("|---|--:|---|---|--:|--:|--:|")
    worst = 0.0
    for (mpi, ranks, kernel, tech), c in cells.items():
        pairs = [b / a for a, b in zip(c["hand"], c["lb4mpi"]) if a > 0]
        if not pairs:
            continue
        ratio = statistics.median(pairs)
        worst = max(worst, ratio)
        print(f"| {'Open MPI' if mpi == 'openmpi' else 'MPICH'} | {ranks} | {kernel} | {tech} | "
              f"{1e3 * statistics.median(c['hand']):.3g} | {1e3 * statistics.median(c['lb4mpi']):.3g} | "
              f"{ratio:.2f} |")
    print(f"\nlargest ratio: {worst:.2f}; failed launches: {failures}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
