#!/usr/bin/env python3
"""Issue 32's two figures besides the baseline table (bench/run_baseline_bench.py):

  hot path        SS over an empty body, N = 10^6, P = 2, through the C
                  interface (bench_handout --api capi): ns per iteration of T_par;
  serve share     FAC2 (and GSS), Mandelbrot 256^2, CT 2000, P = 2
                  (lb4mpi-mandelbrot): the coordinator's serve_time and each
                  rank's waiting time in % of T_par.

Before/after in one run: --lib-before DIR runs the hot path a second time
with LD_LIBRARY_PATH=DIR (a copy of an older liblb4mpi.so*: the C
interface's ABI does not change), alternating.

  bench/run_hotpath_bench.py --build-dir build/dev --rounds 5 [--lib-before /tmp/before]
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path


def launcher(mpi: str, ranks: int) -> list[str]:
    return (["mpiexec", "--bind-to", "none", "-n", str(ranks)] if mpi == "openmpi"
            else ["mpiexec.mpich", "-n", str(ranks)])


def run(cmd: list[str], env: dict, timeout: float) -> list[dict]:
    print(" ".join(cmd), file=sys.stderr, flush=True)
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)
    if out.returncode != 0:
        print(f"  failed: {out.stderr.strip()[-300:]}", file=sys.stderr)
        return []
    return [json.loads(l) for l in out.stdout.splitlines() if l.startswith("{")]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build-dir", default="build-bench")
    ap.add_argument("--build-dir-mpich", default="build-bench-mpich")
    ap.add_argument("--mpi", nargs="+", default=["openmpi"], choices=["openmpi", "mpich"])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--lib-before", help="folder with the liblb4mpi.so* to compare with")
    ap.add_argument("--timeout", type=float, default=300.0)
    args = ap.parse_args()
    base = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
                OMPI_MCA_rmaps_base_oversubscribe="1")
    versions = [("after", base)]
    if args.lib_before:
        versions.append(("before", dict(base, LD_LIBRARY_PATH=args.lib_before)))
    hot: dict = {}
    share: dict = {}
    for rnd in range(args.rounds):
        for mpi in args.mpi:
            build = Path(args.build_dir if mpi == "openmpi" else args.build_dir_mpich)
            order = versions if rnd % 2 == 0 else list(reversed(versions))
            for label, env in order:
                for j in run(launcher(mpi, 2) + [str(build / "bench" / "bench_handout"), "--n", "1000000",
                                                 "--reps", "3", "--warmup", "1", "--api", "capi", "--skip-mpi",
                                                 "--modes", "centralized"], env, args.timeout):
                    hot.setdefault((mpi, label), []).append(j["ns_per_iteration"])
                for tech in (("FAC2", "GSS") if label == "after" else ()):  # the C++ ABI may differ
                    for s in run(launcher(mpi, 2) + [str(build / "apps" / "lb4mpi-mandelbrot"), "--width", "256",
                                                     "--threshold", "2000", "--technique", tech, "--repeat", "3"],
                                 env, args.timeout):
                        for st in s["steps"]:
                            t = st["t_par_s"]
                            row = share.setdefault((mpi, label, tech), {"serve0": [], "wait0": [], "wait1": []})
                            row["serve0"].append(100 * st["serve_time_per_rank"][0] / t)
                            row["wait0"].append(100 * st["waiting_time_per_rank"][0] / t)
                            row["wait1"].append(100 * st["waiting_time_per_rank"][1] / t)
    load = ", ".join(Path("/proc/loadavg").read_text().split()[:3])
    print(f"\nload average after the run: {load}; medians\n")
    print("| MPI | version | SS, N = 10^6, P = 2: ns / iteration | runs |")
    print("|---|---|--:|--:|")
    for (mpi, label), v in sorted(hot.items()):
        print(f"| {mpi} | {label} | {statistics.median(v):.0f} | {len(v)} |")
    print("\n| MPI | version | technique | rank 0 serving [% T_par] | rank 0 waiting | rank 1 waiting | executions |")
    print("|---|---|---|--:|--:|--:|--:|")
    for (mpi, label, tech), r in sorted(share.items()):
        print(f"| {mpi} | {label} | {tech} | {statistics.median(r['serve0']):.2f} | "
              f"{statistics.median(r['wait0']):.2f} | {statistics.median(r['wait1']):.2f} | {len(r['serve0'])} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
