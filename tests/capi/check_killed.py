#!/usr/bin/env python3
"""Runs a robust C API program while lb4mpi's injection kills ranks, and
checks every rank's fate (tests/capi/capi_robust.c, docs/ROBUST.md):

  check_killed.py --ranks 4 --killed 1,3 -- mpiexec --enable-recovery -n 4 capi_robust kill 0

- mpiexec exits 0 within the watchdog (its exit code alone says little under
  --enable-recovery: it is 0 even when a rank exits 1);
- exactly the ranks --killed announced their death ("failure injection: rank
  R stops now"), their pids are gone within 5 s, and they wrote no verdict;
- every other rank wrote its verdict (LB4MPI_VERDICT_DIR, set here): exit
  code 0, DLS_FailedRanks == the number killed, and on rank 0 every iteration
  committed exactly once with its value;
- stderr holds nothing else than the injection's lines and Open MPI's known
  PMIx notices.
Exits 0 when all hold, 1 otherwise (naming each problem).
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "robust"))
from robust_runs import Runner, unexpected_stderr  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ranks", type=int, required=True)
    ap.add_argument("--killed", required=True, help="the ranks the injection must kill, e.g. 1,3")
    ap.add_argument("command", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.command[1:] if a.command and a.command[0] == "--" else a.command
    killed = sorted(int(r) for r in a.killed.split(","))
    res = Runner(None).run(cmd, ranks=a.ranks)
    problems = []
    if res["rc"] is None:
        problems.append("hung")
    elif res["rc"] != 0:
        problems.append(f"mpiexec exit code {res['rc']}")
    if sorted(res["killed"]) != killed:
        problems.append(f"ranks {sorted(res['killed'])} died, expected {killed}")
    if res["undead"]:
        problems.append(f"killed ranks {res['undead']} still alive 5 s later (or pid unknown)")
    verdicts = res["verdicts"]
    survivors = [r for r in range(a.ranks) if r not in killed]
    if sorted(verdicts) != survivors:
        problems.append(f"verdicts from ranks {sorted(verdicts)}, expected the survivors {survivors}")
    for r in survivors:
        v = verdicts.get(r)
        if v is None:
            continue
        if v.get("exit_code") != 0:
            problems.append(f"survivor {r} exit code {v.get('exit_code')}")
        if v.get("failed_count") != len(killed):
            problems.append(f"survivor {r} saw {v.get('failed_count')} ranks failed, {len(killed)} were killed")
        if r == 0 and v.get("committed_ok") is not True:
            problems.append(f"the coordinator's commits are wrong: {v}")
    strange = unexpected_stderr(res["err"] or "")
    if strange:
        problems.append(f"unexpected stderr: {strange[:3]}")
    print(res["out"], end="")
    for p in problems:
        print(f"FAILED: {p}")
    if problems:
        print("stderr:\n" + (res["err"] or "")[-3000:])
    print(f"{len(survivors)} survivors checked, ranks {killed} killed: {'FAILED' if problems else 'ok'} "
          f"({res['dt']:.2f} s)")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
