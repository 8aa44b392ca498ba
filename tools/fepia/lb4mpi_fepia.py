#!/usr/bin/env python3
"""Robustness of loop-scheduling techniques from run summaries: the FePIA
metrics of 004 §4.1 (resilience rho_res against failures, flexibility
rho_flex against perturbations).

Input: JSON lines, one object per run, as the lb4mpi apps print them, with at
least "technique" and "t_par_s" (null: the run did not finish), and a
scenario: the object's "scenario" field (or --scenario-field), unless the
command line labels the input — FILE=SCENARIO for one file, --scenario NAME
for every input without its own label (stdin is "-"). A command-line label
wins over the field. Other lines (not starting with "{") are skipped.

For each variant v (technique, plus "robust" when runs carry it; --group-by)
and scenario pi, T(v, pi) is the median T_par of v's finished runs in pi.
With the baseline scenario orig (--baseline, default "baseline"), 004 §4.1
defines (after FePIA, Ali et al. [7], and [25]):

    robustness radius   r(v, pi)   = T(v, pi) - T(v, orig)
    robustness          rho(v, pi) = r(v, pi) / r_min(pi),
                        r_min(pi)  = min over the variants v' of r(v', pi)

rho = 1 is the most robust variant for pi; rho = k: k times less robust.
rho is rho_res when pi is a failure scenario (--failure-scenarios, globs)
and rho_flex when pi is a perturbation scenario (--perturbation-scenarios).
004 takes the minimum over all techniques, with and without rDLB, of one
scenario: so does this tool (over every variant in the input).

The ratio is undefined when r_min(pi) <= 0 (the most robust variant was not
slower than its baseline, e.g. noise): rho is then reported as n/a, unless
a noise floor raises every radius below it first: --min-radius R (seconds),
or --min-radius-pct P (P % of the variant's own baseline T_par: a change
smaller than that is taken for the machine's noise). Variants
with no finished run in pi (or in the baseline) have no radius; they do not
take part in r_min and their rho is n/a.

Output: Markdown tables (default) or --json. Exit code 2 on bad input.
"""

import argparse
import fnmatch
import json
import math
import statistics
import sys

DEFAULT_FAILURES = "*fail*"


class InputError(Exception):
    pass


def parse_args(argv):
    p = argparse.ArgumentParser(
        description="FePIA robustness (004 §4.1): per technique and scenario the median T_par, "
        "the robustness radius and the resilience / flexibility rho.",
        epilog="Example: mpiexec -n 4 lb4mpi-mandelbrot --technique GSS | %(prog)s --scenario baseline "
        "(one scenario per call is rarely useful: gather the runs into files, then "
        "%(prog)s base.jsonl=baseline lat.jsonl=latency fail.jsonl=fail-1).")
    p.add_argument("inputs", nargs="*", default=["-"],
                   help="JSON-lines files, FILE=SCENARIO to label a file's runs, '-' for stdin (default)")
    p.add_argument("--scenario", metavar="NAME",
                   help="scenario of every input that has no =SCENARIO label (overrides the records' field)")
    p.add_argument("--scenario-field", default="scenario", metavar="FIELD",
                   help="the records' field naming the scenario (default: scenario)")
    p.add_argument("--baseline", default="baseline", metavar="NAME",
                   help="the scenario without failures or perturbations (default: baseline)")
    p.add_argument("--failure-scenarios", default=DEFAULT_FAILURES, metavar="GLOBS",
                   help="comma-separated glob patterns: scenarios that are failures (rho_res); "
                        "default: " + DEFAULT_FAILURES)
    p.add_argument("--perturbation-scenarios", default="*", metavar="GLOBS",
                   help="comma-separated glob patterns: scenarios that are perturbations (rho_flex), "
                        "among those not matched as failures; default: * (all others)")
    p.add_argument("--group-by", default="technique,robust", metavar="FIELDS",
                   help="comma-separated fields naming a variant (default: technique,robust; a field "
                        "no record has is left out, one that some records lack counts as empty)")
    p.add_argument("--min-radius", type=float, default=None, metavar="SECONDS",
                   help="raise every radius below SECONDS to SECONDS before the ratio "
                        "(keeps rho defined when a scenario costs no time)")
    p.add_argument("--min-radius-pct", type=float, default=None, metavar="PERCENT",
                   help="raise every radius below PERCENT %% of the variant's baseline T_par to that "
                        "(a noise floor relative to the loop's length)")
    p.add_argument("--json", action="store_true", help="print JSON instead of Markdown")
    p.add_argument("--digits", type=int, default=3, help="significant digits in the Markdown tables (default 3)")
    args = p.parse_args(argv)
    if args.min_radius is not None and not (args.min_radius > 0 and math.isfinite(args.min_radius)):
        p.error("--min-radius must be a positive number of seconds")
    if args.min_radius_pct is not None and not (0 < args.min_radius_pct < 100):
        p.error("--min-radius-pct must be a percentage between 0 and 100 (exclusive)")
    if args.min_radius is not None and args.min_radius_pct is not None:
        p.error("give --min-radius or --min-radius-pct, not both")
    if args.digits < 1:
        p.error("--digits must be at least 1")
    return args


def globs(text):
    return [g.strip() for g in text.split(",") if g.strip()]


def split_label(arg):
    """'file=scenario' -> (file, scenario); a plain path (or '-') -> (path, None)."""
    if "=" in arg:
        path, label = arg.rsplit("=", 1)
        if path and label:
            return path, label
    return arg, None


def read_records(args):
    records = []
    for arg in args.inputs:
        path, label = split_label(arg)
        label = label or args.scenario
        if path == "-":
            lines, name = sys.stdin.read().splitlines(), "<stdin>"
        else:
            try:
                with open(path, encoding="utf-8") as f:
                    lines, name = f.read().splitlines(), path
            except OSError as e:
                raise InputError(f"cannot read '{path}': {e.strerror}")
        for number, line in enumerate(lines, 1):
            text = line.strip()
            if not text.startswith("{"):
                continue
            where = f"{name}:{number}"
            try:
                obj = json.loads(text)
            except json.JSONDecodeError as e:
                raise InputError(f"{where}: not valid JSON ({e.msg})")
            if not isinstance(obj, dict):
                continue
            if "t_par_s" not in obj:
                continue  # some other JSON line, not a run summary
            if "technique" not in obj:
                raise InputError(f"{where}: a run summary without a \"technique\" field")
            t = obj["t_par_s"]
            if t is not None and (isinstance(t, bool) or not isinstance(t, (int, float)) or not math.isfinite(t) or t < 0):
                raise InputError(f"{where}: \"t_par_s\" must be a number >= 0 or null, got {json.dumps(t)}")
            scenario = label if label is not None else obj.get(args.scenario_field)
            if scenario is None or scenario == "":
                raise InputError(f"{where}: no scenario: the record has no \"{args.scenario_field}\" field "
                                 f"and the input has no label (FILE=SCENARIO or --scenario NAME)")
            records.append({"obj": obj, "scenario": str(scenario), "t_par_s": t})
    # The variant: the --group-by fields that some record has (e.g. no "robust"
    # column for runs of apps that do not print it).
    args.fields = [f for f in globs(args.group_by) if any(f in r["obj"] for r in records)]
    for r in records:
        r["variant"] = tuple(value_text(r["obj"].get(f)) for f in args.fields)
    return records


def value_text(v):
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def classify(scenario, args):
    if scenario == args.baseline:
        return "baseline"
    if any(fnmatch.fnmatchcase(scenario, g) for g in globs(args.failure_scenarios)):
        return "failure"
    if any(fnmatch.fnmatchcase(scenario, g) for g in globs(args.perturbation_scenarios)):
        return "perturbation"
    return "other"


def analyse(records, args):
    if not records:
        raise InputError("no run summaries in the input (JSON objects with \"technique\" and \"t_par_s\")")
    scenarios = sorted({r["scenario"] for r in records}, key=lambda s: (s != args.baseline, s))
    if args.baseline not in scenarios:
        raise InputError(f"no run of the baseline scenario '{args.baseline}' (scenarios in the input: "
                         f"{', '.join(scenarios)}; --baseline NAME chooses another)")
    variants = sorted({r["variant"] for r in records})
    runs = {}
    for r in records:
        runs.setdefault((r["variant"], r["scenario"]), []).append(r["t_par_s"])

    cells = {}
    for v in variants:
        for s in scenarios:
            ts = runs.get((v, s))
            if ts is None:
                continue
            done = [t for t in ts if t is not None]
            cells[(v, s)] = {"runs": len(ts), "finished": len(done),
                             "median_t_par_s": statistics.median(done) if done else None}
    for (v, s), c in cells.items():
        base = cells.get((v, args.baseline))
        c["baseline_t_par_s"] = base["median_t_par_s"] if base else None
        t, b = c["median_t_par_s"], c["baseline_t_par_s"]
        c["ratio"] = t / b if t is not None and b not in (None, 0) else None
        c["radius_s"] = t - b if t is not None and b is not None else None
        c["kind"] = classify(s, args)

    rmin = {}
    for s in scenarios:
        if s == args.baseline:
            continue
        radii = [effective(c, args) for (v, s2), c in cells.items() if s2 == s and c["radius_s"] is not None]
        rmin[s] = min(radii) if radii else None
    for (v, s), c in cells.items():
        c["rho"] = None
        if s == args.baseline or c["radius_s"] is None:
            continue
        m = rmin[s]
        if m is not None and m > 0:
            c["rho"] = effective(c, args) / m
    return scenarios, variants, cells, rmin


def effective(cell, args):
    """The cell's radius, raised to the noise floor when one is given."""
    radius = cell["radius_s"]
    floor = args.min_radius
    if args.min_radius_pct is not None and cell["baseline_t_par_s"] is not None:
        floor = args.min_radius_pct / 100.0 * cell["baseline_t_par_s"]
    if floor is not None and radius < floor:
        return floor
    return radius


def fmt(x, digits, suffix=""):
    if x is None:
        return "n/a"
    return f"{x:.{digits}g}{suffix}"


def rho_name(kind):
    return {"failure": "ρ_res", "perturbation": "ρ_flex"}.get(kind, "ρ")


def markdown(scenarios, variants, cells, rmin, args):
    fields = args.fields
    d = args.digits
    out = []
    out.append(f"Robustness after 004 §4.1 (FePIA): radius r = T_par(π) − T_par({args.baseline}), "
               "ρ = r / r_min(π); medians of the finished runs.\n")
    head = fields + ["scenario", "kind", "runs", "median T_par [s]", f"× {args.baseline}", "radius r [s]", "ρ"]
    out.append("| " + " | ".join(head) + " |")
    out.append("|" + "|".join("---" for _ in head) + "|")
    for v in variants:
        for s in scenarios:
            c = cells.get((v, s))
            if c is None:
                continue
            runs = str(c["runs"]) if c["finished"] == c["runs"] else f"{c['finished']} of {c['runs']}"
            kind = c["kind"]
            rho = "" if kind == "baseline" else f"{rho_name(kind)} {fmt(c['rho'], d)}"
            out.append("| " + " | ".join(list(v) + [s, kind, runs, fmt(c["median_t_par_s"], d),
                                                    "" if kind == "baseline" else fmt(c["ratio"], d),
                                                    "" if kind == "baseline" else fmt(c["radius_s"], d), rho]) + " |")
    others = [s for s in scenarios if s != args.baseline]
    if others:
        out.append("")
        out.append("Summary: ρ per variant and scenario (1 = the most robust; n/a: no finished run, "
                   "or r_min ≤ 0).\n")
        head = fields + [f"{rho_name(cells_kind(cells, s))} {s}" for s in others]
        out.append("| " + " | ".join(head) + " |")
        out.append("|" + "|".join("---" for _ in head) + "|")
        for v in variants:
            row = list(v) + [fmt(cells[(v, s)]["rho"], d) if (v, s) in cells else "" for s in others]
            out.append("| " + " | ".join(row) + " |")
        out.append("")
        out.append("r_min per scenario: " + ", ".join(f"{s} {fmt(rmin[s], d, ' s')}" for s in others))
    return "\n".join(out) + "\n"


def cells_kind(cells, scenario):
    for (v, s), c in cells.items():
        if s == scenario:
            return c["kind"]
    return "other"


def as_json(scenarios, variants, cells, rmin, args):
    fields = args.fields
    rows = []
    for v in variants:
        for s in scenarios:
            c = cells.get((v, s))
            if c is None:
                continue
            row = dict(zip(fields, v))
            row.update({"scenario": s, "kind": c["kind"], "runs": c["runs"], "finished": c["finished"],
                        "median_t_par_s": c["median_t_par_s"], "baseline_t_par_s": c["baseline_t_par_s"],
                        "ratio": c["ratio"], "radius_s": c["radius_s"], "rho": c["rho"],
                        "rho_res": c["rho"] if c["kind"] == "failure" else None,
                        "rho_flex": c["rho"] if c["kind"] == "perturbation" else None})
            rows.append(row)
    doc = {"baseline": args.baseline, "group_by": fields, "min_radius_s": args.min_radius,
           "min_radius_pct": args.min_radius_pct,
           "r_min_s": {s: rmin[s] for s in scenarios if s != args.baseline}, "rows": rows}
    return json.dumps(doc, indent=1) + "\n"


def main(argv):
    args = parse_args(argv)
    try:
        records = read_records(args)
        scenarios, variants, cells, rmin = analyse(records, args)
    except InputError as e:
        print(f"lb4mpi_fepia: {e}", file=sys.stderr)
        return 2
    text = (as_json if args.json else markdown)(scenarios, variants, cells, rmin, args)
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
