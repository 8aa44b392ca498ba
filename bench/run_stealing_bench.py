#!/usr/bin/env python3
"""Work stealing over distributed data: `000` Fig. 5.1-5.3 in small.

lb4mpi-pisolver (the Pi-solver over distributed data) on P ranks, at each
workload imbalance (--imbalance PCT: rank 0 owns PCT % of the work on top of
its equal share), without balancing (--balancer none) and with relayed
stealing for every victim selection x steal amount (the paper's set: the
ratios 25/35/50 % and the techniques SS, FSC, mFSC, GSS, TSS, FAC2, WF).
The machine is shared and noisy (the CPU share of a run can change several
fold from one run to the next), so every stealing run is paired with a
no-balancing run right before it, and each run executes the loop --steps
times (the app's --repeat) and counts the median of its executions' T_par.
One round runs every pair once. For each cell: the median T_par over the
rounds, and the improvement over no balancing, 100 (1 - T_par /
T_par(none)), as the median of the per-pair ratios. Writes every run's JSON
summary (with `cell`, `round` and `t_par_median_s` added) to OUT/runs.jsonl
and prints a Markdown table.

  run_stealing_bench.py --build build/release --out /tmp/steal_p2 --ranks 2 --repeats 5 --victims random
  run_stealing_bench.py --build build/release --out /tmp/steal_p4 --ranks 4 --repeats 3 --extra "--ranks-per-node 2"
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

AMOUNTS = "25%,35%,50%,SS,FSC,mFSC,GSS,TSS,FAC2,WF"
VICTIMS = "random,locality,naive-locality"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", required=True, help="a Release build folder (apps/lb4mpi-pisolver)")
    ap.add_argument("--out", required=True)
    ap.add_argument("--ranks", type=int, default=2)
    ap.add_argument("--repeats", type=int, default=5, help="rounds")
    ap.add_argument("--steps", type=int, default=3, help="executions of the loop per run (--repeat)")
    ap.add_argument("--imbalances", default="0,20,30,40")
    ap.add_argument("--amounts", default=AMOUNTS)
    ap.add_argument("--victims", default=VICTIMS)
    ap.add_argument("--app-args", default="--iterations 40000 --work 2000")
    ap.add_argument("--extra", default="", help="more arguments for every stealing run (e.g. --ranks-per-node 2)")
    ap.add_argument("--mpiexec", default="mpiexec")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    app = os.path.join(a.build, "apps", "lb4mpi-pisolver")
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1")
    cells = [("none", ["--balancer", "none"])]
    for v in a.victims.split(","):
        for amount in a.amounts.split(","):
            cells.append((f"{v}/{amount}", ["--balancer", "steal", "--victim", v, "--steal-amount", amount]
                          + a.extra.split()))
    imbalances = [int(x) for x in a.imbalances.split(",")]
    runs = os.path.join(a.out, "runs.jsonl")
    t_par = {}  # (imbalance, cell) -> [median T_par per run]
    ratio = {}  # (imbalance, cell) -> [T_par / T_par(none) of its pair]

    def run(out, imb, name, args, rnd):
        cmd = [a.mpiexec, "-n", str(a.ranks), app, *a.app_args.split(), "--imbalance", str(imb),
               "--repeat", str(a.steps), *args]
        p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300)
        if p.returncode != 0:
            sys.exit(f"run_stealing_bench: {' '.join(cmd)} failed ({p.returncode}):\n{p.stderr}")
        s = summary_of(p.stdout)
        t = statistics.median(st["t_par_s"] for st in s["steps"])
        s["cell"], s["round"], s["t_par_median_s"] = name, rnd, t
        out.write(json.dumps(s) + "\n")
        out.flush()
        t_par.setdefault((imb, name), []).append(t)
        return t

    with open(runs, "w") as out:
        for rnd in range(a.repeats):
            for imb in imbalances:
                for name, args in cells[1:]:
                    base = run(out, imb, "none", cells[0][1], rnd)
                    ratio.setdefault((imb, name), []).append(run(out, imb, name, args, rnd) / base)
                print(f"round {rnd + 1}/{a.repeats}, imbalance {imb} %: none {t_par[(imb, 'none')][-1]:.3f} s",
                      file=sys.stderr)

    print(f"T_par of lb4mpi-pisolver {a.app_args} {a.extra} on {a.ranks} ranks: median over {a.repeats} rounds "
          f"of each run's median of {a.steps} executions; in brackets the improvement over no balancing "
          "(median of the ratios to the no-balancing run paired with each run)\n")
    print("| cell | " + " | ".join(f"{i} %" for i in imbalances) + " |")
    print("|---|" + "---|" * len(imbalances))
    best = {}
    for name, _ in cells:
        row = []
        for imb in imbalances:
            ts = t_par[(imb, name)]
            gain = 0.0 if name == "none" else statistics.median(100.0 * (1.0 - r) for r in ratio[(imb, name)])
            if name != "none" and (imb not in best or gain > best[imb][1]):
                best[imb] = (name, gain)
            row.append(f"{statistics.median(ts):.3f} s" + ("" if name == "none" else f" ({gain:+.1f} %)"))
        print(f"| {name} | " + " | ".join(row) + " |")
    print()
    for imb in imbalances:
        if imb in best:
            print(f"imbalance {imb} %: best {best[imb][0]}, {best[imb][1]:+.1f} % against no balancing")


if __name__ == "__main__":
    main()
