#!/usr/bin/env python3
"""Automatic technique selection against every fixed technique (issue 16).

A cell is (ranks, app, scenario); in every cell the app runs 30 time steps
(--repeat) once per configuration: each of the 21 techniques fixed, and
`--technique auto` under each selection policy (LB4MPI_AUTO_POLICY). The
figure of a run is its total T_par over the steps (the summary's t_par_s).

  apps       mandelbrot  --width 64
             psia        --points 2000
             syn-0.25    synthetic, gamma iteration times, c.o.v. 0.25
             syn-1.8     synthetic, gamma iteration times, c.o.v. 1.8
  scenarios  none        no perturbation
             slow        the last rank slowed 4x from time step 15 of 30
             delay       100 us injected into every chunk calculation

Every repeat goes round all cells, and within a cell the configurations run
in a shuffled order (another for every repeat), so that the machine's drift
spreads over all of them. Runs are appended to OUT/runs.jsonl; a second
invocation with the same OUT resumes (runs already there are skipped).
The table printed (and written to OUT/table.md) gives per cell the best
fixed technique in hindsight (lowest median total), each policy's median
total, and auto / best: the median over repeats of the per-repeat ratio
(both measured in the same repeat, minutes apart at most).

  run_auto_bench.py --build build/release --out /tmp/auto --repeats 3
  run_auto_bench.py --build build/release --out /tmp/auto --ranks 2 --configs fixed   # fixed only

With --sim the apps of a simulation build (cmake -DLB4MPI_SIMGRID=ON) run on
the simulated miniHPC (tools/sim/lb4mpi_simrun.py), with inputs 16x larger
(APPS_SIM) so that 256 ranks have work; one repeat suffices (deterministic):

  run_auto_bench.py --sim --build build/sim --out /tmp/auto256 --ranks 256 --repeats 1 \
      --apps syn-1.8 --techniques STATIC,GSS,TSS,FAC2,TFSS,FISS,mFSC,WF,AWF-B,AWF-D,AWF-E
"""
import argparse
import json
import os
import random
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "apps", "common"))
from app_summary import summary_of  # noqa: E402

TECHNIQUES = ("STATIC SS FSC mFSC GSS TAP TSS FAC FAC2 TFSS FISS VISS WF AWF AWF-B AWF-C AWF-D AWF-E "
              "AF RND PLS").split()
POLICIES = ["explore", "bandit", "rule"]
STEPS = 30
APPS = {
    "mandelbrot": ("lb4mpi-mandelbrot", ["--width", "64"]),
    "psia": ("lb4mpi-psia", ["--points", "2000"]),
    "syn-0.25": ("lb4mpi-synthetic", ["--iterations", "4000", "--mean-us", "10", "--distribution", "gamma",
                                      "--cov", "0.25"]),
    "syn-1.8": ("lb4mpi-synthetic", ["--iterations", "4000", "--mean-us", "10", "--distribution", "gamma",
                                     "--cov", "1.8"]),
}

# At 256 simulated ranks: 16 iterations per rank for the synthetic loops (each
# 1.6 ms on average: a time step of ~26 ms, as natively); Mandelbrot and PSIA
# 4x the native points. A simulated run costs host time per chunk (about
# 0.7 ms at 256 ranks: FAC2's 30 steps of 4096 iterations take 41 s, SS's
# more than 300 s), hence --techniques to run a subset of the fixed ones.
APPS_SIM = {
    "mandelbrot": ("lb4mpi-mandelbrot", ["--width", "128"]),
    "psia": ("lb4mpi-psia", ["--points", "8000"]),
    "syn-0.25": ("lb4mpi-synthetic", ["--iterations", "4096", "--mean-us", "1600", "--distribution", "gamma",
                                      "--cov", "0.25"]),
    "syn-1.8": ("lb4mpi-synthetic", ["--iterations", "4096", "--mean-us", "1600", "--distribution", "gamma",
                                     "--cov", "1.8"]),
}
SIMRUN = os.path.join(os.path.dirname(HERE), "tools", "sim", "lb4mpi_simrun.py")


def scenario_args(scenario, ranks):
    if scenario == "slow":
        return ["--slow-ranks", str(ranks - 1), "--slow-factor", "4", "--slow-from", str(STEPS // 2)]
    if scenario == "delay":
        return ["--inject-delay-us", "100"]
    return []


def configs(which, techniques=TECHNIQUES, policies=POLICIES):
    out = []
    if which in ("all", "fixed"):
        out += [("fixed", t) for t in techniques]
    if which in ("all", "auto"):
        out += [("auto", p) for p in policies]
    return out


def run_one(a, ranks, app, scenario, kind, what):
    exe, args = (APPS_SIM if a.sim else APPS)[app]
    # lb4mpi_simrun's own watchdog kills the simulation it started (a killed wrapper would leave it running)
    launcher = ([sys.executable, SIMRUN, "-n", str(ranks), "--timeout", "1500"] if a.sim
                else [a.mpiexec, "-n", str(ranks)])
    cmd = launcher + [os.path.join(a.build, "apps", exe)] + args + [
        "--repeat", str(STEPS), "--technique", what if kind == "fixed" else "auto"] + scenario_args(scenario, ranks)
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1")
    if kind == "auto":
        env["LB4MPI_AUTO_POLICY"] = what
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=1800 if a.sim else 600)
    s = summary_of(p.stdout)
    if p.returncode != 0 or s is None:
        sys.exit("run_auto_bench: failed: %s\n%s" % (" ".join(cmd), p.stderr[-2000:]))
    return s


def table(runs, cells):
    lines = ["| P | app | scenario | best fixed (median s) | " + " | ".join(
        "%s s, auto/best" % p for p in POLICIES) + " |", "|" + "---|" * (4 + len(POLICIES))]
    by = {}
    for r in runs:
        by.setdefault((r["ranks"], r["app"], r["scenario"]), []).append(r)
    for cell in cells:
        rs = by.get(cell, [])
        fixed = {}
        for r in rs:
            if r["kind"] == "fixed":
                fixed.setdefault(r["what"], []).append(r)
        if not fixed:
            continue
        med = {t: statistics.median(x["total_s"] for x in v) for t, v in fixed.items()}
        best = min(med, key=med.get)
        row = "| %d | %s | %s | %s %.3f |" % (cell[0], cell[1], cell[2], best, med[best])
        for pol in POLICIES:
            autos = [r for r in rs if r["kind"] == "auto" and r["what"] == pol]
            ratios = []
            for r in autos:
                same = [x["total_s"] for x in fixed.get(best, []) if x["repeat"] == r["repeat"]]
                if same:
                    ratios.append(r["total_s"] / same[0])
            if autos:
                row += " %.3f, %.3f |" % (statistics.median(x["total_s"] for x in autos),
                                          statistics.median(ratios) if ratios else float("nan"))
            else:
                row += " - |"
        lines.append(row)
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", required=True, help="a Release build folder (with apps/)")
    ap.add_argument("--out", required=True)
    ap.add_argument("--ranks", default="2,4")
    ap.add_argument("--apps", default=",".join(APPS))
    ap.add_argument("--scenarios", default="none,slow,delay")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--configs", choices=["all", "fixed", "auto"], default="all")
    ap.add_argument("--techniques", default=",".join(TECHNIQUES), help="the fixed techniques to run (default: all 21)")
    ap.add_argument("--policies", default=",".join(POLICIES), help="the selection policies to run")
    ap.add_argument("--mpiexec", default="mpiexec")
    ap.add_argument("--sim", action="store_true", help="--build is a simulation build: run on simulated miniHPC")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    path = os.path.join(a.out, "runs.jsonl")
    runs = []
    if os.path.exists(path):
        with open(path) as f:
            runs = [json.loads(line) for line in f if line.strip()]
    done = {(r["ranks"], r["app"], r["scenario"], r["kind"], r["what"], r["repeat"]) for r in runs}
    cells = [(int(p), app, sc) for p in a.ranks.split(",") for app in a.apps.split(",")
             for sc in a.scenarios.split(",")]
    for t in a.techniques.split(","):
        if t not in TECHNIQUES:
            sys.exit("run_auto_bench: unknown technique %r; valid: %s" % (t, " ".join(TECHNIQUES)))
    for p in a.policies.split(","):
        if p not in POLICIES:
            sys.exit("run_auto_bench: unknown policy %r; valid: %s" % (p, " ".join(POLICIES)))
    cfgs = configs(a.configs, a.techniques.split(","), a.policies.split(","))
    todo = [(rep, cell, cfg) for rep in range(a.repeats) for cell in cells
            for cfg in random.Random("%d %s" % (rep, cell)).sample(cfgs, len(cfgs))]
    todo = [t for t in todo if (t[1][0], t[1][1], t[1][2], t[2][0], t[2][1], t[0]) not in done]
    with open(path, "a") as f:
        for i, (rep, (ranks, app, sc), (kind, what)) in enumerate(todo):
            s = run_one(a, ranks, app, sc, kind, what)
            rec = {"ranks": ranks, "app": app, "scenario": sc, "kind": kind, "what": what, "repeat": rep,
                   "total_s": s["t_par_s"], "checksum": s["checksum"],
                   "techniques": [st.get("technique") for st in s["steps"]],
                   "reasons": [st.get("selection", "") for st in s["steps"]] if kind == "auto" else [],
                   # per step, what a selection policy is fed (bench/auto_replay replays policies on these)
                   "steps": [{"t_par_s": st.get("t_par_s"), "iterations_per_rank": st.get("iterations_per_rank"),
                              "work_time_per_rank": st.get("work_time_per_rank"),
                              "overhead_per_rank": st.get("overhead_per_rank")} for st in s["steps"]]}
            f.write(json.dumps(rec) + "\n")
            f.flush()
            runs.append(rec)
            print("\r[%d/%d] P=%d %-10s %-6s %-5s %-8s %.3f s   " % (i + 1, len(todo), ranks, app, sc, kind, what,
                                                                 rec["total_s"]), end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    t = table(runs, cells)
    with open(os.path.join(a.out, "table.md"), "w") as f:
        f.write(t + "\n")
    print(t)


if __name__ == "__main__":
    main()
