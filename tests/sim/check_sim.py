#!/usr/bin/env python3
"""Tests of the simulation build (label sim; tests/sim/CMakeLists.txt).

  check_sim.py checksums --sim-app SIM_EXE [--native-app NATIVE_EXE --mpiexec MPIEXEC] -- APP_ARGS...
      The app on 64 simulated ranks in the three modes: every run completes,
      all give the same checksum, and it equals the native one (the same app
      built natively, under mpiexec on 3 ranks) when --native-app is given.
      The simulated clock is the one measured: two identical simulated runs
      give the same T_par to the last digit, and the synthetic app's T_par is
      at least the lower bound of its workload (its iterations were spent as
      simulated time, not skipped).

  check_sim.py smoke --runner RUNNER --design DESIGN --out DIR --sim-build BUILD
      The experiment runner on a simulated design: exit 0 (every run ok,
      checksums equal), one CSV row per run, and every figure of the design.
"""
import argparse
import csv
import json
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(REPO / "tools" / "sim"))
sys.path.insert(0, str(REPO / "apps" / "common"))
import lb4mpi_simrun  # noqa: E402
from app_summary import summary_of  # noqa: E402

MODES = ["centralized", "distributed", "distributed-rma"]


def fail(msg: str) -> None:
    print(f"check_sim: FAILED: {msg}", flush=True)
    sys.exit(1)


def simulated(exe: str, ranks: int, args: list[str]) -> dict:
    r = lb4mpi_simrun.run(ranks, [exe] + args, timeout=120)
    s = summary_of(r.stdout)
    if r.returncode != 0 or s is None:
        fail(f"simulated run (P={ranks} {' '.join(args)}) exit {r.returncode}: {r.stderr.strip()[-800:]}")
    print(f"simulated P={ranks} {s['technique']} {s['mode']}: checksum {s['checksum']}, T_par {s['t_par_s']:.6f} s "
          f"({r.host_cpu_s:.2f} s of host CPU)", flush=True)
    return s


def native(mpiexec: str, exe: str, ranks: int, args: list[str]) -> dict:
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1")
    r = lb4mpi_simrun.run_process([mpiexec, "-n", str(ranks), exe] + args, env=env, timeout=120)
    s = summary_of(r.stdout)
    if r.returncode != 0 or s is None:
        fail(f"native run (P={ranks} {' '.join(args)}) exit {r.returncode}: {r.stderr.strip()[-800:]}")
    print(f"native P={ranks} {s['technique']} {s['mode']}: checksum {s['checksum']}", flush=True)
    return s


def checksums(a) -> None:
    args = a.args
    sims = [simulated(a.sim_app, 64, args + ["--mode", m]) for m in MODES]
    sums = {s["checksum"] for s in sims}
    if len(sums) != 1:
        fail(f"the simulated modes disagree: {[(s['mode'], s['checksum']) for s in sims]}")
    if a.native_app:
        nat = native(a.mpiexec, a.native_app, 3, args + ["--mode", "centralized"])
        if nat["checksum"] != sims[0]["checksum"]:
            fail(f"simulated checksum {sims[0]['checksum']} != native {nat['checksum']}")
        print("checksums: simulated (64 ranks, 3 modes) == native (3 ranks)", flush=True)
    again = simulated(a.sim_app, 64, args + ["--mode", MODES[0]])
    if again["t_par_s"] != sims[0]["t_par_s"]:
        fail(f"two identical simulated runs: T_par {sims[0]['t_par_s']!r} and {again['t_par_s']!r} "
             "(host time leaks into the simulated clock)")
    for s in sims:
        if "t_par_over_bound" in s and not s["t_par_over_bound"] >= 1.0:
            fail(f"{s['mode']}: T_par {s['t_par_s']} s is below the workload's lower bound "
                 f"{s['lower_bound_s']} s: the iterations' time was not simulated")
    print("check_sim: checksums ok", flush=True)


def smoke(a) -> None:
    design = json.loads(Path(a.design).read_text())
    out = Path(a.out)
    if out.exists():
        for f in out.iterdir():
            f.unlink()
    cmd = [sys.executable, a.runner, a.design, "--out", str(out), "--sim-build", a.sim_build]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    print(p.stderr[-3000:], flush=True)
    if p.returncode != 0:
        fail(f"the runner exited {p.returncode}")
    with open(out / "runs.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    expected = design.get("repetitions", 1)
    for levels in design["factors"].values():
        expected *= len(levels)
    if len(rows) != expected or any(r["status"] != "ok" for r in rows):
        fail(f"{len(rows)} rows ({sum(r['status'] == 'ok' for r in rows)} ok), {expected} runs expected")
    for fig in design.get("figures", []):
        png = out / f"{fig['name']}.png"
        if not png.exists() or png.stat().st_size < 1000:
            fail(f"figure {png} missing")
    again = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    if again.returncode != 0 or f"{expected} already in" not in again.stderr:
        fail(f"a second invocation did not resume (exit {again.returncode}): {again.stderr[-500:]}")
    print(f"check_sim: smoke ok: {expected} runs, figures drawn, resumed", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="what", required=True)
    c = sub.add_parser("checksums")
    c.add_argument("--sim-app", required=True)
    c.add_argument("--native-app")
    c.add_argument("--mpiexec", default="mpiexec")
    c.add_argument("args", nargs=argparse.REMAINDER)
    s = sub.add_parser("smoke")
    s.add_argument("--runner", required=True)
    s.add_argument("--design", required=True)
    s.add_argument("--out", required=True)
    s.add_argument("--sim-build", required=True)
    a = ap.parse_args()
    if a.what == "checksums":
        a.args = [x for x in a.args if x != "--"]
        checksums(a)
    else:
        smoke(a)


if __name__ == "__main__":
    main()
