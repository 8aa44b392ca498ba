#!/usr/bin/env python3
"""Tests of the simulation build (label sim; tests/sim/CMakeLists.txt).

  check_sim.py checksums --sim-app SIM_EXE [--native-app NATIVE_EXE --mpiexec MPIEXEC] -- APP_ARGS...
      The app on 64 simulated ranks in the three modes: every run completes,
      all give the same checksum, and it equals the native one (the same app
      built natively, under mpiexec on 3 ranks) when --native-app is given.
      The simulated clock is the one measured: two identical simulated runs
      give the same T_par to the last digit, and the synthetic app's T_par is
      at least the lower bound of its workload (its iterations were spent as
      simulated time, not skipped). Robust mode loses its coordinator:
      rank 0 stops mid-run, and once the loop ended on it (before the
      end-of-loop exchange); each run gives the failure-free checksum, names
      rank 0 failed and rank 1 the final coordinator (docs/EXPERIMENTS.md,
      *Coordinator failover in simulation*).

The experiment runner's smoke design on 64 simulated ranks is run by
tests/tools/check_experiment.py (sim.smoke).
"""
import argparse
import os
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
    for mode, when in [(MODES[0], "0.001s"), (MODES[0], "end"), ("distributed-rma", "0.001s")]:
        lost = simulated(a.sim_app, 64, args + ["--mode", mode, "--robust", "--robust-timeout", "0.05",
                                                "--fail-ranks", "0", "--fail-after", when])
        if (lost["checksum"], lost.get("failed_ranks"), lost.get("coordinator")) != (sims[0]["checksum"], [0], 1):
            fail(f"robust {mode}, rank 0 stopped at {when}: checksum {lost['checksum']} (failure-free "
                 f"{sims[0]['checksum']}), failed ranks {lost.get('failed_ranks')} (expected [0]), final "
                 f"coordinator {lost.get('coordinator')} (expected 1)")
    print("check_sim: checksums ok", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="what", required=True)
    c = sub.add_parser("checksums")
    c.add_argument("--sim-app", required=True)
    c.add_argument("--native-app")
    c.add_argument("--mpiexec", default="mpiexec")
    c.add_argument("args", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    a.args = [x for x in a.args if x != "--"]
    checksums(a)


if __name__ == "__main__":
    main()
