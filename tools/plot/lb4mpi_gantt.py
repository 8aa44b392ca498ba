#!/usr/bin/env python3
"""Gantt chart of an lb4mpi trace: one row per rank, one bar per chunk.

    lb4mpi_gantt.py TRACE.json -o gantt.png [--title T] [--loop L] [--step S]

TRACE is what Options::trace / LB4MPI_TRACE writes: the Chrome trace-event
JSON ("x.json") or the trace CSV ("x.csv"). Bars are colored by loop; the
intervals in which the coordinator served other ranks' requests are drawn as
a gray hatched band over the lower part of its row.

With several loops in flight at once, a rank runs pieces of the loops in
turn: a chunk's "chunk" event covers its first run of pieces and each later
run is a "continuation" event (docs/TRACING.md). Continuations are drawn in
their loop's color, lighter and dotted, and are not counted as chunks.

The runtime stamps every event from one origin per process, so executions
(time steps, loops) follow each other and are drawn as stamped. Traces of
older versions stamped each execution from its own start, so that the
executions overlap in time; --layout auto (the default) detects that and
lays them out one after another, separated by dashed lines and labelled
"loop L, time step S" (the trace's "step" field counts the executions of a
loop, not scheduling steps); --layout as-is draws the stamps unchanged,
--layout sequential always lays executions out one after another.

Exit codes: 0 ok, 2 bad input (missing or invalid file, nothing to plot).
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import os
import sys
from collections import defaultdict
from dataclasses import dataclass

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import lb4mpi_python  # noqa: E402  (which Python: tools/plot/lb4mpi_python.py)

PROG = "lb4mpi_gantt.py"


class InputError(Exception):
    """Bad input: reported as one line on stderr, exit code 2."""


@dataclass
class Event:
    kind: str  # "chunk", "continuation" (a later run of a chunk's pieces), "serve" or "global"
    # ("global": hierarchical mode, a global chunk on its node's leader, from its arrival to the next's)
    rank: int
    loop: int
    step: int
    t0: float  # seconds
    t1: float  # seconds
    start: int = 0
    size: int = 0
    technique: str = ""
    mode: str = ""


# ---------------------------------------------------------------------------
# Reading


def _int(value, what):
    try:
        return int(value)
    except (TypeError, ValueError):
        raise InputError(f"{what}: expected an integer, got {value!r}") from None


def _float(value, what):
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise InputError(f"{what}: expected a number, got {value!r}") from None
    if not math.isfinite(x):
        raise InputError(f"{what}: not a finite number: {value!r}")
    return x


def read_json(path, text):
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        raise InputError(f"'{path}' is not valid JSON ({e}); expected an lb4mpi trace (LB4MPI_TRACE=x.json)")
    if isinstance(doc, dict):
        events = doc.get("traceEvents")
    elif isinstance(doc, list):  # the JSON array form of the trace-event format
        events = doc
    else:
        events = None
    if not isinstance(events, list):
        raise InputError(f"'{path}' has no \"traceEvents\" array; expected an lb4mpi trace (LB4MPI_TRACE=x.json)")
    out = []
    ranks = set()
    for k, e in enumerate(events):
        if not isinstance(e, dict):
            continue
        ph = e.get("ph")
        if ph == "M" and e.get("name") == "thread_name" and "tid" in e:
            if str((e.get("args") or {}).get("name", "rank")).startswith("rank"):  # not a node's global track
                ranks.add(_int(e["tid"], f"event {k}: tid"))
            continue
        if ph != "X":
            continue
        cat = e.get("cat")
        if cat not in KINDS:
            continue
        args = e.get("args") or {}
        where = f"'{path}', event {k}"
        ts = _float(e.get("ts"), f"{where}: ts") * 1e-6
        dur = _float(e.get("dur", 0.0), f"{where}: dur") * 1e-6
        tid = _int(e.get("tid"), f"{where}: tid")
        ev = Event(
            kind=cat,
            rank=tid - GLOBAL_TRACK if cat == "global" else tid,
            loop=_int(args.get("loop", 0), f"{where}: args.loop"),
            step=_int(args.get("step", 0), f"{where}: args.step"),
            t0=ts,
            t1=ts + max(dur, 0.0),
        )
        if cat in ("chunk", "continuation", "global"):
            ev.start = _int(args.get("start", 0), f"{where}: args.start")
            ev.size = _int(args.get("size", 0), f"{where}: args.size")
            ev.technique = str(args.get("technique", ""))
            ev.mode = str(args.get("mode", ""))
        out.append(ev)
        ranks.add(ev.rank)
    return out, ranks


KINDS = ("chunk", "continuation", "serve", "global")
GLOBAL_TRACK = 1 << 20  # the JSON track (tid) of rank R's global chunks: GLOBAL_TRACK + R
CSV_COLUMNS = ("kind", "rank", "loop", "step", "technique", "mode", "start", "size", "t_begin_s", "t_end_s")


def read_csv(path, text):
    rows = csv.DictReader(text.splitlines())
    missing = [c for c in CSV_COLUMNS if c not in (rows.fieldnames or [])]
    if missing and {"step", "size"} <= set(rows.fieldnames or []):
        raise InputError(
            f"'{path}' looks like lb4mpi-chunks output (chunk sizes, no times); plot it with lb4mpi_chunk_plot.py"
        )
    if missing:
        raise InputError(
            f"'{path}' is not an lb4mpi trace CSV: missing column(s) {', '.join(missing)} "
            f"(expected header {','.join(CSV_COLUMNS)}, ...)"
        )
    out = []
    ranks = set()
    for line, r in enumerate(rows, start=2):
        where = f"'{path}', line {line}"
        kind = r["kind"]
        if kind not in KINDS:
            raise InputError(f"{where}: kind must be one of {', '.join(KINDS)}, got {kind!r}")
        ev = Event(
            kind=kind,
            rank=_int(r["rank"], f"{where}: rank"),
            loop=_int(r["loop"], f"{where}: loop"),
            step=_int(r["step"], f"{where}: step"),
            t0=_float(r["t_begin_s"], f"{where}: t_begin_s"),
            t1=_float(r["t_end_s"], f"{where}: t_end_s"),
            start=_int(r["start"], f"{where}: start"),
            size=_int(r["size"], f"{where}: size"),
            technique=r["technique"],
            mode=r["mode"],
        )
        ev.t1 = max(ev.t1, ev.t0)
        out.append(ev)
        ranks.add(ev.rank)
    return out, ranks


def read_trace(path):
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        raise InputError(f"cannot read the trace '{path}': {e.strerror or e}")
    if not text.strip():
        raise InputError(f"the trace '{path}' is empty")
    looks_json = path.lower().endswith(".json") or text.lstrip()[:1] in "{["
    return read_json(path, text) if looks_json else read_csv(path, text)


# ---------------------------------------------------------------------------
# Layout


def executions_in_order(events):
    """(loop, step) pairs in the order they first appear."""
    seen = {}
    for e in events:
        seen.setdefault((e.loop, e.step), len(seen))
    return sorted(seen, key=seen.get)


def spans(events):
    s = {}
    for e in events:
        k = (e.loop, e.step)
        lo, hi = s.get(k, (math.inf, -math.inf))
        s[k] = (min(lo, e.t0), max(hi, e.t1))
    return s


def relative_stamps(order, span):
    """True when every execution starts near time 0 (stamps relative to its start)."""
    if len(order) < 2:
        return False
    for k in order:
        lo, hi = span[k]
        if lo > 0.05 * (hi - lo) + 1e-3:
            return False
    return True


def lay_out(events, layout):
    """Shifts executions so they follow one another; returns (events, boundaries)."""
    order = executions_in_order(events)
    span = spans(events)
    sequential = layout == "sequential" or (layout == "auto" and relative_stamps(order, span))
    if not sequential:
        return events, []
    total = sum(max(hi, 0.0) for _, hi in span.values())
    gap = 0.015 * total
    offset = {}
    boundaries = []  # (x where the execution starts, its key)
    t = 0.0
    for k in order:
        lo, hi = span[k]
        base = min(lo, 0.0)
        offset[k] = t - base
        boundaries.append((t, k))
        t += (hi - base) + gap
    shifted = []
    for e in events:
        d = offset[(e.loop, e.step)]
        shifted.append(Event(**{**e.__dict__, "t0": e.t0 + d, "t1": e.t1 + d}))
    return shifted, boundaries


def merge_intervals(intervals, tolerance):
    """Joins intervals closer than `tolerance` (keeps huge traces fast to draw)."""
    out = []
    for a, b in sorted(intervals):
        if out and a - out[-1][1] <= tolerance:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return out


# ---------------------------------------------------------------------------
# Drawing


def pick_unit(extent, unit):
    if unit == "auto":
        unit = "s" if extent >= 0.5 else ("ms" if extent >= 0.5e-3 else "us")
    return unit, {"s": 1.0, "ms": 1e3, "us": 1e6}[unit]


def describe(events, ranks):
    techniques = sorted({e.technique for e in events if e.technique})
    modes = sorted({e.mode for e in events if e.mode})
    parts = []
    if techniques:
        parts.append(" / ".join(techniques))
    if modes:
        parts.append(" / ".join(modes))
    per_execution = defaultdict(int)
    for e in events:
        if e.kind == "chunk":
            per_execution[(e.loop, e.step)] += e.size
    sizes = set(per_execution.values())
    if len(sizes) == 1:
        parts.append(f"N = {sizes.pop():,}".replace(",", "\u2009"))
    parts.append(f"P = {len(ranks)}")
    return "lb4mpi trace: " + ", ".join(parts)


def time_window(events, selected):
    """The x axis: from 0 (from the first event of a --loop/--step selection) to the last event."""
    t_min = min(e.t0 for e in events)
    return (t_min if selected else min(0.0, t_min)), max(e.t1 for e in events)


def plot(events, ranks, args):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch

    events, boundaries = lay_out(events, args.layout)
    chunks = [e for e in events if e.kind == "chunk"]
    continued = [e for e in events if e.kind == "continuation"]
    serves = [e for e in events if e.kind == "serve"]
    globals_ = [e for e in events if e.kind == "global"]
    ranks = sorted(ranks | {e.rank for e in events})
    row = {r: i for i, r in enumerate(ranks)}
    coordinators = sorted({e.rank for e in serves})
    loops = sorted({e.loop for e in chunks + continued})

    t_min, t_max = time_window(events, bool(args.loop or args.step))
    extent = max(t_max - t_min, 1e-9)
    unit, scale = pick_unit(extent, args.unit)

    n_rows = len(ranks)
    width = args.width
    height = args.height or min(16.0, max(3.2, 0.5 * n_rows + 2.0))
    fig, ax = plt.subplots(figsize=(width, height), dpi=args.dpi)
    # Below about half a pixel, neighbouring bars are indistinguishable: merge them.
    pixel = extent / (width * args.dpi)
    many = len(chunks) + len(continued) > 4 * width * args.dpi

    cmap = plt.get_cmap("tab10" if len(loops) <= 10 else "tab20")
    color = {L: cmap(i % cmap.N) for i, L in enumerate(loops)}
    bar_h = 0.72
    for L in loops:
        # A chunk's first run and its continuations (later runs, after
        # another loop's piece) in the loop's color; continuations lighter
        # and dotted.
        for kind, style in (("chunk", dict(alpha=1.0)), ("continuation", dict(alpha=0.55, hatch="...."))):
            per_rank = defaultdict(list)
            for e in chunks if kind == "chunk" else continued:
                if e.loop == L:
                    per_rank[e.rank].append((e.t0, e.t1))
            for r, iv in per_rank.items():
                if many:
                    iv = merge_intervals(iv, 0.5 * pixel)
                    edge = dict(linewidth=0)
                else:
                    edge = dict(edgecolor="white", linewidth=0.6)
                ax.broken_barh(
                    [((a - t_min) * scale, max((b - a) * scale, 0.0)) for a, b in iv],
                    (row[r] - bar_h / 2, bar_h),
                    facecolors=color[L],
                    **edge,
                    **style,
                )
    if serves:
        serve_h = 0.32
        for r in coordinators:
            iv = [(e.t0, e.t1) for e in serves if e.rank == r]
            if many:
                iv = merge_intervals(iv, 0.5 * pixel)
            ax.broken_barh(
                [((a - t_min) * scale, max((b - a) * scale, pixel * scale)) for a, b in iv],
                (row[r] + bar_h / 2 - serve_h, serve_h),
                facecolors="0.55",
                edgecolor="0.25",
                hatch="////",
                linewidth=0.0,
                alpha=0.9,
            )
    if globals_:
        # Hierarchical mode: the global chunks a leader obtained for its node,
        # as a strip along the bottom of its row, alternately shaded.
        glob_h = 0.2
        for r in sorted({e.rank for e in globals_}):
            mine = sorted((e for e in globals_ if e.rank == r), key=lambda e: e.t0)
            for k, shade in ((0, "0.15"), (1, "0.6")):
                ax.broken_barh(
                    [((e.t0 - t_min) * scale, max((e.t1 - e.t0) * scale, pixel * scale)) for e in mine[k::2]],
                    (row[r] + bar_h / 2 - glob_h, glob_h),
                    facecolors=shade,
                    linewidth=0.0,
                )

    # Execution labels above the axes; a label that would run into the one
    # before it goes one line higher (up to three lines).
    axes_pt = 0.75 * width * 72.0
    x_end = extent * scale * 1.01
    level_end = [-math.inf] * 3
    levels_used = 1
    for x, (L, S) in boundaries:
        xs = (x - t_min) * scale
        if x > t_min:
            ax.axvline(xs, color="0.35", linestyle="--", linewidth=0.9)
        text = f"loop {L}, time step {S}"
        frac = xs / x_end
        width_frac = (len(text) * 8 * 0.55 + 8) / axes_pt
        level = next((i for i, end in enumerate(level_end) if frac >= end), 2)
        level_end[level] = frac + width_frac
        levels_used = max(levels_used, level + 1)
        ax.annotate(
            text,
            xy=(xs, 1.0),
            xycoords=("data", "axes fraction"),
            xytext=(3, 3 + 11 * level),
            textcoords="offset points",
            fontsize=8,
            color="0.25",
            va="bottom",
            ha="left",
            annotation_clip=False,
        )

    ax.set_yticks(range(n_rows))
    labels = [f"rank {r}" + (" (coordinator)" if r in coordinators else "") for r in ranks]
    if n_rows > 40:  # thin the labels out on big runs
        every = math.ceil(n_rows / 40)
        labels = [lab if i % every == 0 else "" for i, lab in enumerate(labels)]
    ax.set_yticklabels(labels, fontsize=9)
    ax.set_ylim(n_rows - 0.5, -0.5)  # rank 0 on top
    ax.set_xlim(0, extent * scale * 1.01)
    zoom = f" from {t_min * scale:.4g} {unit} into the run" if args.loop or args.step else ""
    ax.set_xlabel(f"time [{unit}]{zoom}" + (" (executions laid out one after another)" if boundaries else ""))
    ax.grid(axis="x", color="0.88", linewidth=0.6)
    ax.set_axisbelow(True)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)

    shown = loops if len(loops) <= 14 else loops[:12]
    handles = [Patch(facecolor=color[L], label=f"loop {L}") for L in shown]
    if len(shown) < len(loops):
        handles.append(Patch(facecolor="none", edgecolor="none", label=f"... ({len(loops)} loops)"))
    if continued:
        handles.append(Patch(facecolor="0.6", alpha=0.55, hatch="....", edgecolor="white",
                             label="chunk continued\n(after another loop's piece)"))
    if serves:
        handles.append(Patch(facecolor="0.55", edgecolor="0.25", hatch="////", label="serve requests"))
    if globals_:
        handles.append(Patch(facecolor="0.15", label=f"global chunks of the\nnode ({len(globals_)}; hierarchical)"))
    n_chunks = len(chunks)
    title = args.title or describe(events, set(ranks))
    ax.set_title(title, fontsize=12, pad=(8 + 11 * levels_used) if boundaries else 8)
    fig.text(0.99, 0.005, f"{n_chunks} chunks", ha="right", va="bottom", fontsize=8, color="0.4")
    # The legend goes outside the axes, to the right, so it hides no bar.
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False, fontsize=9)
    fig.tight_layout()
    fig.savefig(args.output, dpi=args.dpi)
    plt.close(fig)


# ---------------------------------------------------------------------------


def parse_args(argv):
    p = argparse.ArgumentParser(
        prog=PROG,
        description="Gantt chart of an lb4mpi trace (LB4MPI_TRACE=x.json or x.csv): "
        "one row per rank, a bar per chunk colored by loop, serve intervals hatched.",
    )
    p.add_argument("trace", help="trace file: Chrome trace-event JSON or trace CSV written by lb4mpi")
    p.add_argument("-o", "--output", default="gantt.png", help="image to write (default: gantt.png)")
    p.add_argument("--title", help="title (default: technique, mode and P from the trace)")
    p.add_argument("--loop", type=int, action="append", metavar="L", help="plot only loop L (repeatable)")
    p.add_argument("--step", type=int, action="append", metavar="S", help="plot only time step S, the trace's step field: the S-th execution of a loop (repeatable)")
    p.add_argument(
        "--layout",
        choices=("auto", "sequential", "as-is"),
        default="auto",
        help="auto (default): executions whose stamps all start at 0 (traces of older versions) are laid out "
        "one after another; as-is: as stamped; sequential: always one after another",
    )
    p.add_argument("--unit", choices=("auto", "s", "ms", "us"), default="auto", help="time unit of the x axis")
    p.add_argument("--width", type=float, default=11.0, help="figure width in inches (default 11)")
    p.add_argument("--height", type=float, help="figure height in inches (default: from the number of ranks)")
    p.add_argument("--dpi", type=int, default=150, help="resolution (default 150)")
    return p.parse_args(argv)


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    try:
        if args.width <= 0 or (args.height is not None and args.height <= 0) or args.dpi <= 0:
            raise InputError("--width, --height and --dpi must be positive")
        events, ranks = read_trace(args.trace)
        if args.loop:
            events = [e for e in events if e.loop in args.loop]
        if args.step:
            events = [e for e in events if e.step in args.step]
        if not any(e.kind == "chunk" for e in events):
            what = "" if not (args.loop or args.step) else " for the selected --loop/--step"
            raise InputError(f"'{args.trace}' holds no chunk events{what}; nothing to plot")
        problem = lb4mpi_python.rerun_with(["matplotlib"], PROG)  # pyenv's python3 first on PATH
        if problem:
            raise InputError(problem)
        out_dir = os.path.dirname(os.path.abspath(args.output))
        if not os.path.isdir(out_dir):
            raise InputError(f"cannot write '{args.output}': folder '{out_dir}' does not exist")
        plot(events, ranks, args)
    except InputError as e:
        print(f"{PROG}: error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
