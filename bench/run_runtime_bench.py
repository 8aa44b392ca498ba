#!/usr/bin/env python3
"""Runtime benchmarks of lb4mpi: runs the MPI binaries, collects their JSON
lines, computes medians and prints Markdown tables.

  bench/run_runtime_bench.py handout    --ranks 2 4 --reps 5 --mpi openmpi mpich
  bench/run_runtime_bench.py mandelbrot --ranks 2 4 --reps 5 --mpi openmpi mpich
  bench/run_runtime_bench.py synthetic  --ranks 4 --reps 5
  bench/run_runtime_bench.py delay      --ranks 4 --reps 5

Common options: --build-dir (Open MPI build, default build-bench),
--build-dir-mpich (default build-bench-mpich), --out FILE (append the
Markdown there too), --raw FILE (append every JSON line, tagged with the
command), --techniques (a subset), --timeout (seconds per mpiexec run),
--rounds R (run the whole sweep R times, interleaved; medians over all runs),
--dry-run (print the commands only), --from-raw FILE (re-render the tables
of a sweep from its --raw file without running anything).

Launchers: Open MPI `mpiexec --bind-to none -n P` with
OMPI_ALLOW_RUN_AS_ROOT=1, OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1,
OMPI_MCA_rmaps_base_oversubscribe=1; MPICH `mpiexec.mpich -n P` (no binding
by default). The JSON of the apps is described in apps/README.md; the one of
bench_handout in bench/bench_handout.cpp.
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import shlex
import signal
import statistics
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

ALL_TECHNIQUES = ["STATIC", "SS", "FSC", "mFSC", "GSS", "TAP", "TSS", "FAC", "FAC2", "TFSS", "FISS",
                  "VISS", "WF", "AWF", "AWF-B", "AWF-C", "AWF-D", "AWF-E", "AF", "RND", "PLS"]
# `001` Table 4 (its FAC is FAC2).
DELAY_TECHNIQUES = ["STATIC", "FSC", "GSS", "TAP", "TSS", "FAC2", "TFSS", "FISS", "VISS", "RND",
                    "AF", "PLS"]
MODES = ["centralized", "distributed", "distributed-rma"]
MPI_NAMES = {"openmpi": "Open MPI", "mpich": "MPICH"}


# ---------------------------------------------------------------- running

def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def uptime() -> str:
    try:
        return subprocess.run(["uptime"], capture_output=True, text=True, check=False).stdout.strip()
    except OSError:
        return "(uptime unavailable)"


def load_avg() -> str:
    """The three load averages, e.g. '3.21, 3.50, 3.70'."""
    try:
        return ", ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "?"


class Runner:
    def __init__(self, args: argparse.Namespace):
        self.args = args
        self.raw = open(args.raw, "a") if args.raw else None
        self.commands: list[str] = []
        self.failures: list[str] = []
        # --from-raw: results per command (in order), instead of running anything
        self.replay: dict[str, list[list[dict]]] | None = None
        if args.from_raw:
            self.replay = {}
            prev = None
            for line in open(args.from_raw):
                rec = json.loads(line)
                cmd = rec["command"]
                if "run" in rec:  # one stamp per mpiexec run
                    key = rec["run"]
                elif cmd == "uptime" or "/apps/lb4mpi-" in cmd:  # older files: one line = one run
                    key = object()
                else:  # older files, bench_handout: consecutive lines of one command = one run
                    key = ("command", cmd)
                if cmd == "uptime" or key != prev:
                    self.replay.setdefault(cmd, []).append([])
                prev = key
                self.replay[cmd][-1].append(rec["result"])
        self.run_number = 0

    def uptime(self) -> str:
        """`uptime` now (recorded in --raw), or the recorded one under --from-raw."""
        if self.replay is not None:
            runs = self.replay.get("uptime", [])
            return runs.pop(0)[0]["uptime"] if runs else "(load not recorded)"
        text = uptime()
        if self.raw:
            self.raw.write(json.dumps({"command": "uptime", "result": {"uptime": text}}) + "\n")
            self.raw.flush()
        log(text)
        return text

    def build_dir(self, mpi: str) -> Path:
        d = self.args.build_dir if mpi == "openmpi" else self.args.build_dir_mpich
        return Path(d) if Path(d).is_absolute() else REPO / d

    def launcher(self, mpi: str, ranks: int) -> tuple[list[str], dict[str, str]]:
        env = dict(os.environ)
        if mpi == "openmpi":
            env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
                       OMPI_MCA_rmaps_base_oversubscribe="1")
            return [self.args.mpiexec, "--bind-to", "none", "-n", str(ranks)], env
        return [self.args.mpiexec_mpich, "-n", str(ranks)], env

    def app(self, mpi: str, name: str) -> str:
        return str(self.build_dir(mpi) / "apps" / f"lb4mpi-{name}")

    def handout_exe(self, mpi: str) -> str:
        explicit = self.args.handout_exe if mpi == "openmpi" else self.args.handout_exe_mpich
        if explicit:
            return explicit
        for c in (self.build_dir(mpi) / "bench" / "bench_handout", self.build_dir(mpi) / "bench_handout"):
            if c.exists():
                return str(c)
        return str(self.build_dir(mpi) / "bench" / "bench_handout")

    def run(self, mpi: str, ranks: int, argv: list[str]) -> list[dict] | None:
        """Runs argv under mpiexec; returns the JSON objects of stdout, None on failure."""
        pre, env = self.launcher(mpi, ranks)
        cmd = pre + argv
        text = shlex.join(cmd)
        self.commands.append(text)
        if self.replay is not None:
            runs = self.replay.get(text, [])
            if not runs:
                self.failures.append(f"not in {self.args.from_raw}: {text}")
                return None
            return runs.pop(0)
        log(f"[{datetime.datetime.now():%H:%M:%S}] {text}")
        if self.args.dry_run:
            return None
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                             start_new_session=True)
        try:
            out, err = p.communicate(timeout=self.args.timeout)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)  # the job we started, and only it
            p.communicate()
            self.failures.append(f"TIMEOUT after {self.args.timeout} s: {text}")
            log(f"  TIMEOUT after {self.args.timeout} s")
            return None
        if p.returncode != 0:
            self.failures.append(f"exit {p.returncode}: {text}\n    {err.strip()[-500:]}")
            log(f"  FAILED (exit {p.returncode}): {err.strip()[-500:]}")
            return None
        objs = []
        for line in out.splitlines():
            line = line.strip()
            if line.startswith("{"):
                try:
                    objs.append(json.loads(line))
                except json.JSONDecodeError:
                    self.failures.append(f"bad JSON line from {text}: {line[:200]}")
        self.run_number += 1
        if self.raw:
            stamp = f"{datetime.datetime.now():%Y-%m-%dT%H:%M:%S}-{os.getpid()}-{self.run_number}"
            for o in objs:
                self.raw.write(json.dumps({"command": text, "run": stamp, "result": o}) + "\n")
            self.raw.flush()
        return objs


def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def fmt(v, digits=3, scale=1.0):
    if v is None:
        return "—"
    v = v * scale
    if v == 0:
        return "0"
    if abs(v) >= 100:
        return f"{v:.0f}"
    return f"{v:.{digits}g}"


def fmt_ns(v):
    """Nanoseconds; from 10 µs on in µs, from 1 ms on in ms."""
    if v is None:
        return "—"
    if v >= 1e6:
        return f"{v / 1e6:.3g} ms"
    if v >= 1e4:
        return f"{v / 1e3:.3g} µs"
    return f"{v:.0f}"


def pct(v):
    return "—" if v is None else f"{v:+.1f} %"


def table(header: list[str], rows: list[list[str]], align: list[str] | None = None) -> str:
    align = align or ["l"] + ["r"] * (len(header) - 1)
    sep = ["---" if a == "l" else "--:" for a in align]
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(sep) + "|"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def git_describe() -> str:
    try:
        head = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, check=False).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(REPO), "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, check=False).stdout.strip()
        return head + (" (+ uncommitted changes)" if dirty else "")
    except OSError:
        return "?"


class Report:
    """Collects Markdown; prints it and appends it to --out."""

    def __init__(self, args):
        self.args = args
        self.parts: list[str] = []

    def add(self, text: str = "") -> None:
        self.parts.append(text)

    def emit(self) -> None:
        md = "\n".join(self.parts).rstrip() + "\n"
        print(md)
        if self.args.out:
            with open(self.args.out, "a") as f:
                f.write(md + "\n")


def header(rep: Report, runner: Runner, title: str) -> None:
    rep.add(f"#### {title}")
    rep.add()
    if runner.replay is None:
        rep.add(f"Run {datetime.datetime.now():%Y-%m-%d %H:%M}, lb4mpi {git_describe()}, "
                f"{os.cpu_count()} cores.")
        rep.add()


def footer(rep: Report, runner: Runner, start_load: str) -> None:
    rep.add()
    after = runner.uptime() if runner.replay is not None else load_avg()
    if runner.replay is not None:
        rep.add(f"Re-rendered from `{runner.args.from_raw}`.")
    rep.add(f"`uptime` before the runs: `{start_load}`; load average after: {after}. "
            f"{len(runner.commands)} mpiexec runs.")
    if runner.failures:
        rep.add()
        rep.add("**Failed runs:**")
        rep.add()
        for f in runner.failures:
            rep.add(f"- `{f}`")
    rep.add()


def commands_block(rep: Report, cmds: list[str], limit: int = 3) -> None:
    rep.add("```sh")
    for c in cmds[:limit]:
        rep.add(c)
    if len(cmds) > limit:
        rep.add(f"# ... {len(cmds) - limit} more runs of the same form")
    rep.add("```")
    rep.add()


# ---------------------------------------------------------------- handout

def cmd_handout(args) -> int:
    runner, rep = Runner(args), Report(args)
    header(rep, runner, "Hand-out cost: SS, empty body")
    rows_by_mpi: dict[str, list[dict]] = {}
    uptimes = {}
    start = runner.uptime()
    for mpi in args.mpi:
        rows_by_mpi[mpi] = []
        uptimes[mpi] = start
    for _ in range(args.rounds):
        for p in args.ranks:
            for mpi in args.mpi:  # the MPIs side by side
                argv = [runner.handout_exe(mpi), "--n", str(args.n), "--reps", str(args.reps),
                        "--warmup", str(args.warmup), "--calls", str(args.calls), "--api", args.api]
                if args.skip_mpi:
                    argv.append("--skip-mpi")
                objs = runner.run(mpi, p, argv)
                rows_by_mpi[mpi] += objs or []
    if args.dry_run:
        return 0
    rep.add(f"N = {args.n} iterations, technique SS (one iteration per chunk), empty body; "
            f"{args.reps} repetitions per mode after {args.warmup} warm-up, modes interleaved "
            f"within each repetition (`--api {args.api}`); × {args.rounds} round(s). "
            f"Primitives: {args.calls} timed calls per rank and scenario.")
    rep.add()
    commands_block(rep, runner.commands, limit=len(args.mpi) * len(args.ranks))
    for mpi in args.mpi:
        objs = rows_by_mpi[mpi]
        rep.add(f"**{MPI_NAMES[mpi]}** — `{uptimes[mpi]}`")
        rep.add()
        rows = []
        for mode in MODES:
            for p in args.ranks:
                runs = [o for o in objs if o.get("bench") == "handout" and o["mode"] == mode and o["ranks"] == p]
                if not runs:
                    continue
                t = median([o["t_par_s"] for o in runs])
                ns = median([o["ns_per_chunk"] for o in runs])
                cps = median([o["chunks_per_s"] for o in runs])
                wall = median([o["wall_s"] for o in runs])
                # ns of T_par per iteration (= per chunk with SS)
                nsi = median([o["t_par_s"] * 1e9 / o["iterations"] for o in runs if o["iterations"]])
                # share of chunks the coordinator (rank 0) took itself (not known through the C API)
                per_rank = [o for o in runs if o.get("chunks_per_rank")]
                own = median([o["chunks_per_rank"][0] / o["chunks"] for o in per_rank if o["chunks"]])
                # chunks served to the other ranks (the workers) per second of T_par
                wps = median([(o["chunks"] - o["chunks_per_rank"][0]) / o["t_par_s"] for o in per_rank
                              if o["t_par_s"] > 0])
                # a worker's hand-out: its overhead (all its time but the empty body) per chunk it got
                hand = median([o["overhead_s_per_rank"][r] * 1e9 / o["chunks_per_rank"][r] for o in per_rank
                               for r in range(1, len(o["chunks_per_rank"])) if o["chunks_per_rank"][r] > 0])
                rows.append([mode, str(p), str(len(runs)), fmt(t, scale=1e3), fmt(wall, scale=1e3), fmt(ns),
                             fmt(nsi), fmt(cps, scale=1e-6), fmt(wps, scale=1e-6),
                             f"{own * 100:.0f}" if own is not None else "—", fmt(hand)])
        rep.add(table(["mode", "P", "runs", "T_par [ms]", "wall [ms]", "ns / chunk", "ns / iteration of T_par",
                       "M chunks / s", "M chunks / s to workers", "rank 0's share [%]",
                       "worker's wait per chunk [ns]"], rows))
        rep.add()
        rows = []
        for bench, what in (("fetch_and_op", "MPI_Fetch_and_op + MPI_Win_flush"),
                            ("round_trip", "empty send/recv round trip to rank 0")):
            for scenario in ("alone", "concurrent"):
                for p in args.ranks:
                    runs = [o for o in objs if o.get("bench") == bench and o["scenario"] == scenario
                            and o["ranks"] == p]
                    if not runs:
                        continue
                    meds = [o["median_ns"] for o in runs if o["median_ns"] is not None]
                    r0 = [o["median_ns"] for o in runs if o["rank"] == 0]
                    others = [o["median_ns"] for o in runs if o["rank"] != 0]
                    p90 = median([o["p90_ns"] for o in runs])
                    # a rank "stalls" when its median call takes >= 1 ms, or when it timed no
                    # call at all (the warm-up alone used up its time budget)
                    stalled = sum(1 for o in runs if o["median_ns"] is None or o["median_ns"] >= 1e6)
                    slowest = "no call timed" if len(meds) < len(runs) else fmt_ns(max(meds) if meds else None)
                    rows.append([what, scenario, str(p), fmt_ns(median(r0)), fmt_ns(median(others)), slowest,
                                 fmt_ns(p90), f"{stalled} / {len(runs)}"])
        if not rows:  # --skip-mpi
            continue
        rep.add(table(["primitive", "scenario", "P", "rank 0 [ns]", "other ranks [ns]",
                       "slowest rank [ns]", "p90 [ns]", "stalled ranks"], rows))
        rep.add()
        rep.add("Per rank: the median of its timed calls; the columns give the median of those "
                "medians (rank 0 / the other ranks), the largest, and the median per-rank 90th "
                "percentile (of the ranks that timed calls). Stalled ranks: median call ≥ 1 ms, or "
                "no call timed because the warm-up alone used up the rank's time budget "
                "(`bench_handout --budget`, 3 s).")
        rep.add()
    footer(rep, runner, uptimes[args.mpi[0]])
    rep.emit()
    return 1 if runner.failures else 0


# ---------------------------------------------------------------- mandelbrot

def start_sweep(runner: Runner, mpis: list[str]) -> tuple[dict[str, str], dict[str, set]]:
    """The load at the start (per MPI, for the tables) and an empty set of checksums per MPI."""
    start = runner.uptime()
    return {mpi: start for mpi in mpis}, {mpi: set() for mpi in mpis}


def checksum_note(values: set) -> str:
    return "one value for all runs" if len(values) == 1 else "DIFFER: " + ", ".join(sorted(values))


def app_steps(obj: dict, key: str = "t_par_s") -> list[float]:
    return [s[key] for s in obj.get("steps", [])]


def cmd_mandelbrot(args) -> int:
    runner, rep = Runner(args), Report(args)
    techniques = args.techniques or ALL_TECHNIQUES
    header(rep, runner, f"Mandelbrot {args.width} × {args.width}, threshold {args.threshold}, {args.mode}")
    res: dict[tuple, list[float]] = {}
    chunks: dict[tuple, list[int]] = {}
    uptimes, checksums = start_sweep(runner, args.mpi)
    for _ in range(args.rounds):
        for p in args.ranks:
            for t in techniques:
                for mpi in args.mpi:  # the MPIs side by side
                    argv = [runner.app(mpi, "mandelbrot"), "--width", str(args.width), "--threshold",
                            str(args.threshold), "--technique", t, "--mode", args.mode, "--repeat",
                            str(args.reps)]
                    objs = runner.run(mpi, p, argv)
                    for o in objs or []:
                        res.setdefault((mpi, p, t), []).extend(app_steps(o))
                        chunks.setdefault((mpi, p, t), []).extend(s["chunks"] for s in o["steps"])
                        checksums[mpi].add(o["checksum"])
    if args.dry_run:
        return 0
    rep.add(f"`lb4mpi-mandelbrot --width {args.width} --threshold {args.threshold} --mode {args.mode} "
            f"--repeat {args.reps}`, one mpiexec per technique and P (× {args.rounds} round(s)); "
            f"T_par = median over the {args.reps * args.rounds} executions (`steps[].t_par_s`). "
            f"Techniques run one after the other for each P; for each technique the MPIs "
            f"run back to back.")
    rep.add()
    commands_block(rep, runner.commands, limit=2)
    for mpi in args.mpi:
        rep.add(f"**{MPI_NAMES[mpi]}** — `{uptimes[mpi]}`; checksums: "
                f"{checksum_note(checksums[mpi])}")
        rep.add()
        hdr = ["technique"]
        for p in args.ranks:
            hdr += [f"T_par P={p} [s]", f"÷ best P={p}", f"chunks P={p}"]
        best = {p: min((median(res[(mpi, p, t)]) for t in techniques if res.get((mpi, p, t))), default=None)
                for p in args.ranks}
        rows = []
        for t in techniques:
            row = [t]
            for p in args.ranks:
                m = median(res.get((mpi, p, t), []))
                row += [fmt(m), fmt(m / best[p] if m and best[p] else None), fmt(median(chunks.get((mpi, p, t), [])))]
            rows.append(row)
        rep.add(table(hdr, rows))
        rep.add()
    footer(rep, runner, uptimes[args.mpi[0]])
    rep.emit()
    return 1 if runner.failures else 0


# ---------------------------------------------------------------- responsiveness

def cmd_responsiveness(args) -> int:
    """Every rank's overhead (waiting for chunks + serving) against T_par."""
    runner, rep = Runner(args), Report(args)
    techniques = args.techniques or ["FAC2", "GSS"]
    header(rep, runner, f"Responsiveness: Mandelbrot {args.width} × {args.width}, threshold {args.threshold}")
    res: dict[tuple, list[dict]] = {}
    uptimes, checksums = start_sweep(runner, args.mpi)
    for _ in range(args.rounds):
        for p in args.ranks:
            for mode in args.modes:
                for t in techniques:
                    for mpi in args.mpi:  # the MPIs side by side
                        argv = [runner.app(mpi, "mandelbrot"), "--width", str(args.width), "--threshold",
                                str(args.threshold), "--technique", t, "--mode", mode, "--repeat",
                                str(args.reps)] + (["--break-after", str(args.break_after)]
                                                   if args.break_after is not None else [])
                        for o in runner.run(mpi, p, argv) or []:
                            res.setdefault((mpi, p, mode, t), []).extend(o["steps"])
                            checksums[mpi].add(o["checksum"])
    if args.dry_run:
        return 0
    ba = f" --break-after {args.break_after}" if args.break_after is not None else ""
    rep.add(f"`lb4mpi-mandelbrot --width {args.width} --threshold {args.threshold} --technique T --mode M "
            f"--repeat {args.reps}{ba}`, one mpiexec per cell (× {args.rounds} round(s), interleaved). Per "
            f"execution and rank: the overhead until its last piece ended, `finish_time - work_time` "
            f"(waiting for chunks, serving), and the whole `overhead` (which adds the final wait for the "
            f"other ranks: on the coordinator, serving until the last chunk is reported), each as a share "
            f"of that execution's T_par; the cell gives medians over the executions, and the worst "
            f"execution's largest share of the first.")
    rep.add()
    commands_block(rep, runner.commands, limit=2)
    worst_all = 0.0
    for mpi in args.mpi:
        rep.add(f"**{MPI_NAMES[mpi]}** — `{uptimes[mpi]}`; checksums: "
                f"{checksum_note(checksums[mpi])}")
        rep.add()
        rows = []
        for p in args.ranks:
            for mode in args.modes:
                for t in techniques:
                    steps = res.get((mpi, p, mode, t), [])
                    if not steps:
                        continue
                    tpar = median([s["t_par_s"] for s in steps])
                    work = median([sum(s["work_time_per_rank"]) for s in steps])
                    ok = [s for s in steps if s["t_par_s"] > 0]
                    shares = [[o / s["t_par_s"] * 100 for o in s["overhead_per_rank"]] for s in ok]
                    # while it had work: the time until its last piece ended that the rank did not
                    # spend in the loop body (waiting for chunks, serving); what follows is its
                    # final wait for the others (the technique's imbalance)
                    busy = [[max(0.0, f - w) / s["t_par_s"] * 100
                             for f, w in zip(s["finish_time_per_rank"], s["work_time_per_rank"])] for s in ok]
                    per_rank = [median([sh[r] for sh in shares]) for r in range(p)]
                    busy_rank = [median([sh[r] for sh in busy]) for r in range(p)]
                    worst = max(max(sh) for sh in busy)
                    worst_all = max(worst_all, max(busy_rank))
                    rows.append([mode, t, str(p), str(len(steps)), fmt(tpar), fmt(work),
                                 fmt(work / p / tpar * 100 if tpar else None),
                                 " / ".join(f"{v:.1f}" for v in busy_rank), f"{worst:.1f}",
                                 " / ".join(f"{v:.1f}" for v in per_rank)])
        rep.add(table(["mode", "technique", "P", "executions", "T_par [s]", "Σ work [s]", "work / (P·T_par) [%]",
                       "overhead until its last piece ended / T_par, per rank, median [%]", "worst [%]",
                       "overhead incl. the final wait / T_par, per rank, median [%]"], rows))
        rep.add()
    rep.add(f"Largest per-rank median share of overhead until the last piece ended: {worst_all:.1f} %.")
    rep.add()
    footer(rep, runner, uptimes[args.mpi[0]])
    rep.emit()
    return 1 if runner.failures else 0


# ---------------------------------------------------------------- synthetic

def cmd_synthetic(args) -> int:
    runner, rep = Runner(args), Report(args)
    techniques = args.techniques or ALL_TECHNIQUES
    header(rep, runner, f"Synthetic, {args.distribution}, {args.mode}, --exec {args.exec}")
    res: dict[tuple, list[float]] = {}
    tpar: dict[tuple, list[float]] = {}
    bound: dict[tuple, float] = {}
    uptimes = {}
    start = runner.uptime()
    uptimes = {mpi: start for mpi in args.mpi}
    for _ in range(args.rounds):
        for p in args.ranks:
            for t in techniques:
                for cov in args.cov:  # the c.o.v. values side by side for each technique
                    for mpi in args.mpi:
                        argv = [runner.app(mpi, "synthetic"), "--iterations", str(args.iterations),
                                "--distribution", args.distribution, "--mean-us", f"{args.mean_us:g}",
                                "--cov", f"{cov:g}", "--exec", args.exec, "--technique", t, "--mode",
                                args.mode, "--repeat", str(args.reps)]
                        objs = runner.run(mpi, p, argv)
                        for o in objs or []:
                            key = (mpi, p, cov, t)
                            res.setdefault(key, []).extend(app_steps(o, "t_par_over_bound"))
                            tpar.setdefault(key, []).extend(app_steps(o))
                            bound[(mpi, p, cov)] = o["lower_bound_s"]
    if args.dry_run:
        return 0
    rep.add(f"`lb4mpi-synthetic --iterations {args.iterations} --distribution {args.distribution} "
            f"--mean-us {args.mean_us} --cov C --exec {args.exec} --mode {args.mode} --repeat {args.reps}`, "
            f"C ∈ {{{', '.join(str(c) for c in args.cov)}}}; one mpiexec per technique, C and P "
            f"(× {args.rounds} round(s)); medians over the {args.reps * args.rounds} executions "
            f"(`steps[].t_par_s`, `steps[].t_par_over_bound`). Lower bound = max(Σt_i / P, max t_i).")
    rep.add()
    commands_block(rep, runner.commands, limit=2)
    for mpi in args.mpi:
        for p in args.ranks:
            bounds = ", ".join(f"C = {c}: {fmt(bound.get((mpi, p, c)))} s" for c in args.cov)
            rep.add(f"**{MPI_NAMES[mpi]}, P = {p}** — `{uptimes[mpi]}`; lower bounds: {bounds}")
            rep.add()
            hdr = ["technique"]
            for c in args.cov:
                hdr += [f"T_par C={c} [s]", f"T_par / bound C={c}"]
            rows = []
            ratios = {c: [] for c in args.cov}
            for t in techniques:
                row = [t]
                for c in args.cov:
                    r = median(res.get((mpi, p, c, t), []))
                    if r is not None:
                        ratios[c].append(r)
                    row += [fmt(median(tpar.get((mpi, p, c, t), []))), fmt(r)]
                rows.append(row)
            row = ["*median*"]
            for c in args.cov:
                row += ["", fmt(median(ratios[c]))]
            rows.append(row)
            rep.add(table(hdr, rows))
            rep.add()
    footer(rep, runner, uptimes[args.mpi[0]])
    rep.emit()
    return 1 if runner.failures else 0


# ---------------------------------------------------------------- delay

def cmd_delay(args) -> int:
    runner, rep = Runner(args), Report(args)
    techniques = args.techniques or DELAY_TECHNIQUES
    apps = {"mandelbrot": ["--width", str(args.width), "--threshold", str(args.threshold)],
            "psia": ["--points", str(args.points)] + (["--images", str(args.images)] if args.images else [])}
    apps = {a: v for a, v in apps.items() if a in args.apps}
    header(rep, runner, "CCA vs DCA under injected delay on the coordinator")
    res: dict[tuple, list[float]] = {}
    uptimes = {}
    start = runner.uptime()
    uptimes = {mpi: start for mpi in args.mpi}
    for _ in range(args.rounds):
        for p in args.ranks:
            for app, app_args in apps.items():
                for t in techniques:
                    for mode in args.modes:
                        for d in args.delays:  # the delays side by side
                            for mpi in args.mpi:
                                argv = [runner.app(mpi, app)] + app_args + [
                                    "--technique", t, "--mode", mode, "--inject-delay-us", f"{d:g}",
                                    "--delay-ranks", "0", "--repeat", str(args.reps)]
                                objs = runner.run(mpi, p, argv)
                                for o in objs or []:
                                    res.setdefault((mpi, p, app, t, mode, d), []).extend(app_steps(o))
    if args.dry_run:
        return 0
    d0, dmax = args.delays[0], args.delays[-1]
    rep.add("Apps: " + "; ".join(f"`lb4mpi-{a} {' '.join(v)}`" for a, v in apps.items()) +
            f". Techniques: {', '.join(techniques)}; modes: {', '.join(args.modes)}; injected delay "
            f"{' / '.join(f'{d:g}' for d in args.delays)} µs per chunk calculation on rank 0 only "
            f"(`--inject-delay-us D --delay-ranks 0`); `--repeat {args.reps}` (× {args.rounds} "
            f"round(s)); T_par = median over the executions (`steps[].t_par_s`). For each technique "
            f"the modes and delays run back to back.")
    rep.add()
    commands_block(rep, runner.commands, limit=2)
    for mpi in args.mpi:
        for p in args.ranks:
            for app in apps:
                rep.add(f"**{app}, {MPI_NAMES[mpi]}, P = {p}** — `{uptimes[mpi]}`: T_par [s] (median)")
                rep.add()
                hdr = ["technique"] + [f"{m} {d:g} µs" for m in args.modes for d in args.delays]
                rows = []
                for t in techniques:
                    rows.append([t] + [fmt(median(res.get((mpi, p, app, t, m, d), [])))
                                       for m in args.modes for d in args.delays])
                rep.add(table(hdr, rows))
                rep.add()
                rep.add(f"Growth of T_par from {d0:g} µs to each delay, per mode:")
                rep.add()
                hdr = ["technique"] + [f"{m} {d:g} µs" for m in args.modes for d in args.delays[1:]]
                rows, growth = [], {(m, d): [] for m in args.modes for d in args.delays[1:]}
                for t in techniques:
                    row = [t]
                    for m in args.modes:
                        base = median(res.get((mpi, p, app, t, m, d0), []))
                        for d in args.delays[1:]:
                            v = median(res.get((mpi, p, app, t, m, d), []))
                            g = (v / base - 1) * 100 if v is not None and base else None
                            if g is not None:
                                growth[(m, d)].append(g)
                            row.append(pct(g))
                    rows.append(row)
                rows.append(["*median*"] + [pct(median(growth[(m, d)])) for m in args.modes
                                            for d in args.delays[1:]])
                # the growth of the summed T_par of all techniques: less sensitive to one noisy cell
                total = []
                for m in args.modes:
                    t0 = [median(res.get((mpi, p, app, t, m, d0), [])) for t in techniques]
                    for d in args.delays[1:]:
                        td = [median(res.get((mpi, p, app, t, m, d), [])) for t in techniques]
                        ok = [(a, b) for a, b in zip(t0, td) if a is not None and b is not None]
                        total.append(pct((sum(b for _, b in ok) / sum(a for a, _ in ok) - 1) * 100
                                         if ok else None))
                rows.append(["*Σ T_par*"] + total)
                rows.append(["*max*"] + [pct(max(growth[(m, d)]) if growth[(m, d)] else None)
                                         for m in args.modes for d in args.delays[1:]])
                rep.add(table(hdr, rows))
                rep.add()
                verdicts = []
                for m in args.modes:
                    if m == "centralized":
                        continue
                    g = median(growth[(m, dmax)])
                    if g is None:
                        continue
                    met = "met" if g <= 5.0 else "NOT met"
                    worst = max(growth[(m, dmax)])
                    verdicts.append(f"{m}: median growth {pct(g)} at {dmax:g} µs → target ≤ 5 % {met} "
                                    f"(worst technique {pct(worst)})")
                if verdicts:
                    rep.add("; ".join(verdicts) + ".")
                    rep.add()
    footer(rep, runner, uptimes[args.mpi[0]])
    rep.emit()
    return 1 if runner.failures else 0


# ---------------------------------------------------------------- CLI

def main(argv=None) -> int:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--ranks", type=int, nargs="+", default=[4])
    common.add_argument("--reps", type=int, default=5, help="repetitions inside each run (--repeat / --reps)")
    common.add_argument("--rounds", type=int, default=1, help="repeat the whole sweep R times, interleaved")
    common.add_argument("--mpi", nargs="+", choices=list(MPI_NAMES), default=["openmpi"])
    common.add_argument("--build-dir", default="build-bench", help="Open MPI build (relative: to the repo)")
    common.add_argument("--build-dir-mpich", default="build-bench-mpich", help="MPICH build")
    common.add_argument("--mpiexec", default="mpiexec")
    common.add_argument("--mpiexec-mpich", default="mpiexec.mpich")
    common.add_argument("--techniques", nargs="+", help="a subset of the techniques")
    common.add_argument("--mode", default="centralized", help="mandelbrot, synthetic: execution model")
    common.add_argument("--timeout", type=float, default=300, help="seconds per mpiexec run")
    common.add_argument("--out", help="also append the Markdown to this file")
    common.add_argument("--raw", help="append every JSON result (with its command) to this file")
    common.add_argument("--dry-run", action="store_true")
    common.add_argument("--from-raw", metavar="FILE",
                        help="re-render the tables from a --raw file of the same sweep; runs nothing")

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)

    s = sub.add_parser("handout", parents=[common], help="bench_handout: hand-out cost per mode, primitives")
    s.add_argument("--n", type=int, default=1_000_000)
    s.add_argument("--warmup", type=int, default=1)
    s.add_argument("--calls", type=int, default=10_000)
    s.add_argument("--api", choices=["restart", "parallel_for", "capi"], default="restart")
    s.add_argument("--skip-mpi", action="store_true", help="hand-out only, no MPI primitives")
    s.add_argument("--handout-exe", help="bench_handout for Open MPI (default: BUILD/bench/bench_handout)")
    s.add_argument("--handout-exe-mpich", help="bench_handout for MPICH")
    s.set_defaults(func=cmd_handout)

    s = sub.add_parser("mandelbrot", parents=[common], help="T_par per technique, Mandelbrot")
    s.add_argument("--width", type=int, default=512)
    s.add_argument("--threshold", type=int, default=2000)
    s.set_defaults(func=cmd_mandelbrot)

    s = sub.add_parser("responsiveness", parents=[common],
                       help="every rank's overhead / T_par, Mandelbrot (issue 11: <= 5 %%)")
    s.add_argument("--width", type=int, default=256)
    s.add_argument("--threshold", type=int, default=2000)
    s.add_argument("--modes", nargs="+", choices=MODES, default=MODES)
    s.add_argument("--break-after", type=int, help="pass --break-after to the app (default: automatic)")
    s.set_defaults(func=cmd_responsiveness, ranks=[2])

    s = sub.add_parser("synthetic", parents=[common], help="T_par / lower bound per technique")
    s.add_argument("--iterations", type=int, default=2_000)
    s.add_argument("--distribution", default="gamma")
    s.add_argument("--mean-us", type=float, default=1000.0)
    s.add_argument("--cov", type=float, nargs="+", default=[0.25, 1.8])
    s.add_argument("--exec", choices=["spin", "sleep"], default="sleep")
    s.set_defaults(func=cmd_synthetic)

    s = sub.add_parser("delay", parents=[common], help="CCA vs DCA under injected coordinator delay")
    s.add_argument("--apps", nargs="+", choices=["mandelbrot", "psia"], default=["mandelbrot", "psia"])
    s.add_argument("--width", type=int, default=256)
    s.add_argument("--threshold", type=int, default=2000)
    s.add_argument("--points", type=int, default=4096)
    s.add_argument("--images", type=int, default=0, help="0: as many as points")
    s.add_argument("--modes", nargs="+", choices=MODES, default=MODES)
    s.add_argument("--delays", type=float, nargs="+", default=[0, 10, 100], help="µs; the first is the base")
    s.set_defaults(func=cmd_delay)

    args = ap.parse_args(argv)
    if args.techniques:
        unknown = [t for t in args.techniques if t not in ALL_TECHNIQUES]
        if unknown:
            ap.error(f"unknown technique(s) {unknown}; valid: {' '.join(ALL_TECHNIQUES)}")
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
