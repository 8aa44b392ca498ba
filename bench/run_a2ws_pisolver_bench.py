#!/usr/bin/env python3
"""A2WS on an imbalanced owned loop: does the overloaded rank steal?

lb4mpi-pisolver --imbalance PCT gives rank 0 PCT % of the work on top of
its share (issue 34, point 7: A2WS at P = 2 once let the overloaded rank 0
steal back from the light rank and took 0.094 s against 0.066-0.072 s).
Each round runs every balancer once at every P, in a rotating order (the
machine is shared and noisy); per (P, balancer) the table gives the median
T_par with its min and max over the rounds, the median and maximum of the
iterations rank 0 executed (its own share alone is N (1/P + PCT/100) minus
what others took), and in how many rounds rank 0 stole anything.

--compare DIR adds the A2WS of another build folder as "a2ws@DIR" (the
same binary name), run in the same rounds: before/after a change.

Every run's JSON summary (with `P`, `balancer`, `round` added) goes to
OUT/runs.jsonl; the table is printed in Markdown.

  run_a2ws_pisolver_bench.py --build build/release --out /tmp/a2ws-pi --repeats 10
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "apps", "common"))
from app_summary import summary_of  # noqa: E402

BALANCERS = ["a2ws", "steal", "lw", "random-steal", "token", "none"]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", required=True, help="a Release build folder (apps/lb4mpi-pisolver)")
    ap.add_argument("--compare", help="another build folder whose A2WS runs beside (before/after)")
    ap.add_argument("--out", required=True)
    ap.add_argument("--repeats", type=int, default=10)
    ap.add_argument("--ranks", default="2,4")
    ap.add_argument("--imbalance", default="30")
    ap.add_argument("--balancers", default=",".join(BALANCERS))
    ap.add_argument("--app-args", default="", help="more pisolver arguments (e.g. --iterations 40000)")
    ap.add_argument("--mpiexec", default="mpiexec")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    variants = [(b, os.path.join(a.build, "apps", "lb4mpi-pisolver")) for b in a.balancers.split(",")]
    if a.compare:
        variants.append((f"a2ws@{a.compare}", os.path.join(a.compare, "apps", "lb4mpi-pisolver")))
    for _, exe in variants:
        if not os.access(exe, os.X_OK):
            sys.exit(f"run_a2ws_pisolver_bench.py: no {exe} (build the apps)")
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1")
    ranks = [int(p) for p in a.ranks.split(",")]
    runs = {}
    checksums = {}
    with open(os.path.join(a.out, "runs.jsonl"), "w") as log:
        for rnd in range(a.repeats):
            for p in ranks:
                shift = rnd % len(variants)
                for name, exe in variants[shift:] + variants[:shift]:
                    balancer = "a2ws" if name.startswith("a2ws@") else name
                    cmd = [a.mpiexec, "-n", str(p), exe, "--imbalance", a.imbalance, "--balancer", balancer]
                    cmd += a.app_args.split()
                    res = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300)
                    s = summary_of(res.stdout)
                    if res.returncode != 0 or s is None:
                        sys.exit(f"failed ({res.returncode}): {' '.join(cmd)}\n{res.stdout}\n{res.stderr}")
                    checksums.setdefault(p, set()).add(s["checksum"])
                    s.update(P=p, balancer=name, round=rnd)
                    log.write(json.dumps(s) + "\n")
                    runs.setdefault((p, name), []).append(s)
    bad = {p: c for p, c in checksums.items() if len(c) != 1}
    if bad:
        sys.exit(f"run_a2ws_pisolver_bench.py: checksums differ between runs: {bad}")
    print(f"pisolver --imbalance {a.imbalance} {a.app_args}, {a.repeats} rounds; T_par in ms")
    print()
    print("| P | balancer | median T_par | min–max | rank 0 iterations: median (max) | rounds rank 0 stole in |")
    print("|---|---|---|---|---|---|")
    for p in ranks:
        for name, _ in variants:
            rs = runs[(p, name)]
            t = [r["t_par_s"] * 1e3 for r in rs]
            it0 = [r["iterations_per_rank"][0] for r in rs]
            stole = sum(1 for r in rs if (r.get("steals_per_rank") or [0])[0] > 0)
            print(f"| {p} | {name} | {statistics.median(t):.1f} | {min(t):.1f}–{max(t):.1f} | "
                  f"{statistics.median(it0):.0f} ({max(it0)}) | {stole} of {len(rs)} |")


if __name__ == "__main__":
    main()
