#!/usr/bin/env python3
"""Coordinator failover (issue 28, docs/ROBUST.md): T_par of a robust run
whose coordinator (rank 0) is killed at 25 / 50 / 75 % of the failure-free
T_par (built-in injection by time, SIGKILL), against the failure-free robust
run, interleaved, medians. The difference bounds the time from the death to
work resumed plus the re-execution of what died with the coordinator.

  run_failover_bench.py --build build/dev --ranks 4 --repeats 5 --timeout 1
"""
import argparse
import json
import os
import statistics
import subprocess

ap = argparse.ArgumentParser()
ap.add_argument("--build", required=True)
ap.add_argument("--app", default="lb4mpi-mandelbrot")
ap.add_argument("--app-args", default="--width 256 --threshold 3000")
ap.add_argument("--ranks", type=int, default=4)
ap.add_argument("--repeats", type=int, default=5)
ap.add_argument("--technique", default="FAC2")
ap.add_argument("--modes", default="centralized,distributed,distributed-rma")
ap.add_argument("--timeout", type=float, default=1.0, help="--robust-timeout")
a = ap.parse_args()
env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
           OMPI_MCA_rmaps_base_oversubscribe="1")


def run(mode, extra):
    cmd = ["mpiexec", "--enable-recovery", "--bind-to", "none", "-n", str(a.ranks),
           os.path.join(a.build, "apps", a.app)] + a.app_args.split()
    cmd += ["--technique", a.technique, "--mode", mode, "--robust", "--robust-timeout", str(a.timeout)] + extra
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120).stdout
    return json.loads([l for l in out.splitlines() if l.startswith("{")][-1])


print("| mode | failure-free T_par [s] | killed at | T_par [s] | minus failure-free [s] | checksum kept |")
print("|---|---|---|---|---|---|")
for mode in a.modes.split(","):
    base = [run(mode, []) for _ in range(a.repeats)]
    t0 = statistics.median(s["t_par_s"] for s in base)
    ref = base[0]["checksum"]
    for frac in (0.25, 0.5, 0.75):
        runs = [run(mode, ["--fail-ranks", "0", "--fail-after", f"{frac * t0:.4f}s"]) for _ in range(a.repeats)]
        t = statistics.median(s["t_par_s"] for s in runs)
        kept = all(s["checksum"] == ref and s["failed_ranks"] == [0] for s in runs)
        print(f"| {mode} | {t0:.3f} | {int(frac * 100)} % | {t:.3f} | {t - t0:.3f} | {kept} |", flush=True)
