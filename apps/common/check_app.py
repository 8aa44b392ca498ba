#!/usr/bin/env python3
"""Runs an lb4mpi app under mpiexec in several configurations and checks its output.

Every run must exit with the expected code (0 unless --expect-exit), print on
stdout exactly one JSON object (the summary of apps/common/summary.hpp) with
every key of the schema apps/README.md documents (read from that page) and
consistent fields (per-rank lists of P entries, among them idle_time_per_rank
in [0, t_par_s], in the summary and in every step), and -- the point of it --
all runs must report the same checksum, whatever the rank count, technique
and mode.

  check_app.py --mpiexec mpiexec --np-flag -n --exe ./lb4mpi-mandelbrot \
      --run 1:STATIC --run 4:FAC2:distributed --run 4:GSS:distributed-rma -- --width 64

A run is NP[:TECHNIQUE[:MODE[:ARG...]]]; TECHNIQUE and MODE are passed as
--technique and --mode after the app arguments, then the ARGs (extra app
arguments of this run, e.g. 4::centralized:--async:--techniques=STATIC,AF).
With --expect-exit CODE the runs must fail with CODE, print no JSON, and (with
--expect-stderr REGEX) say REGEX on stderr.

Multi-loop summaries (apps/common/multiloop.hpp: a `loops` array) are checked
further: per-loop fields, iteration counts, `async` as asked, per-loop
techniques and modes as asked (--technique/--mode or --techniques=/--modes=),
and the per-loop checksums must be the same in every run.
"""
import argparse
import json
import re
import subprocess
import sys

REQUIRED = {
    "app": str, "technique": str, "mode": str, "ranks": int, "iterations": int,
    "t_par_s": (int, float), "checksum": str, "chunks": int, "iterations_per_rank": list,
    "load_imbalance_pct": (int, float, type(None)), "cov_finish": (int, float, type(None)),
    "work_time_per_rank": list, "overhead_per_rank": list, "idle_time_per_rank": list, "repeat": int,
    "loop_iterations": int, "checksum_consistent": bool, "steps": list, "params": dict,
}


def schema_keys():
    """The summary's keys as apps/README.md documents them ("The JSON summary",
    the schema of every app, one loop or several): (top-level keys, keys of
    every step). Read from the page, so that the page and the check agree."""
    import os
    readme = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "README.md")
    with open(readme, encoding="utf-8") as f:
        text = f.read()
    table = text.split("## The JSON summary", 1)[1].split("**Several loops**", 1)[0]
    rows = [re.findall(r"`([a-z_]+)`", line.split("|")[1]) for line in table.splitlines()
            if line.startswith("| `")]
    top = [k for row in rows for k in row]
    start = next(i for i, row in enumerate(rows) if "failed_ranks" in row)
    end = next(i for i, row in enumerate(rows) if "steps" in row)
    step = [k for row in rows[start:end] for k in row if k != "robust"]
    step += ["technique", "t_par_s", "wall_s", "checksum", "finish_time_per_rank", "calculations_per_rank"]
    return top, step


SCHEMA_TOP, SCHEMA_STEP = schema_keys()


def check_schema(s, errors, where):
    """Every key of the documented schema, in the summary and in every step."""
    missing = [k for k in SCHEMA_TOP if k not in s]
    if missing:
        errors.append(f"{where}: keys of apps/README.md's schema missing: {missing}")
    for k, step in enumerate(s.get("steps", [])):
        missing = [key for key in SCHEMA_STEP if key not in step]
        if missing:
            errors.append(f"{where}: step {k}: keys of apps/README.md's schema missing: {missing}")
    hosts = s.get("hosts")
    if not isinstance(hosts, list) or len(hosts) != s.get("ranks") or not all(isinstance(h, str) and h for h in hosts):
        errors.append(f"{where}: hosts {hosts!r} is not one non-empty name per rank")


def norm(name):
    return name.upper().replace("_", "-")


def check_idle(idle, t_par, errors, where):
    """Idle time per rank (T_par - work - overhead of each execution, summed):
    numbers in [0, t_par] (t_par: the summed T_par of the same executions)."""
    for r, x in enumerate(idle):
        if not isinstance(x, (int, float)) or isinstance(x, bool):
            errors.append(f"{where}: idle_time_per_rank[{r}] is {x!r}")
        elif x < 0 or (isinstance(t_par, (int, float)) and x > t_par * (1 + 1e-9) + 1e-12):
            errors.append(f"{where}: idle_time_per_rank[{r}] = {x} outside [0, t_par_s = {t_par}]")


BALANCE = ("busy_imbalance_pct", "busy_cov", "finish_imbalance_pct", "finish_cov", "busy_pct",
           "scheduling_pct", "idle_pct")


def check_balance(s, np, errors, where):
    """The balance figures of a summary (apps/common/summary.hpp,
    docs/METRICS.md), where present: per execution, waiting = overhead -
    serve_time per rank; busy_imbalance_pct and busy_cov recomputed from the
    busy (work) times; busy + scheduling + idle = 100 % of P x T_par; a run in
    which some rank waited or served cannot report 0 % scheduling; the
    top-level figures are the means over the executions."""
    steps = [st for st in s.get("steps", []) if "busy_imbalance_pct" in st]
    if "busy_imbalance_pct" not in s or not steps:
        return
    for k, st in enumerate(steps):
        w = f"{where}: step {k}"
        missing = [f for f in BALANCE + ("waiting_time_per_rank", "serve_time_per_rank") if f not in st]
        if missing:
            errors.append(f"{w}: no {', '.join(missing)}")
            continue
        busy, wait, serve = st["work_time_per_rank"], st["waiting_time_per_rank"], st["serve_time_per_rank"]
        if not (len(busy) == len(wait) == len(serve) == np):
            errors.append(f"{w}: busy/waiting/serving lists are not {np} long")
            continue
        if "loops" in st:
            # A multi-loop step: its figures are the means over its loops
            # (each loop's in st["loops"]), its per-rank lists sums: not
            # recomputable from those, only the shares' total is checked.
            total = st["busy_pct"] + st["scheduling_pct"] + st["idle_pct"]
            if st.get("t_par_s", 0) > 0 and not (99.5 <= total <= 105.0):
                errors.append(f"{w}: busy + scheduling + idle = {total} %, not 100 % (99.5-105 allowed)")
            continue
        for r in range(np):
            want = max(0.0, st["overhead_per_rank"][r] - serve[r])
            if abs(wait[r] - want) > 1e-9 + 1e-9 * abs(want):
                errors.append(f"{w}: waiting_time_per_rank[{r}] = {wait[r]}, overhead - serve_time = {want}")
        mean = sum(busy) / np
        imb = (max(busy) / mean - 1) * 100 if mean > 0 else 0.0
        cov = (sum((x - mean) ** 2 for x in busy) / np) ** 0.5 / mean if mean > 0 and np > 1 else 0.0
        for name, want in (("busy_imbalance_pct", imb), ("busy_cov", cov)):
            if abs(st[name] - want) > 1e-6 * max(1.0, abs(want)):
                errors.append(f"{w}: {name} = {st[name]}, recomputed {want}")
        # Idle is max(0, T_par - busy - overhead) per rank: a rank whose
        # overhead runs past T_par (its final wait, e.g. under MPICH's
        # distributed-rma) adds more than 100 %; below 100 % is a lost share.
        total = st["busy_pct"] + st["scheduling_pct"] + st["idle_pct"]
        if st.get("t_par_s", 0) > 0 and not (99.5 <= total <= 105.0):
            errors.append(f"{w}: busy + scheduling + idle = {total} %, not 100 % (99.5-105 allowed)")
        if st["scheduling_pct"] <= 0 and any(x > 0 for x in wait + serve):
            errors.append(f"{w}: ranks waited or served, but scheduling_pct = {st['scheduling_pct']}")
    for name in BALANCE:
        want = sum(st[name] for st in steps) / len(steps)
        if abs(s[name] - want) > 1e-6 * max(1.0, abs(want)):
            errors.append(f"{where}: {name} = {s[name]}, the mean over the executions is {want}")


def check_summary(s, np, technique, mode, errors, where):
    check_schema(s, errors, where)
    for key, kind in REQUIRED.items():
        if key not in s:
            errors.append(f"{where}: no '{key}'")
        elif not isinstance(s[key], kind) or (kind is int and isinstance(s[key], bool)):
            errors.append(f"{where}: '{key}' is {type(s[key]).__name__}: {s[key]!r}")
    if errors:
        return
    if s["ranks"] != np:
        errors.append(f"{where}: ranks = {s['ranks']}, launched {np}")
    if technique and norm(s["technique"]) != norm(technique):
        errors.append(f"{where}: technique = {s['technique']}, asked {technique}")
    if mode and s["mode"].lower() != mode.lower():
        errors.append(f"{where}: mode = {s['mode']}, asked {mode}")
    if not re.fullmatch(r"0x[0-9a-f]{16}", s["checksum"]):
        errors.append(f"{where}: checksum {s['checksum']!r} is not 0x + 16 hex digits")
    if not s["checksum_consistent"]:
        errors.append(f"{where}: the repeated executions disagree on the checksum")
    if s["iterations"] != s["loop_iterations"] * s["repeat"] or len(s["steps"]) != s["repeat"]:
        errors.append(f"{where}: iterations {s['iterations']} != loop_iterations x repeat")
    for key in ("iterations_per_rank", "work_time_per_rank", "overhead_per_rank", "idle_time_per_rank"):
        if len(s[key]) != np:
            errors.append(f"{where}: {key} has {len(s[key])} entries for {np} ranks")
    check_idle(s["idle_time_per_rank"], s["t_par_s"], errors, where)
    if sum(s["iterations_per_rank"]) != s["iterations"]:
        errors.append(f"{where}: iterations_per_rank sum to {sum(s['iterations_per_rank'])}, "
                      f"not {s['iterations']}")
    if s["chunks"] < min(np, 1) or s["chunks"] > s["iterations"]:
        errors.append(f"{where}: {s['chunks']} chunks for {s['iterations']} iterations")
    for k, step in enumerate(s["steps"]):
        if sum(step.get("iterations_per_rank", [])) != s["loop_iterations"]:
            errors.append(f"{where}: step {k} ran {sum(step.get('iterations_per_rank', []))} iterations")
        idle = step.get("idle_time_per_rank")
        if not isinstance(idle, list) or len(idle) != np:
            errors.append(f"{where}: step {k}: idle_time_per_rank missing or not {np} entries: {idle!r}")
        else:
            check_idle(idle, step.get("t_par_s", 0.0), errors, f"{where}: step {k}")
    if s["t_par_s"] < 0:
        errors.append(f"{where}: negative t_par_s")
    check_balance(s, np, errors, where)


STEAL_REQUIRED = {
    "balancer": str, "steal_amount": str, "victim": str, "steal_attempts": int, "successful_steals": int,
    "iterations_stolen": int, "cov_rank_times": (int, float), "send_time_per_steal_s": (int, float),
    "recv_time_per_steal_s": (int, float), "steals_per_rank": list, "iterations_stolen_per_rank": list,
    "iterations_given_per_rank": list, "rejects_per_rank": list,
}


def check_steals(s, np, args, errors, where):
    """The stealing figures of an owned loop's summary (apps/common/owned.hpp):
    present, per-rank lists of P entries, iterations given = iterations
    stolen, steals <= attempts, no steals without a balancer, the balancer
    as asked with --balancer."""
    for key, kind in STEAL_REQUIRED.items():
        if not isinstance(s.get(key), kind) or (kind is int and isinstance(s.get(key), bool)):
            errors.append(f"{where}: owned loop: '{key}' missing or {s.get(key)!r}")
            return
    for key in ("steals_per_rank", "iterations_stolen_per_rank", "iterations_given_per_rank", "rejects_per_rank"):
        if len(s[key]) != np:
            errors.append(f"{where}: {key} has {len(s[key])} entries for {np} ranks")
    if sum(s["iterations_given_per_rank"]) != s["iterations_stolen"] or \
            sum(s["iterations_stolen_per_rank"]) != s["iterations_stolen"]:
        errors.append(f"{where}: iterations given {sum(s['iterations_given_per_rank'])} / stolen per rank "
                      f"{sum(s['iterations_stolen_per_rank'])} != iterations_stolen {s['iterations_stolen']}")
    if s["successful_steals"] > s["steal_attempts"]:
        errors.append(f"{where}: {s['successful_steals']} steals in {s['steal_attempts']} attempts")
    if s["balancer"] == "none" and (s["steal_attempts"] or s["iterations_stolen"]):
        errors.append(f"{where}: balancer none, yet {s['iterations_stolen']} iterations stolen")
    asked = option_value(args, "--balancer")
    if asked and asked != s["balancer"]:
        errors.append(f"{where}: balancer = {s['balancer']}, asked {asked}")
    if s["mode"] != "owned":
        errors.append(f"{where}: mode = {s['mode']}, an owned loop reports 'owned'")


LOOP_REQUIRED = {
    "technique": str, "mode": str, "loop_iterations": int, "iterations": int,
    "t_par_s": (int, float), "checksum": str, "chunks": int,
}


def option_value(args, flag):
    """Value of --flag=V or --flag V in args (the last one), else None."""
    value = None
    for k, arg in enumerate(args):
        if arg.startswith(flag + "="):
            value = arg[len(flag) + 1:]
        elif arg == flag and k + 1 < len(args):
            value = args[k + 1]
    return value


def check_loops(s, args, errors, where, expect_technique=None):
    """Fields of a multi-loop summary; returns the per-loop checksums."""
    for key, kind in (("async", bool), ("time_steps", int), ("total_time_s", (int, float)), ("loops", list)):
        if not isinstance(s.get(key), kind):
            errors.append(f"{where}: multi-loop summary: '{key}' missing or {s.get(key)!r}")
            return None
    loops = s["loops"]
    if not loops:
        errors.append(f"{where}: no loops")
        return None
    for l, loop in enumerate(loops):
        for key, kind in LOOP_REQUIRED.items():
            if not isinstance(loop.get(key), kind) or isinstance(loop.get(key), bool):
                errors.append(f"{where}: loops[{l}].{key} missing or {loop.get(key)!r}")
                return None
        if not re.fullmatch(r"0x[0-9a-f]{16}", loop["checksum"]):
            errors.append(f"{where}: loops[{l}].checksum {loop['checksum']!r}")
        if loop["iterations"] != loop["loop_iterations"] * s["time_steps"]:
            errors.append(f"{where}: loops[{l}] iterations != loop_iterations x time_steps")
        if loop["t_par_s"] < 0:
            errors.append(f"{where}: loops[{l}] negative t_par_s")
    if s["time_steps"] != s["repeat"]:
        errors.append(f"{where}: time_steps {s['time_steps']} != repeat {s['repeat']}")
    if sum(loop["loop_iterations"] for loop in loops) != s["loop_iterations"]:
        errors.append(f"{where}: the loops' iterations do not add up to loop_iterations")
    for k, step in enumerate(s["steps"]):
        if len(step.get("loops", [])) != len(loops):
            errors.append(f"{where}: step {k} lists {len(step.get('loops', []))} loops, not {len(loops)}")
    asked_async = "--async" in args
    if s["async"] != asked_async:
        errors.append(f"{where}: async = {s['async']}, asked {asked_async}")
    for flag, key, one in (("--techniques", "technique", "--technique"), ("--modes", "mode", "--mode")):
        asked = option_value(args, flag)
        asked = asked.split(",") if asked else None
        if asked is None and option_value(args, one):
            asked = [option_value(args, one)] * len(loops)
        if asked is None and key == "technique" and expect_technique:
            asked = [expect_technique] * len(loops)
        if asked is None:
            continue
        got = [loop[key] for loop in loops]
        if len(asked) != len(got) or any(norm(a) != norm(g) for a, g in zip(asked, got)):
            errors.append(f"{where}: loops' {key}s {got}, asked {asked}")
    return [loop["checksum"] for loop in loops]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mpiexec", required=True)
    ap.add_argument("--np-flag", default="-n")
    ap.add_argument("--preflag", action="append", default=[], help="an MPIEXEC_PREFLAGS item (repeatable)")
    ap.add_argument("--postflag", action="append", default=[], help="an MPIEXEC_POSTFLAGS item (repeatable)")
    ap.add_argument("--exe", required=True)
    ap.add_argument("--run", action="append", required=True,
                    help="NP[:TECHNIQUE[:MODE[:ARG...]]] (repeatable)")
    ap.add_argument("--timeout", type=float, default=100.0, help="seconds per run")
    ap.add_argument("--expect-exit", type=int, default=0)
    ap.add_argument("--expect-stderr", default=None, help="regex that stderr must match")
    ap.add_argument("--expect-checksum", default=None)
    ap.add_argument("--expect-technique", default=None, help="technique the summaries must name")
    ap.add_argument("--expect-png", default=None, help="a PNG file the runs must leave behind")
    ap.add_argument("--expect-summary", action="store_true",
                    help="a failing run (--expect-exit) must still print its one JSON summary first "
                         "(an output error at the end of the loop must not cost the result)")
    ap.add_argument("app_args", nargs="*")
    a = ap.parse_args()

    errors = []
    checksums = {}
    loop_checksums = {}
    for run in a.run:
        parts = run.split(":")
        np = int(parts[0])
        technique = parts[1] if len(parts) > 1 and parts[1] else None
        mode = parts[2] if len(parts) > 2 and parts[2] else None
        extra = [x for x in parts[3:] if x]
        args = list(a.app_args)
        if technique:
            args += ["--technique", technique]
        if mode:
            args += ["--mode", mode]
        args += extra
        cmd = [a.mpiexec, a.np_flag, str(np), *a.preflag, a.exe, *a.postflag, *args]
        where = f"[{run}]"
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=a.timeout)
        except subprocess.TimeoutExpired:
            errors.append(f"{where}: timed out after {a.timeout} s: {' '.join(cmd)}")
            continue
        lines = [line for line in p.stdout.splitlines() if line.startswith("{")]
        if p.returncode != a.expect_exit:
            errors.append(f"{where}: exit code {p.returncode}, expected {a.expect_exit}: {' '.join(cmd)}\n"
                          f"stderr:\n{p.stderr}")
            continue
        if a.expect_exit != 0:
            if a.expect_summary:
                if len(lines) != 1:
                    errors.append(f"{where}: {len(lines)} JSON lines on stdout, expected 1:\n{p.stdout}")
                else:
                    s = json.loads(lines[0])
                    check_summary(s, np, technique or a.expect_technique, mode, errors, where)
                    checksums[run] = s.get("checksum")
            elif lines:
                errors.append(f"{where}: a failing run printed a summary")
            if a.expect_stderr and not re.search(a.expect_stderr, p.stderr):
                errors.append(f"{where}: stderr does not match {a.expect_stderr!r}:\n{p.stderr}")
            print(f"{where} exit {p.returncode} as expected: {p.stderr.strip().splitlines()[:1]}")
            continue
        if len(lines) != 1:
            errors.append(f"{where}: {len(lines)} JSON lines on stdout, expected 1:\n{p.stdout}")
            continue
        try:
            s = json.loads(lines[0])
        except json.JSONDecodeError as e:
            errors.append(f"{where}: bad JSON ({e}): {lines[0]}")
            continue
        if "loops" in s:
            # Per-loop techniques and modes may differ: checked per loop.
            before = len(errors)
            check_summary(s, np, None, None, errors, where)
            if len(errors) == before:
                loop_checksums[run] = check_loops(s, args, errors, where, a.expect_technique)
        else:
            check_summary(s, np, technique or a.expect_technique, mode, errors, where)
            if "balancer" in s:
                check_steals(s, np, args, errors, where)
        checksums[run] = s.get("checksum")
        print(f"{where} {s.get('technique')}/{s.get('mode')} ranks={s.get('ranks')} "
              f"t_par={s.get('t_par_s', 0):.4f}s chunks={s.get('chunks')} checksum={s.get('checksum')}")

    if len(set(checksums.values())) > 1:
        errors.append("checksums differ: " + ", ".join(f"{k} {v}" for k, v in checksums.items()))
    if len({tuple(v) if v else None for v in loop_checksums.values()}) > 1:
        errors.append("per-loop checksums differ: " +
                      ", ".join(f"{k} {v}" for k, v in loop_checksums.items()))
    if a.expect_png:
        try:
            with open(a.expect_png, "rb") as f:
                if f.read(8) != b"\x89PNG\r\n\x1a\n":
                    errors.append(f"{a.expect_png} is not a PNG file")
        except OSError as e:
            errors.append(f"no image: {e}")
    if a.expect_checksum and any(v != a.expect_checksum for v in checksums.values()):
        errors.append(f"expected checksum {a.expect_checksum}")
    for e in errors:
        print("FAIL " + e, file=sys.stderr)
    print(f"check_app: {len(a.run)} runs, " + (f"{len(errors)} problems" if errors else "all good"))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
