#!/usr/bin/env python3
"""Two builds side by side: the same app runs, interleaved (A, B, A, B ...),
robust mode off and on, per technique and mode; prints median T_par of each
and the median of the per-repeat ratios B / A. For a change that must not
make the hot path slower (issue 28: the recovery unit).

  run_ab_bench.py --a /work/main/build/dev --b build/dev --ranks 2 --repeats 7
"""
import argparse
import itertools
import json
import os
import statistics
import subprocess

ap = argparse.ArgumentParser()
ap.add_argument("--a", required=True, help="build dir A (before)")
ap.add_argument("--b", required=True, help="build dir B (after)")
ap.add_argument("--app", default="lb4mpi-mandelbrot")
ap.add_argument("--app-args", default="--width 256 --threshold 3000")
ap.add_argument("--ranks", type=int, default=2)
ap.add_argument("--repeats", type=int, default=5)
ap.add_argument("--techniques", default="FAC2,GSS,SS")
ap.add_argument("--modes", default="centralized,distributed,distributed-rma")
ap.add_argument("--timeout", type=float, default=120)
a = ap.parse_args()
env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
           OMPI_MCA_rmaps_base_oversubscribe="1")
cells = list(itertools.product(a.techniques.split(","), a.modes.split(","), (False, True)))
t = {}
for rep in range(a.repeats):
    for tech, mode, robust in cells:
        for side, build in (("A", a.a), ("B", a.b)):
            cmd = ["mpiexec", "--bind-to", "none", "-n", str(a.ranks), os.path.join(build, "apps", a.app)]
            cmd += a.app_args.split() + ["--technique", tech, "--mode", mode] + (["--robust"] if robust else [])
            out = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=a.timeout).stdout
            line = [l for l in out.splitlines() if l.startswith("{")][-1]
            t.setdefault((tech, mode, robust, side), []).append(json.loads(line)["t_par_s"])
print(f"| technique | mode | robust | A median T_par [s] | B median T_par [s] | median B/A |")
print("|---|---|---|---|---|---|")
for tech, mode, robust in cells:
    ta, tb = t[(tech, mode, robust, "A")], t[(tech, mode, robust, "B")]
    ratio = statistics.median(b / x for x, b in zip(ta, tb))
    print(f"| {tech} | {mode} | {'on' if robust else 'off'} | {statistics.median(ta):.4f} | "
          f"{statistics.median(tb):.4f} | {ratio:.3f} |")
