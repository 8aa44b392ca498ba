#!/usr/bin/env python3
"""A2WS against its baselines: `002` Tables 3-4 and Fig. 4 in small.

lb4mpi-seismic (one 3-D acoustic shot per task) on emulated heterogeneous
nodes (`002` Table 2: the ranks cycle through configuration C1's cores
24,24,16,8,4,2,1,1, so 8 ranks are C1 and 16 are C2; --speeds, emulated by
sleeping), balanced by A2WS and by each baseline: leader-workers (lw),
random work stealing, token-based stealing (the CTWS of Table 4), relayed
stealing (`000`, lb4mpi's other balancer) and none.

  tables  for each configuration (ranks x shots): one round runs every
          balancer once, in a row, in a rotating order (the machine is
          shared and noisy); the table gives the median T_par over the
          rounds and A2WS's gain over each balancer, `002` Eq. 13:
          100 (1 - median T_par(a2ws) / median T_par(other)).
  radius  A2WS's radius R = 1, 2, ..., P/2 at one configuration (Fig. 4),
          again in rotating rounds: median T_par per R.

Every run's JSON summary (with `cell`, `config` and `round` added) goes to
OUT/runs.jsonl; the tables are printed in Markdown.

  run_a2ws_bench.py --build build/release --out /tmp/a2ws --repeats 5
  run_a2ws_bench.py --build build/release --out /tmp/a2ws --configs 8x480 --skip-radius
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

C1_CORES = [24, 24, 16, 8, 4, 2, 1, 1]  # `002` Table 2, configuration C1
BALANCERS = ["a2ws", "lw", "random-steal", "token", "steal", "none"]


def speeds(ranks):
    return ",".join(str(C1_CORES[r % len(C1_CORES)]) for r in range(ranks))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", required=True, help="a Release build folder (apps/lb4mpi-seismic)")
    ap.add_argument("--out", required=True)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--configs", default="8x480,8x960,16x960", help="RANKSxSHOTS,... for the tables")
    ap.add_argument("--balancers", default=",".join(BALANCERS))
    ap.add_argument("--radius-config", default="8x960", help="RANKSxSHOTS of the radius sweep")
    ap.add_argument("--skip-radius", action="store_true")
    ap.add_argument("--skip-tables", action="store_true")
    ap.add_argument("--app-args", default="--nx 28 --ny 28 --nz 28 --time-steps 100",
                    help="the shot's grid and steps (about 8 ms a shot on one free core)")
    ap.add_argument("--mpiexec", default="mpiexec")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    app = os.path.join(a.build, "apps", "lb4mpi-seismic")
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1")
    runs = open(os.path.join(a.out, "runs.jsonl"), "w")

    def run(config, cell, rnd, args):
        ranks, shots = (int(x) for x in config.split("x"))
        cmd = [a.mpiexec, "-n", str(ranks), app, *a.app_args.split(), "--shots", str(shots),
               "--speeds", speeds(ranks), *args]
        p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=900)
        if p.returncode != 0:
            sys.exit(f"run_a2ws_bench: {' '.join(cmd)} failed ({p.returncode}):\n{p.stderr}")
        s = summary_of(p.stdout)
        s["cell"], s["config"], s["round"] = cell, config, rnd
        runs.write(json.dumps(s) + "\n")
        runs.flush()
        return s["t_par_s"]

    def rounds(config, cells):
        """Every cell once per round, the order rotated by one each round."""
        t = {name: [] for name, _ in cells}
        for rnd in range(a.repeats):
            order = cells[rnd % len(cells):] + cells[:rnd % len(cells)]
            for name, args in order:
                t[name].append(run(config, name, rnd, args))
            print(f"{config} round {rnd + 1}/{a.repeats}: " +
                  ", ".join(f"{n} {t[n][-1]:.3f} s" for n, _ in cells), file=sys.stderr)
        return t

    balancers = a.balancers.split(",")
    if not a.skip_tables:
        configs = a.configs.split(",")
        results = {}
        for config in configs:
            results[config] = rounds(config, [(b, ["--balancer", b]) for b in balancers])
        print(f"T_par of lb4mpi-seismic {a.app_args}, speeds cycling through {C1_CORES} (`002` Table 2 C1), "
              f"median of {a.repeats} rounds; in brackets A2WS's gain over the balancer, "
              "100 (1 - median A2WS / median other) (`002` Eq. 13)\n")
        print("| balancer | " + " | ".join(f"{c.split('x')[0]} ranks, {c.split('x')[1]} shots" for c in configs) + " |")
        print("|---|" + "---|" * len(configs))
        for b in balancers:
            row = []
            for c in configs:
                m = statistics.median(results[c][b])
                a2 = statistics.median(results[c]["a2ws"]) if "a2ws" in results[c] else None
                gain = "" if b == "a2ws" or a2 is None else f" ({100.0 * (1.0 - a2 / m):+.1f} %)"
                row.append(f"{m:.3f} s{gain}")
            print(f"| {b} | " + " | ".join(row) + " |")
        print()
    if not a.skip_radius:
        ranks = int(a.radius_config.split("x")[0])
        radii = list(range(1, ranks // 2 + 1))
        t = rounds(a.radius_config, [(f"R={r}", ["--balancer", "a2ws", "--radius", str(r)]) for r in radii])
        print(f"A2WS's radius (`002` Fig. 4): lb4mpi-seismic {a.app_args}, {a.radius_config.replace('x', ' ranks x ')} "
              f"shots, median of {a.repeats} rounds (R = {ranks // 2} reaches every rank)\n")
        print("| R | " + " | ".join(str(r) for r in radii) + " |")
        print("|---|" + "---|" * len(radii))
        print("| T_par | " + " | ".join(f"{statistics.median(t[f'R={r}']):.3f} s" for r in radii) + " |")
        print("| min-max | " + " | ".join(f"{min(t[f'R={r}']):.2f}-{max(t[f'R={r}']):.2f}" for r in radii) + " |")


if __name__ == "__main__":
    main()
