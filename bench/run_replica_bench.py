#!/usr/bin/env python3
"""What coordinator failover's replica costs when nothing fails (issue 28,
docs/ROBUST.md): robust mode as built, against robust mode without the
failover layer (no results kept for a successor, no failover receive, no
confirmed end-of-loop report), and plain mode beside both. The second build
is this commit with bench/replica_off.patch applied (made here, in a
temporary worktree, and made again when the commit changed).
Per round and technique the three runs go in a shuffled order; the table
gives median T_par and the medians of the per-round ratios.

  run_replica_bench.py --build build/release --rounds 20
  run_replica_bench.py --build build/release --rounds 10 --app synthetic \
      --app-args "--iterations 200000 --distribution constant --mean-us 0.001" --techniques SS
(the second: a 1 ns body, so T_par / N is what a chunk costs)
"""
import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

ap = argparse.ArgumentParser()
ap.add_argument("--build", required=True, help="a Release build of this commit (apps included)")
ap.add_argument("--no-replica-build", help="where the build with bench/replica_off.patch goes (made, or made again for a new commit)")
ap.add_argument("--app", default="mandelbrot", choices=["mandelbrot", "synthetic"])
ap.add_argument("--app-args", default="--width 256 --threshold 3000", help="the app's arguments")
ap.add_argument("--ranks", type=int, default=2)
ap.add_argument("--rounds", type=int, default=20)
ap.add_argument("--techniques", default="SS,FAC2,GSS,TSS,AF")
ap.add_argument("--modes", default="centralized,distributed,distributed-rma")
ap.add_argument("--seed", type=int, default=1, help="of the shuffled order")
a = ap.parse_args()
env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
           OMPI_MCA_rmaps_base_oversubscribe="1")


def sh(cmd, **kw):
    subprocess.run(cmd, check=True, **kw)


def same_flags():
    """The build type and compiler flags of --build, so that both builds differ by the patch only."""
    keep = ("CMAKE_BUILD_TYPE", "CMAKE_CXX_FLAGS", "CMAKE_CXX_FLAGS_RELEASE", "CMAKE_CXX_FLAGS_RELWITHDEBINFO",
            "CMAKE_C_FLAGS", "CMAKE_C_FLAGS_RELEASE", "CMAKE_CXX_COMPILER", "CMAKE_C_COMPILER")
    flags = []
    for line in (Path(a.build) / "CMakeCache.txt").read_text().splitlines():
        name, _, value = line.partition("=")
        if name.split(":")[0] in keep:
            flags.append(f"-D{name.split(':')[0]}={value}")
    return flags


def build_without_replica() -> Path:
    out = Path(a.no_replica_build or Path(tempfile.gettempdir()) / "lb4mpi-no-replica-build")
    head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], check=True, capture_output=True,
                          text=True).stdout.strip()
    stamp = out / "lb4mpi-no-replica-commit"
    if (out / "apps" / "lb4mpi-synthetic").exists() and stamp.exists() and stamp.read_text() == head:
        return out
    if out.exists() and not stamp.exists() and any(out.iterdir()):
        sys.exit(f"run_replica_bench: {out} is not a build this script made: name a new or empty directory")
    shutil.rmtree(out, ignore_errors=True)  # of another commit: made again
    src = Path(tempfile.mkdtemp(prefix="lb4mpi-no-replica-src-"))
    print(f"run_replica_bench: building robust mode without the replica in {out} (source {src})", file=sys.stderr)
    sh(["git", "-C", str(ROOT), "worktree", "add", "--detach", "-f", str(src), "HEAD"], stdout=subprocess.DEVNULL)
    try:
        sh(["git", "-C", str(src), "apply", str(ROOT / "bench" / "replica_off.patch")])
        sh(["cmake", "-S", str(src), "-B", str(out), "-DLB4MPI_BUILD_TESTS=OFF", "-DLB4MPI_BUILD_BENCH=OFF",
            "-DLB4MPI_APPS=mandelbrot;synthetic"] +
           same_flags(), stdout=subprocess.DEVNULL)
        sh(["cmake", "--build", str(out), "--target", "mandelbrot", "synthetic", "-j", "2"], stdout=subprocess.DEVNULL)
        stamp.write_text(head)
    finally:
        subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(src)], check=False)
    return out


def run(build, tech, mode, robust):
    cmd = ["mpiexec", "--bind-to", "none", "-n", str(a.ranks), str(Path(build) / "apps" / f"lb4mpi-{a.app}")]
    cmd += a.app_args.split() + ["--technique", tech, "--mode", mode] + (["--robust"] if robust else [])
    p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120)
    lines = [l for l in p.stdout.splitlines() if l.startswith("{")]
    if p.returncode != 0 or not lines:
        sys.exit(f"run_replica_bench: failed ({p.returncode}): {' '.join(cmd)}\n{p.stderr[-2000:]}")
    j = json.loads(lines[-1])
    return j["t_par_s"], j["checksum"]


without = build_without_replica()
variants = {"plain": (a.build, False), "robust, no replica": (without, True), "robust": (a.build, True)}
rng = random.Random(a.seed)
for mode in a.modes.split(","):
    t = {}
    sums = {}
    for _ in range(a.rounds):
        for tech in a.techniques.split(","):
            order = list(variants)
            rng.shuffle(order)
            for v in order:
                build, robust = variants[v]
                tp, checksum = run(build, tech, mode, robust)
                t.setdefault((tech, v), []).append(tp)
                sums.setdefault(tech, set()).add(checksum)
    print(f"\n{mode}, P = {a.ranks}, lb4mpi-{a.app} {a.app_args}, {a.rounds} rounds: median T_par [s], "
          "median of the per-round ratios")
    print("| technique | plain | robust, no replica | robust | the replica: robust / no replica | robust / plain |")
    print("|---|--:|--:|--:|--:|--:|")
    for tech in a.techniques.split(","):
        p, n, r = (t[(tech, v)] for v in variants)
        if len(sums[tech]) != 1:
            sys.exit(f"run_replica_bench: {tech} {mode}: the checksums differ: {sorted(sums[tech])}")
        print(f"| {tech} | {statistics.median(p):.4f} | {statistics.median(n):.4f} | {statistics.median(r):.4f} | "
              f"{statistics.median(y / x for x, y in zip(n, r)):.3f} | "
              f"{statistics.median(y / x for x, y in zip(p, r)):.3f} |")
