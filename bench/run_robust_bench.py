#!/usr/bin/env python3
"""Robust mode under failures and perturbations: `004` Fig. 3 in small.

Per technique, the app (Mandelbrot by default) runs on P ranks under
Open MPI's `mpiexec --enable-recovery` in these scenarios:

  baseline   nothing happens
  fail-1     1 worker killed (SIGKILL) when its 2nd chunk arrives
  fail-half  P/2 workers killed so
  fail-all   P - 1 workers killed so (the coordinator finishes alone)
  slow       the last rank slowed 4x (--slow-ranks, --slow-factor 4)
  latency    100 us added to every message to and from the last rank
             (liblb4mpi_perturb.so through LD_PRELOAD, docs/PERTURBATION.md)
  combined   slow + latency + 1 worker killed

each with robust mode on, and the scenarios without failures also with it
off. The runs of one repeat go round all (technique, scenario, robust)
cells before the next repeat starts, so a cell's runs are spread over the
whole measurement (the machine is shared and noisy). Writes every run's JSON
summary (with `scenario` added) to OUT/runs.jsonl, then prints the median
T_par table, the cost of robust mode in the baseline (median of per-repeat
ratios robust / plain, side by side), and the FePIA tables of
tools/fepia/lb4mpi_fepia.py (resilience for the fail-* scenarios,
flexibility for the others).

  run_robust_bench.py --build build/release --out /tmp/robust --repeats 3
  run_robust_bench.py --build build/release --out /tmp/robust-rma --mode distributed-rma
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
DEFAULT_TECHNIQUES = "SS,GSS,TSS,FAC2,TFSS,AWF-B,AF,RND,PLS"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", required=True, help="a Release build folder (apps/, src/perturb/)")
    ap.add_argument("--out", required=True)
    ap.add_argument("--ranks", type=int, default=4)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--techniques", default=DEFAULT_TECHNIQUES)
    ap.add_argument("--app", default="mandelbrot")
    ap.add_argument("--mode", default="centralized", help="centralized, distributed or distributed-rma")
    ap.add_argument("--app-args", default="--width 256 --threshold 3000")
    ap.add_argument("--mpiexec", default="mpiexec")
    ap.add_argument("--latency-us", type=int, default=100)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    p = a.ranks
    last = p - 1
    app = os.path.join(a.build, "apps", f"lb4mpi-{a.app}")
    perturb = os.path.join(a.build, "src", "perturb", "liblb4mpi_perturb.so")
    if not os.path.exists(perturb):
        sys.exit(f"run_robust_bench: {perturb} not found (build the target lb4mpi_perturb)")

    def victims(k):
        return ",".join(str(r) for r in range(p - k, p))  # the highest ranks, never the coordinator

    fail = lambda k: ["--fail-ranks", victims(k), "--fail-after", "2"]
    slow = ["--slow-ranks", str(last), "--slow-factor", "4"]
    latency_env = {"LD_PRELOAD": perturb, "LB4MPI_PERTURB_RANKS": str(last),
                   "LB4MPI_PERTURB_LATENCY_US": str(a.latency_us)}
    scenarios = [  # name, app args, extra environment, failures?
        ("baseline", [], {}, False),
        ("fail-1", fail(1), {}, True),
        ("fail-half", fail(p // 2), {}, True),
        ("fail-all", fail(p - 1), {}, True),
        ("slow", slow, {}, False),
        ("latency", [], latency_env, False),
        ("combined", slow + fail(1), latency_env, True),
    ]
    techniques = a.techniques.split(",")
    runs_path = os.path.join(a.out, "runs.jsonl")
    records = []
    with open(runs_path, "w") as runs:
        for rep in range(a.repeats):
            for t in techniques:
                for name, extra, env_extra, failures in scenarios:
                    for robust in ([True] if failures else [False, True]):
                        cmd = [a.mpiexec, "--enable-recovery", "-n", str(p)]
                        for k, v in env_extra.items():
                            cmd += ["-x", f"{k}={v}"]
                        cmd += [app] + a.app_args.split() + ["--technique", t, "--mode", a.mode] + extra
                        if robust:
                            cmd += ["--robust", "--robust-timeout", "2"]
                        try:
                            r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                               timeout=120)
                            s = summary_of(r.stdout)
                        except subprocess.TimeoutExpired:
                            s = None
                        if s is None:
                            print(f"run_robust_bench: no summary: {' '.join(cmd)}", file=sys.stderr)
                            s = {"technique": t, "t_par_s": None, "robust": robust}
                        s["scenario"] = name
                        s["repeat"] = rep
                        s.pop("steps", None)
                        runs.write(json.dumps(s) + "\n")
                        runs.flush()
                        records.append(s)
            print(f"repeat {rep + 1} of {a.repeats} done", file=sys.stderr, flush=True)

    def median_t(t, name, robust):
        xs = [r["t_par_s"] for r in records
              if r["technique"] == t and r["scenario"] == name and r["robust"] == robust and r["t_par_s"] is not None]
        return statistics.median(xs) if xs else None

    names = [s[0] for s in scenarios]
    print(f"\nMedian T_par [s], {a.app} ({a.app_args}), {a.mode}, P = {p}, {a.repeats} repeats; "
          "plain / robust (failures: robust only)\n")
    print("| technique | " + " | ".join(names) + " |")
    print("|---|" + "---:|" * len(names))
    for t in techniques:
        cells = []
        for name, _, _, failures in scenarios:
            rb = median_t(t, name, True)
            pl = None if failures else median_t(t, name, False)
            fmt = lambda x: "—" if x is None else f"{x:.3f}"
            cells.append(fmt(rb) if failures else f"{fmt(pl)} / {fmt(rb)}")
        print(f"| {t} | " + " | ".join(cells) + " |")

    print("\nCost of robust mode without failures: median over repeats of T_par(robust) / T_par(plain), "
          "the two runs of a repeat side by side\n")
    print("| technique | baseline | slow | latency |")
    print("|---|---:|---:|---:|")
    for t in techniques:
        cells = []
        for name in ("baseline", "slow", "latency"):
            ratios = []
            for rep in range(a.repeats):
                pair = {r["robust"]: r["t_par_s"] for r in records
                        if r["technique"] == t and r["scenario"] == name and r["repeat"] == rep}
                if pair.get(True) and pair.get(False):
                    ratios.append(pair[True] / pair[False])
            cells.append(f"{statistics.median(ratios):.3f}" if ratios else "—")
        print(f"| {t} | " + " | ".join(cells) + " |")

    print("\nFePIA (tools/fepia/lb4mpi_fepia.py, `004` §4.1):\n", flush=True)
    subprocess.run([sys.executable, os.path.join(ROOT, "tools", "fepia", "lb4mpi_fepia.py"), runs_path,
                    "--failure-scenarios", "fail-*,combined", "--min-radius-pct", "1"], check=False)


if __name__ == "__main__":
    main()
