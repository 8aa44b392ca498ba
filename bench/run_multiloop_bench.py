#!/usr/bin/env python3
"""Several loops per time step: synchronous vs asynchronous (`003` Fig. 5.2 / 5.3 in small).

For each technique of `003` §5.4 and each of the two multi-loop apps
(lb4mpi-pisolver-stream: Pi-solver + STREAM Triad, 2 loops; lb4mpi-mandelbrot
--loops 3: constant / increasing / decreasing imbalance), runs the app in
each of the --variants, REPS times each, interleaved (the order rotates every
repetition) so all see the same machine load, and prints Markdown tables of
the median total time of all time steps (`total_time_s` of the JSON
summary) and each variant's ratio to sync. Variants:

  sync       each loop runs to its end and synchronizes before the next
  async      --async: all loops of a step in flight, pieces taken with
             LoopSet::next() (the lowest-numbered loop with work)
  targeted   --async --targeted: `003`'s pattern, next(l) for l in turn,
             moving on when loop l has nothing right now
  probing    --async --targeted --idle-probing: `003`'s pattern with
             LoopSet idle probing (waits for loop l, as LB4MPI did)

Every run's per-loop checksums must agree with the app's first run: a
mismatch (or a run that hangs past --timeout) is reported with its exact
command and makes the script exit 1.

  bench/run_multiloop_bench.py --build build-mloops            # both apps, 5 reps
  bench/run_multiloop_bench.py --apps mandelbrot --reps 7 --techniques STATIC,GSS
  bench/run_multiloop_bench.py --json results.json             # raw results too
  bench/run_multiloop_bench.py --mandelbrot-args "--loops 3 --time-steps 4 --width 96"
"""
import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
import time

TECHNIQUES = ["STATIC", "SS", "mFSC", "GSS", "TSS", "FAC2", "WF",
              "AWF", "AWF-B", "AWF-C", "AWF-D", "AWF-E", "AF"]

# Sizes: one run ~0.5-1 s at P = 4 on the 2-core development machine.
APPS = {
    "pisolver-stream": {
        "exe": "lb4mpi-pisolver-stream",
        "args": ["--pi-iterations", "5000", "--pi-substeps", "4000",
                 "--triad-elements", "8000000", "--triad-block", "4096", "--time-steps", "24"],
        "loops": ["Pi", "Triad"],
    },
    "mandelbrot": {
        "exe": "lb4mpi-mandelbrot",
        "args": ["--loops", "3", "--time-steps", "16", "--width", "128", "--threshold", "1000",
                 "--min-half-width", "0.5"],
        "loops": ["const", "incr", "decr"],
    },
}


VARIANTS = {
    "sync": [],
    "async": ["--async"],
    "targeted": ["--async", "--targeted"],
    "probing": ["--async", "--targeted", "--idle-probing"],
}


def loadavg():
    try:
        return os.getloadavg()[0]
    except OSError:
        return float("nan")


def others_running(mine):
    """Runnable processes on the machine that are not this benchmark's
    (their command line does not contain `mine`, the build folder): the
    load other jobs put on the cores right now, sampled 5 times over 1 s."""
    counts = []
    me = os.getpid()
    for _ in range(5):
        n = 0
        for pid in os.listdir("/proc"):
            if not pid.isdigit() or int(pid) == me:
                continue
            try:
                with open(f"/proc/{pid}/stat") as f:
                    state = f.read().rsplit(")", 1)[1].split()[0]
                if state != "R":
                    continue
                with open(f"/proc/{pid}/cmdline", "rb") as f:
                    cmd = f.read().replace(b"\0", b" ").decode(errors="replace")
            except (OSError, IndexError):
                continue
            if mine not in cmd:
                n += 1
        counts.append(n)
        time.sleep(0.2)
    return statistics.mean(counts)


def wait_for_quiet(mine, limit, max_wait):
    """Waits (up to max_wait s) until fewer than `limit` other processes run."""
    t0 = time.monotonic()
    busy = others_running(mine)
    while busy >= limit and time.monotonic() - t0 < max_wait:
        sys.stderr.write(f"  {busy:.1f} other runnable processes: waiting\n")
        time.sleep(10)
        busy = others_running(mine)
    return busy


def run_once(cmd, timeout):
    t0 = time.monotonic()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, f"timed out after {timeout} s"
    if p.returncode != 0:
        return None, f"exit code {p.returncode}: {p.stderr.strip()[-2000:]}"
    lines = [x for x in p.stdout.splitlines() if x.startswith("{")]
    if len(lines) != 1:
        return None, f"{len(lines)} JSON lines on stdout"
    s = json.loads(lines[0])
    s["_launch_s"] = time.monotonic() - t0
    return s, None


def fmt(x, digits=3):
    return "—" if x is None else f"{x:.{digits}f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default="build-mloops", help="build folder holding apps/")
    ap.add_argument("--mpiexec", default=os.environ.get("MPIEXEC", "mpiexec"))
    ap.add_argument("--np", type=int, default=4)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--mode", default="centralized")
    ap.add_argument("--variants", default="sync,async",
                    help="comma-separated, from: " + ", ".join(VARIANTS) + " (the first is the reference)")
    ap.add_argument("--apps", default="pisolver-stream,mandelbrot")
    ap.add_argument("--techniques", default=",".join(TECHNIQUES))
    ap.add_argument("--exclude", default="", help="APP:TECHNIQUE,... pairs to skip")
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds per run")
    ap.add_argument("--json", default=None, help="also write the raw results here")
    ap.add_argument("--quiet-below", type=float, default=1.0,
                    help="before each technique, wait until fewer other runnable processes than this")
    ap.add_argument("--max-wait", type=float, default=900.0, help="seconds to wait for quiet at most")
    for app, spec in APPS.items():
        ap.add_argument(f"--{app}-args", dest=app.replace("-", "_") + "_args", default=" ".join(spec["args"]),
                        help=f"{app}'s arguments, replacing the default (one string, shell-split)")
    a = ap.parse_args()

    env = dict(os.environ)
    env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1")
    os.environ.update(env)
    excluded = {tuple(x.split(":", 1)) for x in a.exclude.split(",") if x}
    techniques = [t for t in a.techniques.split(",") if t]
    variants = [v for v in a.variants.split(",") if v]
    for v in variants:
        if v not in VARIANTS:
            ap.error(f"unknown variant '{v}'; valid: {', '.join(VARIANTS)}")
    problems = []
    raw = {}
    print(f"# lb4mpi multi-loop benchmark: P = {a.np}, mode {a.mode}, {a.reps} reps, "
          f"load average at start {loadavg():.2f}\n")
    for app in [x for x in a.apps.split(",") if x]:
        spec = dict(APPS[app])
        spec["args"] = shlex.split(getattr(a, app.replace("-", "_") + "_args"))
        exe = os.path.join(a.build, "apps", spec["exe"])
        base = [a.mpiexec, "-n", str(a.np), exe, *spec["args"], "--mode", a.mode]
        print(f"## {app}\n\n`{' '.join(shlex.quote(x) for x in base[3:])} --technique T [variant flags]`"
              f" under `mpiexec -n {a.np}`. `others`: the most other runnable processes seen "
              "before a rep (other jobs on the 2 cores; the script waits for < "
              f"{a.quiet_below:g} before each rep, at most {a.max_wait:g} s)\n")
        ref = None
        rows = []
        load0 = loadavg()
        for tech in techniques:
            if (app, tech) in excluded:
                rows.append((tech, None))
                continue
            res = {v: [] for v in variants}
            res["others"] = []
            for rep in range(a.reps):
                res["others"].append(wait_for_quiet(os.path.abspath(a.build), a.quiet_below, a.max_wait))
                k = rep % len(variants)
                order = variants[k:] + variants[:k]
                if rep % 2 == 1:
                    order = order[::-1]
                for v in order:
                    cmd = base + ["--technique", tech] + VARIANTS[v]
                    s, err = run_once(cmd, a.timeout)
                    if err:
                        problems.append(f"{app} {tech} {v}: {err}\n  " + " ".join(shlex.quote(x) for x in cmd))
                        continue
                    cks = [l["checksum"] for l in s["loops"]]
                    if ref is None:
                        ref = cks
                    elif cks != ref:
                        problems.append(f"{app} {tech} {v}: per-loop checksums "
                                        f"{cks} != {ref}\n  " + " ".join(shlex.quote(x) for x in cmd))
                    res[v].append({"total": s["total_time_s"],
                                   "t_par": [l["t_par_s"] for l in s["loops"]],
                                   "chunks": [l["chunks"] for l in s["loops"]],
                                   "load": loadavg()})
            raw.setdefault(app, {})[tech] = res
            rows.append((tech, res))
            sys.stderr.write(f"{app} {tech}: done (load {loadavg():.2f})\n")
        load1 = loadavg()

        ref_v = variants[0]
        others_v = variants[1:]
        print("| technique | " + " | ".join(f"{v} [s]" for v in variants) + " | "
              + " | ".join(f"{v}/{ref_v}" for v in others_v) + " | chunks per step (" + ref_v + ", "
              + " / ".join(spec["loops"]) + ") | others |")
        print("|---|" + "--:|" * (len(variants) + len(others_v)) + "--:|--:|")
        ratios = {v: [] for v in others_v}
        steps = int(spec["args"][spec["args"].index("--time-steps") + 1])
        for tech, res in rows:
            if res is None:
                print(f"| {tech} | excluded |")
                continue
            if any(not res[v] for v in variants):
                print(f"| {tech} | failed |")
                continue
            med = {v: statistics.median(r["total"] for r in res[v]) for v in variants}
            for v in others_v:
                ratios[v].append((tech, med[v] / med[ref_v]))
            nl = len(res[ref_v][0]["chunks"])
            ch = " / ".join(str(round(res[ref_v][0]["chunks"][l] / steps)) for l in range(nl))
            oth = max(res["others"]) if res["others"] else float("nan")
            print(f"| {tech} | " + " | ".join(f"{med[v]:.3f}" for v in variants) + " | "
                  + " | ".join(f"**{med[v] / med[ref_v]:.3f}**" for v in others_v) + f" | {ch} | {oth:.1f} |")
        for v in others_v:
            if ratios[v]:
                gm = statistics.geometric_mean(r for _, r in ratios[v])
                slower = [f"{t} ({r:.3f})" for t, r in ratios[v] if r > 1.0]
                print(f"\n{v}/{ref_v}: geometric mean **{gm:.3f}**; slower than {ref_v}: "
                      f"{', '.join(slower) if slower else 'none'}.")
        print(f"\nLoad average {load0:.2f} → {load1:.2f}; {a.reps} repetitions per cell, median.\n")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(raw, f, indent=1)
    for p in problems:
        print("PROBLEM " + p, file=sys.stderr)
    if problems:
        print(f"\n{len(problems)} problems (see stderr)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
