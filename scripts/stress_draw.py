#!/usr/bin/env python3
"""Draws the random configurations of scripts/stress.sh.

    stress_draw.py --seed S --runs K [--robust]

prints K lines, one configuration each, as three fields separated by '|'
(the environment may be empty):

    RANKS|LB4MPI_X=v LB4MPI_Y=w ...|--loop ... --steps ... (driver arguments)

No value contains a blank or a shell metacharacter, so the fields can be
split on blanks and pasted into a command line as they are. The same seed
gives the same K lines (Python's random.Random is stable across versions
for the calls used here: random(), randint(), choice(), sample()); run i of
seed S is independent of K.

Every draw is valid (docs/OPTIONS.md), so any error lb4mpi reports during a
run is a failure of the run.
"""
import argparse
import math
import random

TECHNIQUES = ["STATIC", "SS", "FSC", "mFSC", "GSS", "TAP", "TSS", "FAC", "FAC2", "TFSS", "FISS",
              "VISS", "WF", "AWF", "AWF-B", "AWF-C", "AWF-D", "AWF-E", "AF", "RND", "PLS"]
# The ids of `000` Table 4.1 that LB4MPI_SCHEDULING and parse_technique accept.
LEGACY_IDS = {"STATIC": 0, "SS": 1, "FSC": 2, "GSS": 3, "TSS": 4, "FAC": 5, "FAC2": 7, "WF": 8, "AWF": 9,
              "AWF-B": 10, "AWF-C": 11, "AWF-D": 12, "AWF-E": 13, "AF": 14}
MODES = {"centralized": ["centralized", "cca"], "distributed": ["distributed", "dca"],
         "distributed-rma": ["distributed-rma", "dca-rma"]}
MAX_N = 100_000
# The total of the per-iteration work of a run, summed over its loops and
# steps, is kept below this (the mean work is half the maximum): with the
# start of mpiexec a run takes about 0.2-1 s.
WORK_BUDGET_NS = 300e6


def log_uniform(rng, lo, hi):
    """An integer in [lo, hi], uniform in log scale (small values as likely as large ones)."""
    return int(round(math.exp(rng.uniform(math.log(lo), math.log(hi)))))


def draw_n(rng, p):
    """A loop length in [0, MAX_N], favouring small and edge values."""
    u = rng.random()
    if u < 0.30:
        return rng.choice([0, 1, max(p - 1, 0), p, p + 1, 2 * p, 2 * p + 1])
    if u < 0.65:
        return rng.randint(2, 1000)
    if u < 0.90:
        return log_uniform(rng, 1000, MAX_N)
    return rng.randint(0, MAX_N)


def spell_technique(rng, t):
    """The technique as a user may write it: canonical mostly, else lower case,
    '_' for '-', or its Table 4.1 id (parse_technique accepts all of them)."""
    u = rng.random()
    if u < 0.75:
        return t
    if u < 0.85:
        return t.lower()
    if u < 0.92 or t not in LEGACY_IDS:
        return t.replace("-", "_")
    return str(LEGACY_IDS[t])


def draw(rng, robust_available):
    p = rng.randint(1, 4)
    env = {}
    k = rng.choice([1, 1, 1, 2, 2, 3])  # loops in flight (or in sequence)
    steps = 1 if rng.random() < 0.5 else rng.randint(2, 4)
    if k == 1:
        drive = rng.choice(["loop", "loop", "any", "target"])
    else:
        drive = rng.choice(["loop", "any", "any", "target", "target"])

    loops = []
    used = set()
    total_n = 0
    for _ in range(k):
        t = rng.choice(TECHNIQUES)
        used.add(t)
        mode = rng.choice(sorted(MODES))
        ns = [draw_n(rng, p)]
        if steps > 1 and rng.random() < 0.4:  # a different length per time step
            ns += [draw_n(rng, p) for _ in range(steps - 1)]
        total_n += ns[0] * steps if len(ns) == 1 else sum(ns)
        u = rng.random()
        if u < 0.7:
            first = 0
        elif u < 0.9:
            first = rng.randint(-1000, 1000)
        else:
            first = (1 << 40) + rng.randint(0, 1000)  # indices beyond 32 bits
        coord = 0 if rng.random() < 0.6 else rng.randint(0, p - 1)
        spec = f"{spell_technique(rng, t)}:{rng.choice(MODES[mode])}:{','.join(map(str, ns))}:{first}:{coord}"
        loops.append(spec)

    # Chunk bounds (shared by every loop): max >= min when both are set.
    min_chunk = log_uniform(rng, 1, 300) if rng.random() < 0.25 else None
    if min_chunk is not None:
        env["LB4MPI_MIN_CHUNK"] = min_chunk
    if rng.random() < 0.25:
        env["LB4MPI_MAX_CHUNK"] = (min_chunk or 1) + log_uniform(rng, 1, 2000) - 1

    # The coordinator's and the worker's pieces (docs/OPTIONS.md: < 0 automatic).
    if rng.random() < 0.15:
        env["LB4MPI_BREAK_AFTER"] = rng.choice([0, 1, 7, 64, 1000])
    if rng.random() < 0.15:
        env["LB4MPI_REQUEST_WHEN"] = rng.choice([0, 1, 5, 100])

    # Technique parameters, within their documented ranges, sometimes.
    if used & {"FSC", "mFSC"} and rng.random() < 0.3:
        env["LB4MPI_H"] = round(rng.uniform(0.0005, 0.05), 6)
    if used & {"FSC", "mFSC", "TAP", "FAC"} and rng.random() < 0.3:
        env["LB4MPI_SIGMA"] = round(rng.uniform(0.001, 0.5), 6)
    if used & {"TAP", "FAC"} and rng.random() < 0.3:
        env["LB4MPI_MU"] = round(rng.uniform(0.001, 1.0), 6)
    if "TAP" in used and rng.random() < 0.3:
        env["LB4MPI_ALPHA"] = round(rng.uniform(0.0, 0.01), 6)
    if "FISS" in used and rng.random() < 0.3:
        env["LB4MPI_FISS_B"] = rng.randint(2, 12)
    if "VISS" in used and rng.random() < 0.3:
        env["LB4MPI_VISS_X"] = round(rng.uniform(0.5, 10.0), 3)
    if "PLS" in used and rng.random() < 0.3:
        env["LB4MPI_PLS_SWR"] = rng.choice([0, 1, round(rng.random(), 3)])
    if "RND" in used and rng.random() < 0.4:
        env["LB4MPI_RND_BOUNDS"] = rng.choice(["unit", "paper004"])
        env["LB4MPI_SEED"] = rng.randint(0, 1 << 30)
    if used & {"WF", "AWF"} and rng.random() < 0.4:  # one positive weight per rank
        env["LB4MPI_WEIGHTS"] = ",".join(str(round(rng.uniform(0.2, 5.0), 2)) for _ in range(p))

    # Injected delay in every chunk calculation, on all ranks or some.
    if rng.random() < 0.3:
        env["LB4MPI_INJECT_DELAY_US"] = log_uniform(rng, 1, 50)
        if rng.random() < 0.5:
            ranks = sorted(rng.sample(range(p), rng.randint(1, p)))
            env["LB4MPI_DELAY_RANKS"] = ",".join(map(str, ranks))
    if drive == "target" and rng.random() < 0.3:
        env["LB4MPI_IDLE_PROBING"] = 1

    # ---- robust mode: a draw kept off until Options has `robust` (issue 12) ----
    # The number is drawn in any case, so turning the draw on does not change
    # the other draws of a seed. The driver says whether its lb4mpi has robust
    # mode (lb4mpi-stress-case --features); stress.sh passes --robust then.
    # STATIC cannot be robust (`004`; asking for it is an error). Robust mode
    # runs in every drive (a LoopSet too: its loops commit their results), in
    # all three modes and with every other technique, those without a closed
    # form in distributed and distributed-rma mode too (docs/ROBUST.md).
    robust = rng.random() < 0.6 and robust_available and "STATIC" not in used
    # ------------------------------------------------------------------------------

    # Per-iteration work: a few ns to a few us, less for long runs.
    work_ns = log_uniform(rng, 1, 5000)
    if total_n > 0:
        work_ns = min(work_ns, int(2 * WORK_BUDGET_NS / total_n))
    args = [a for spec in loops for a in ("--loop", spec)]
    args += ["--steps", str(steps), "--drive", drive, "--work-ns", str(work_ns),
             "--seed", str(rng.randint(0, 1 << 31))]
    if robust:
        args.append("--robust")
    return p, env, args


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--runs", type=int, required=True)
    ap.add_argument("--robust", action="store_true", help="the driver has robust mode: draw it too")
    a = ap.parse_args()
    for i in range(a.runs):
        # One generator per run: run i is the same whatever K is.
        rng = random.Random(f"{a.seed}/{i}")
        p, env, args = draw(rng, a.robust)
        print(f"{p}|{' '.join(f'{k}={v}' for k, v in env.items())}|{' '.join(args)}")


if __name__ == "__main__":
    main()
