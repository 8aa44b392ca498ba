#!/usr/bin/env python3
"""Factorial experiments with the lb4mpi apps: a declarative design (factors x
levels x repetitions) -> runs, native (mpiexec) or simulated (SimGrid,
tools/sim/lb4mpi_simrun.py), with a progress bar and resumable -> one CSV row
per run -> figures (docs/EXPERIMENTS.md has the format and the experiments).

  tools/experiments/lb4mpi_experiment.py tools/experiments/designs/001-delay-sim256.json
  tools/experiments/lb4mpi_experiment.py DESIGN --out results/x --jobs 2
  tools/experiments/lb4mpi_experiment.py DESIGN --plot-only     # figures from the CSV again
  tools/experiments/lb4mpi_experiment.py DESIGN --dry-run       # the commands, nothing run

Output, in --out (default: results/<design name>): runs.csv (one row per run,
appended as runs finish: a second invocation skips the runs already there
and retries failed ones), design.json (the design used), and one PNG per
figure of the design. Exit code 0 when every run succeeded and every run of
an app with the same arguments gave the same checksum (whatever its
technique, mode, rank count or platform); 1 otherwise; 2 on a bad design.

Options: --out DIR, --jobs J (runs at once: simulated runs are one host
process each; native runs should run alone, the default), --native-build and
--sim-build (build folders with apps/lb4mpi-<app>; defaults from the design,
else build/release and build/sim), --timeout S (host seconds per run),
--mpiexec (native launcher, default mpiexec), --plot-only, --dry-run, --quiet.
"""
from __future__ import annotations

import argparse
import concurrent.futures
import csv
import hashlib
import itertools
import json
import os
import random
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "apps" / "common"))
sys.path.insert(0, str(REPO / "tools" / "sim"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(REPO / "tools" / "plot"))
from app_summary import summary_of  # noqa: E402
import lb4mpi_python  # noqa: E402  (which Python draws the figures)
import lb4mpi_simrun  # noqa: E402

APPS = {"synthetic": "lb4mpi-synthetic", "mandelbrot": "lb4mpi-mandelbrot", "psia": "lb4mpi-psia",
        "pisolver_stream": "lb4mpi-pisolver-stream"}
PLATFORMS = ("native", "simulated")
# Factors that are app options: factor -> flag. A factor whose name starts
# with "--" is passed as that flag itself; "robust" (true/false) is a switch.
FLAGS = {
    "technique": "--technique", "mode": "--mode", "inject_delay_us": "--inject-delay-us",
    "delay_ranks": "--delay-ranks", "slow_ranks": "--slow-ranks", "slow_factor": "--slow-factor",
    "slow_from": "--slow-from", "fail_ranks": "--fail-ranks", "fail_after": "--fail-after",
    "fail_how": "--fail-how", "repeat": "--repeat", "time_steps": "--time-steps",
}
# Factors the runner itself interprets. A "workload" level is an object
# {"name": NAME, "args": [app arguments]}: a named set of app arguments (the
# CSV and the figures show its name).
SPECIAL = ("app", "ranks", "platform", "loops", "robust", "workload")
LOOPS = ("sync", "async")
# Values of rank-list factors that depend on the run's rank count.
RANK_WORDS = {"last": lambda p: str(p - 1), "none": lambda p: None}
RANK_LIST_FACTORS = ("delay_ranks", "slow_ranks", "fail_ranks")

# The CSV: the run's identity, its factors (in the design's order), then these.
RESULT_COLUMNS = [
    "t_par_s", "wall_s", "lower_bound_s", "t_par_over_bound", "chunks", "load_imbalance_pct",
    "handout_us_mean", "handout_us_median", "handout_us_p95", "checksum", "checksum_consistent", "failed_ranks",
    "host_wall_s", "host_cpu_s", "status", "command",
]


class DesignError(Exception):
    pass


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


# ---------------------------------------------------------------- the design

def load_design(path: Path) -> dict:
    try:
        d = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as e:
        raise DesignError(f"{path}: {e}")
    known = {"name", "description", "factors", "repetitions", "app_args", "args", "env", "trace", "build",
             "figures", "timeout_s", "jobs"}
    unknown = set(d) - known
    if unknown:
        raise DesignError(f"{path}: unknown keys {sorted(unknown)}; valid: {sorted(known)}")
    if not isinstance(d.get("name"), str) or not d["name"]:
        raise DesignError(f"{path}: 'name' (a string) is missing")
    factors = d.get("factors")
    if not isinstance(factors, dict) or not factors:
        raise DesignError(f"{path}: 'factors' must map factor names to lists of levels")
    for name, levels in factors.items():
        if not isinstance(levels, list) or not levels:
            raise DesignError(f"{path}: factor '{name}' needs a non-empty list of levels")
        if name not in FLAGS and name not in SPECIAL and not name.startswith("--"):
            raise DesignError(f"{path}: unknown factor '{name}'; valid: {sorted(set(FLAGS) | set(SPECIAL))} "
                              "or an app flag ('--name')")
    for need in ("app", "ranks", "platform"):
        if need not in factors:
            raise DesignError(f"{path}: factor '{need}' is missing (a list of one level is fine)")
    for app in factors["app"]:
        if app not in APPS:
            raise DesignError(f"{path}: unknown app '{app}'; valid: {sorted(APPS)}")
    for p in factors["platform"]:
        if p not in PLATFORMS:
            raise DesignError(f"{path}: unknown platform '{p}'; valid: {', '.join(PLATFORMS)}")
    for r in factors["ranks"]:
        if not isinstance(r, int) or r < 1:
            raise DesignError(f"{path}: ranks must be integers >= 1, got {r!r}")
    for level in factors.get("loops", []):
        if level not in LOOPS:
            raise DesignError(f"{path}: unknown loops level '{level}'; valid: {', '.join(LOOPS)}")
    for level in factors.get("workload", []):
        if not (isinstance(level, dict) and isinstance(level.get("name"), str) and isinstance(level.get("args"), list)):
            raise DesignError(f"{path}: a workload level is an object {{\"name\": ..., \"args\": [...]}}, "
                              f"got {level!r}")
    if "simulated" in factors["platform"]:
        for r in factors["ranks"]:
            try:
                lb4mpi_simrun.platform_files("minihpc", r)
            except ValueError as e:
                raise DesignError(f"{path}: {e}")
    reps = d.get("repetitions", 1)
    if not isinstance(reps, int) or reps < 1:
        raise DesignError(f"{path}: repetitions must be an integer >= 1")
    for f in d.get("figures", []):
        check_figure(path, f, factors)
    return d


def check_figure(path: Path, f: dict, factors: dict) -> None:
    kinds = ("bars", "box", "lines")
    if f.get("kind") not in kinds:
        raise DesignError(f"{path}: figure {f.get('name')!r}: kind must be one of {kinds}")
    if not f.get("name"):
        raise DesignError(f"{path}: a figure needs a 'name' (its file name)")
    for key in ("x", "hue", "panels", "rows"):
        v = f.get(key)
        if v is not None and v not in factors:
            raise DesignError(f"{path}: figure {f['name']}: {key} '{v}' is not a factor of the design")
    if "x" not in f:
        raise DesignError(f"{path}: figure {f['name']}: 'x' (a factor) is missing")
    if f.get("y", "t_par_s") not in RESULT_COLUMNS:
        raise DesignError(f"{path}: figure {f['name']}: y '{f.get('y')}' is not a result column; valid: "
                          f"{RESULT_COLUMNS[:9]}")


def expand(design: dict) -> list[dict]:
    """Every run of the design: the factors' product times the repetitions,
    each repetition in its own shuffled order (seeded: the same order on
    every invocation, so a resumed design runs what is left in that order)."""
    factors = design["factors"]
    names = list(factors)
    cells = [dict(zip(names, values)) for values in itertools.product(*(factors[n] for n in names))]
    workloads = {w["name"]: w["args"] for w in factors.get("workload", [])}
    for cell in cells:
        if "workload" in cell:  # the CSV keeps the name; argv_of() finds its arguments
            cell["workload"] = cell["workload"]["name"]
    design["_workloads"] = workloads
    runs = []
    for rep in range(design.get("repetitions", 1)):
        order = list(cells)
        random.Random(f"{design['name']}/{rep}").shuffle(order)
        for cell in order:
            run = dict(cell, rep=rep)
            run["run_id"] = run_id(design, run)
            runs.append(run)
    return runs


def app_args(design: dict, app: str) -> list[str]:
    return [str(a) for a in design.get("args", [])] + [str(a) for a in design.get("app_args", {}).get(app, [])]


def run_id(design: dict, run: dict) -> str:
    key = {k: v for k, v in run.items() if k != "run_id"}
    key["args"] = argv_of(design, run)
    return hashlib.sha1(json.dumps(key, sort_keys=True).encode()).hexdigest()[:12]


def argv_of(design: dict, run: dict) -> list[str]:
    """The app's arguments for this run: the design's fixed ones, then one
    flag per factor that is an app option."""
    args = app_args(design, run["app"])
    for name, value in run.items():
        if name == "workload":
            args += [str(a) for a in design["_workloads"][value]]
            continue
        if name == "loops":
            if value == "async":
                args.append("--async")
            continue
        if name == "robust":
            if value:
                args.append("--robust")
            continue
        if name not in FLAGS and not name.startswith("--"):
            continue  # app, ranks, platform, rep, run_id: not app options
        if name in RANK_LIST_FACTORS and value in RANK_WORDS:
            value = RANK_WORDS[value](run["ranks"])
        if value is None or value == "none":
            continue
        args += [FLAGS.get(name, name), str(value)]
    return args


# ---------------------------------------------------------------- running

class Settings:
    def __init__(self, a: argparse.Namespace, design: dict):
        build = design.get("build", {})
        self.native_build = Path(a.native_build or build.get("native", "build/release"))
        self.sim_build = Path(a.sim_build or build.get("simulated", "build/sim"))
        for attr in ("native_build", "sim_build"):
            b = getattr(self, attr)
            if not b.is_absolute():
                setattr(self, attr, (Path.cwd() / b) if (Path.cwd() / b).exists() else REPO / b)
        self.timeout = a.timeout or design.get("timeout_s", 600)
        self.mpiexec = a.mpiexec
        self.trace = bool(design.get("trace", False))
        self.env = {k: str(v) for k, v in design.get("env", {}).items()}

    def exe(self, run: dict) -> Path:
        build = self.sim_build if run["platform"] == "simulated" else self.native_build
        return build / "apps" / APPS[run["app"]]


def handout_stats(trace_csv: Path) -> dict:
    """Mean, median and 95th percentile of the time ranks spent obtaining a
    chunk (t_begin_s - t_request_s of every chunk row of an lb4mpi trace), in us."""
    obtain = []
    with open(trace_csv, newline="") as f:
        for row in csv.DictReader(f):
            if row["kind"] == "chunk":
                obtain.append((float(row["t_begin_s"]) - float(row["t_request_s"])) * 1e6)
    if not obtain:
        return {}
    obtain.sort()
    return {"handout_us_mean": sum(obtain) / len(obtain), "handout_us_median": obtain[len(obtain) // 2],
            "handout_us_p95": obtain[min(len(obtain) - 1, int(0.95 * len(obtain)))]}


def injects_failures(run: dict) -> bool:
    return run.get("fail_ranks") not in (None, "none")


def launcher(s: Settings, run: dict) -> list[str]:
    """The native launcher of a run. With injected failures, Open MPI's
    mpiexec --enable-recovery keeps the job running when a rank dies
    (docs/ROBUST.md; the robust mode's survivors report the failure)."""
    return [s.mpiexec] + (["--enable-recovery"] if injects_failures(run) else []) + ["-n", str(run["ranks"])]


def run_native(s: Settings, run: dict, argv: list[str], env: dict) -> lb4mpi_simrun.Result:
    cmd = launcher(s, run) + argv
    env = dict(env, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1")
    return lb4mpi_simrun.run_process(cmd, env=env, timeout=s.timeout)


def execute(s: Settings, design: dict, run: dict) -> dict:
    """Runs one run; returns its CSV row."""
    exe = s.exe(run)
    argv = [str(exe)] + argv_of(design, run)
    row = {k: run[k] for k in run}
    env = dict(os.environ, **s.env)
    trace_dir = tempfile.mkdtemp(prefix="lb4mpi-exp-trace-") if s.trace else None
    try:
        if trace_dir:
            env["LB4MPI_TRACE"] = str(Path(trace_dir) / "trace.csv")
        if run["platform"] == "simulated":
            row["command"] = "lb4mpi_simrun.py -n %d %s" % (run["ranks"], " ".join(argv))
            r = lb4mpi_simrun.run(run["ranks"], argv, timeout=s.timeout, env=env)
        else:
            row["command"] = " ".join(launcher(s, run) + argv)
            r = run_native(s, run, argv, env)
        row["host_wall_s"] = round(r.host_wall_s, 3)
        row["host_cpu_s"] = round(r.host_cpu_s, 3)
        summary = summary_of(r.stdout)
        if r.returncode != 0 or summary is None:
            tail = r.stderr.strip().splitlines()[-3:] if r.stderr.strip() else ["(no output on stderr)"]
            what = f"timeout after {s.timeout} s" if r.timed_out else f"exit {r.returncode}"
            row["status"] = what + ": " + " | ".join(tail)[:300]
            return row
        row["status"] = "ok"
        for k in ("t_par_s", "wall_s", "lower_bound_s", "t_par_over_bound", "chunks", "load_imbalance_pct",
                  "checksum", "checksum_consistent"):
            if k in summary:
                row[k] = summary[k]
        row["failed_ranks"] = ";".join(str(f) for f in summary.get("failed_ranks", []))
        if trace_dir and (Path(trace_dir) / "trace.csv").exists():
            row.update(handout_stats(Path(trace_dir) / "trace.csv"))
        return row
    finally:
        if trace_dir:
            shutil.rmtree(trace_dir, ignore_errors=True)


# ---------------------------------------------------------------- the CSV

def columns(design: dict) -> list[str]:
    return ["run_id", "rep"] + list(design["factors"]) + RESULT_COLUMNS


def read_rows(path: Path) -> dict[str, dict]:
    """The CSV's rows by run_id; a later row of a run replaces an earlier one."""
    rows = {}
    if path.exists():
        with open(path, newline="") as f:
            for row in csv.DictReader(f):
                rows[row["run_id"]] = row
    return rows


class CsvWriter:
    def __init__(self, path: Path, cols: list[str]):
        new = not path.exists() or path.stat().st_size == 0
        self.f = open(path, "a", newline="")
        self.w = csv.DictWriter(self.f, fieldnames=cols, extrasaction="ignore")
        if new:
            self.w.writeheader()
            self.f.flush()
        self.lock = threading.Lock()

    def write(self, row: dict) -> None:
        with self.lock:
            self.w.writerow(row)
            self.f.flush()


class Progress:
    """A progress bar on stderr (redrawn in place on a terminal, a line per run otherwise)."""

    def __init__(self, total: int, quiet: bool):
        self.total, self.done, self.failed, self.quiet = total, 0, 0, quiet
        self.t0 = time.monotonic()
        self.tty = sys.stderr.isatty()

    def update(self, row: dict) -> None:
        self.done += 1
        self.failed += row.get("status") != "ok"
        if self.quiet:
            return
        elapsed = time.monotonic() - self.t0
        eta = elapsed / self.done * (self.total - self.done)
        width = 30
        fill = int(width * self.done / max(self.total, 1))
        bar = "#" * fill + "." * (width - fill)
        what = f"{row.get('app')} P={row.get('ranks')} {row.get('technique', '')} {row.get('mode', '')}".strip()
        line = (f"[{bar}] {self.done}/{self.total} runs, {self.failed} failed, {elapsed:.0f} s, "
                f"ETA {eta:.0f} s  {what}: {row.get('status', '')[:60]}")
        if self.tty:
            print("\r" + line[:160].ljust(160), end="" if self.done < self.total else "\n", file=sys.stderr,
                  flush=True)
        else:
            print(line, file=sys.stderr, flush=True)


def check_checksums(design: dict, rows: list[dict]) -> list[str]:
    """Runs of an app with the same arguments must give the same checksum,
    whatever their technique, mode, rank count, loops or platform: runs are
    compared within a group of the same app and the same levels of the
    factors that change the computed result (app flags given as '--name'
    factors, time_steps)."""
    result_factors = [f for f in design["factors"] if f.startswith("--") or f in ("time_steps", "workload")]
    groups = {}
    for r in rows:
        if r.get("status") == "ok" and r.get("checksum"):
            key = (r["app"],) + tuple(str(r.get(f)) for f in result_factors)
            groups.setdefault(key, {}).setdefault(r["checksum"], []).append(r)
    problems = []
    for key, sums in groups.items():
        if len(sums) > 1:
            detail = "; ".join(f"{c}: {len(rs)} runs (e.g. {rs[0]['platform']} P={rs[0]['ranks']} "
                               f"{rs[0].get('technique', '')} {rs[0].get('mode', '')})" for c, rs in sums.items())
            problems.append(f"{' '.join(key)}: different checksums: {detail}")
    return problems


# ---------------------------------------------------------------- main

def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    ap.add_argument("design", type=Path)
    ap.add_argument("--out", type=Path)
    ap.add_argument("--jobs", type=int)
    ap.add_argument("--native-build")
    ap.add_argument("--sim-build")
    ap.add_argument("--timeout", type=float)
    ap.add_argument("--mpiexec", default="mpiexec")
    ap.add_argument("--plot-only", action="store_true")
    ap.add_argument("--dry-run", action="store_true")
    ap.add_argument("--quiet", action="store_true")
    a = ap.parse_args()
    try:
        design = load_design(a.design)
    except DesignError as e:
        log(f"lb4mpi_experiment: error: {e}")
        return 2
    if design.get("figures") and not a.dry_run:  # matplotlib: pyenv's python3 first on PATH may lack it
        lb4mpi_python.rerun_with(["matplotlib"], "lb4mpi_experiment")  # runs again with one that has it
    out = a.out or REPO / "results" / design["name"]
    runs = expand(design)
    s = Settings(a, design)
    if a.dry_run:
        for run in runs:
            argv = [str(s.exe(run))] + argv_of(design, run)
            pre = f"lb4mpi_simrun.py -n {run['ranks']}" if run["platform"] == "simulated" else " ".join(
                launcher(s, run))
            print(f"{pre} {' '.join(argv)}")
        return 0
    out.mkdir(parents=True, exist_ok=True)
    csv_path = out / "runs.csv"
    if not a.plot_only:
        for platform in set(design["factors"]["platform"]):
            for app in design["factors"]["app"]:
                exe = s.exe({"platform": platform, "app": app})
                if not exe.exists():
                    log(f"lb4mpi_experiment: error: {exe} does not exist: build it "
                        + ("with cmake -DLB4MPI_SIMGRID=ON (docs/EXPERIMENTS.md), or give --sim-build"
                           if platform == "simulated" else "(or give --native-build)"))
                    return 2
        (out / "design.json").write_text(json.dumps({k: v for k, v in design.items() if not k.startswith("_")},
                                                    indent=2) + "\n")
        done = {rid for rid, row in read_rows(csv_path).items() if row.get("status") == "ok"}
        todo = [r for r in runs if r["run_id"] not in done]
        jobs = a.jobs or design.get("jobs", 1)
        log(f"lb4mpi_experiment: {design['name']}: {len(runs)} runs, {len(runs) - len(todo)} already in {csv_path}, "
            f"{len(todo)} to run, {jobs} at a time")
        writer = CsvWriter(csv_path, columns(design))
        progress = Progress(len(todo), a.quiet)
        with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
            futures = [pool.submit(execute, s, design, r) for r in todo]
            try:
                for f in concurrent.futures.as_completed(futures):
                    row = f.result()
                    writer.write(row)
                    progress.update(row)
            except KeyboardInterrupt:
                for f in futures:
                    f.cancel()
                log("lb4mpi_experiment: interrupted; the runs finished so far are in the CSV (run again to resume)")
                raise
    ids = {r["run_id"] for r in runs}
    all_rows = read_rows(csv_path)
    rows = [r for rid, r in all_rows.items() if rid in ids]
    if len(rows) < len(all_rows):
        log(f"lb4mpi_experiment: {len(all_rows) - len(rows)} rows of {csv_path} are not runs of this design "
            "(it changed since): left out")
    failed = [r for r in rows if r.get("status") != "ok"]
    problems = check_checksums(design, rows)
    if design.get("figures"):
        try:
            import lb4mpi_figures  # noqa: E402  (matplotlib: only when drawing)
        except ImportError as e:
            log(f"lb4mpi_experiment: error: no figures: {e}; "
                f"{lb4mpi_python.rerun_with(['matplotlib'], 'lb4mpi_experiment')}; the runs are in {csv_path}")
            return 2
        for f in design["figures"]:
            path = lb4mpi_figures.draw(design, f, rows, out)
            if path:
                log(f"lb4mpi_experiment: figure {path}")
    cpu = sum(float(r.get("host_cpu_s") or 0) for r in rows)
    log(f"lb4mpi_experiment: {len(rows)} runs in {csv_path} ({len(failed)} failed; host CPU time of all runs "
        f"{cpu:.0f} s)")
    for r in failed[:10]:
        log(f"  failed: {r.get('command')}\n    {r.get('status')}")
    for p in problems:
        log(f"lb4mpi_experiment: CHECKSUM MISMATCH: {p}")
    return 1 if failed or problems else 0


if __name__ == "__main__":
    sys.exit(main())
