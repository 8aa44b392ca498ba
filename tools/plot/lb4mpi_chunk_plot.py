#!/usr/bin/env python3
"""Chunk size against scheduling step, one line per input (like `001` Fig. 1).

    lb4mpi-chunks -t GSS  -n 1000 -p 4 --format csv > gss.csv
    lb4mpi-chunks -t FAC2 -n 1000 -p 4 --format csv > fac2.csv
    lb4mpi_chunk_plot.py gss.csv fac2.csv -o chunks.png
    lb4mpi-chunks -n 1000 -p 4 --format csv | lb4mpi_chunk_plot.py - -o all.png

Inputs (a path, or - for standard input):
  * `lb4mpi-chunks --format csv` of one technique, header  step,start,size
    -> one line, labelled with the file stem (or --labels);
  * `lb4mpi-chunks --format csv` of several techniques, header
    technique,step,start,size  -> one line per technique;
  * an lb4mpi trace CSV (LB4MPI_TRACE=x.csv)  -> one line per loop execution,
    the chunks in the order they were handed out (by start).

Exit codes: 0 ok, 2 bad input.
"""

from __future__ import annotations

import argparse
import csv
import io
import math
import os
import sys
from collections import OrderedDict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import lb4mpi_python  # noqa: E402  (which Python: tools/plot/lb4mpi_python.py)

PROG = "lb4mpi_chunk_plot.py"


class InputError(Exception):
    """Bad input: reported as one line on stderr, exit code 2."""


def _int(value, where):
    try:
        return int(value)
    except (TypeError, ValueError):
        raise InputError(f"{where}: expected an integer, got {value!r}") from None


def read_series(name, text):
    """Returns [(label suffix or None, [(step, size), ...]), ...] for one input."""
    if text.lstrip()[:1] in ("{", "["):
        raise InputError(f"'{name}' is JSON (an lb4mpi JSON trace?); plot a JSON trace with lb4mpi_gantt.py, "
                         "or give the trace CSV (LB4MPI_TRACE=x.csv) here")
    reader = csv.DictReader(io.StringIO(text))
    fields = reader.fieldnames or []
    if not fields:
        raise InputError(f"'{name}' is empty; expected CSV from lb4mpi-chunks --format csv (header step,start,size)")
    series = OrderedDict()
    if "kind" in fields and {"loop", "step", "start", "size"} <= set(fields):
        # lb4mpi trace CSV: one series per (loop, execution), ordered by start.
        for line, r in enumerate(reader, start=2):
            if r.get("kind") != "chunk":
                continue
            loop = _int(r["loop"], f"'{name}', line {line}: loop")
            step = _int(r["step"], f"'{name}', line {line}: step")
            key = f"loop {loop}, time step {step}"
            series.setdefault(key, []).append(
                (_int(r["start"], f"{name}, line {line}: start"), _int(r["size"], f"{name}, line {line}: size"))
            )
        out = []
        for key, chunks in series.items():
            chunks.sort()
            out.append((key, [(i, size) for i, (_, size) in enumerate(chunks)]))
        if not out:
            raise InputError(f"'{name}' is an lb4mpi trace CSV without chunk rows")
        return out
    if not {"step", "size"} <= set(fields):
        raise InputError(
            f"'{name}' has header {','.join(fields)}; expected step,start,size or technique,step,start,size "
            "(lb4mpi-chunks --format csv)"
        )
    per_technique = "technique" in fields
    for line, r in enumerate(reader, start=2):
        where = f"'{name}', line {line}"
        step = _int(r.get("step"), f"{where}: step")
        size = _int(r.get("size"), f"{where}: size")
        if size < 0:
            raise InputError(f"{where}: negative chunk size {size}")
        key = r.get("technique") if per_technique else None
        series.setdefault(key, []).append((step, size))
    if not series:
        raise InputError(f"'{name}' has a header but no chunks")
    return list(series.items())


def read_input(path, used_stdin):
    if path == "-":
        if used_stdin:
            raise InputError("standard input (-) can be given only once")
        return "stdin", sys.stdin.read()
    try:
        with open(path, encoding="utf-8") as f:
            return os.path.splitext(os.path.basename(path))[0], f.read()
    except OSError as e:
        raise InputError(f"cannot read '{path}': {e.strerror or e}")


def plot_facets(lines, args, plt):
    """Many lines: one small panel per line, same chunk-size axis."""
    from matplotlib.ticker import MaxNLocator

    n = len(lines)
    cols = 4 if n > 9 else 3
    rows = math.ceil(n / cols)
    fig_w = args.width or 12.0
    fig_h = args.height or max(3.0, 2.1 * rows + 0.8)
    fig, axes = plt.subplots(rows, cols, figsize=(fig_w, fig_h), dpi=args.dpi, sharey=True, squeeze=False)
    top = max(c for _, pts in lines for _, c in pts)
    for k, ax in enumerate(axes.flat):
        if k >= n:
            ax.set_visible(False)
            continue
        label, pts = lines[k]
        xs = [s for s, _ in pts]
        ys = [c for _, c in pts]
        ax.plot(xs, ys, color="tab:blue", linewidth=1.2, marker="o" if len(pts) <= 60 else None, markersize=2.5)
        ax.set_title(f"{label}  ({len(pts)} chunks)", fontsize=9, pad=3)
        if args.logy:
            ax.set_yscale("log")
        else:
            ax.set_ylim(0, top * 1.08)
        ax.set_xlim(left=0)
        ax.grid(color="0.9", linewidth=0.6)
        ax.set_axisbelow(True)
        ax.tick_params(labelsize=8)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True, nbins=5))
        for side in ("top", "right"):
            ax.spines[side].set_visible(False)
    fig.supxlabel("scheduling step i", fontsize=10)
    fig.supylabel("chunk size [iterations]" + (" (log scale)" if args.logy else ""), fontsize=10)
    if args.title:
        fig.suptitle(args.title, fontsize=12)
    fig.tight_layout()
    fig.savefig(args.output, dpi=args.dpi)
    plt.close(fig)


def plot(lines, args):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    n = len(lines)
    if args.facet == "on" or (args.facet == "auto" and n > 8):
        plot_facets(lines, args, plt)
        return
    longest = max(len(pts) for _, pts in lines)
    shortest = max(1, min(len(pts) for _, pts in lines))
    logx = args.logx if args.logx is not None else (n > 1 and longest / shortest > 30)
    fig_h = args.height or 5.2
    fig_w = args.width or (10.5 if n > 6 else 9.0)
    fig, ax = plt.subplots(figsize=(fig_w, fig_h), dpi=args.dpi)
    colors = plt.get_cmap("tab10" if n <= 10 else "tab20")
    markers = ["o", "s", "^", "D", "v", "P", "X", "<", ">", "*"]
    styles = ["-", "--", "-.", ":"]
    for k, (label, pts) in enumerate(lines):
        xs = [s for s, _ in pts]
        ys = [c for _, c in pts]
        few = len(pts) <= 120
        ax.plot(
            xs,
            ys,
            label=f"{label} ({len(pts)} chunks)",
            color=colors(k % colors.N),
            linestyle=styles[(k // 10) % len(styles)],
            linewidth=1.4 + (0.9 * (n - 1 - k) if n <= 5 else 0),
            marker=markers[k % len(markers)] if few else None,
            # Lines drawn later are thinner, so one that coincides with an
            # earlier line leaves it visible around its edges.
            markersize=(4 if len(pts) <= 40 else 2.5) + (1.6 * (n - 1 - k) if n <= 5 else 0),
            drawstyle="default",
        )
    if logx:
        ax.set_xscale("symlog", linthresh=1)
    else:
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    if args.logy:
        ax.set_yscale("log")
    else:
        ax.set_ylim(bottom=0)
    ax.set_xlim(left=0)
    ax.set_xlabel("scheduling step i" + (" (symlog scale)" if logx else ""))
    ax.set_ylabel("chunk size [iterations]" + (" (log scale)" if args.logy else ""))
    ax.grid(color="0.9", linewidth=0.6)
    ax.set_axisbelow(True)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    if args.title:
        ax.set_title(args.title, fontsize=12)
    if n > 5:  # many lines: legend outside, to the right
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False, fontsize=8,
                  ncol=1 if n <= 16 else 2)
    else:
        ax.legend(loc="best", frameon=True, framealpha=0.9, fontsize=9)
    fig.tight_layout()
    fig.savefig(args.output, dpi=args.dpi)
    plt.close(fig)


def parse_args(argv):
    p = argparse.ArgumentParser(
        prog=PROG,
        description="Plot chunk size against scheduling step from lb4mpi-chunks --format csv output "
        "(or an lb4mpi trace CSV); several inputs give several lines.",
    )
    p.add_argument("inputs", nargs="+", metavar="CSV", help="CSV file, or - for standard input")
    p.add_argument("-o", "--output", default="chunks.png", help="image to write (default: chunks.png)")
    p.add_argument("--labels", nargs="+", metavar="LABEL", help="one label per input (default: file stems)")
    p.add_argument("--title", help="title of the plot")
    p.add_argument("--logy", action="store_true", help="logarithmic chunk-size axis")
    x = p.add_mutually_exclusive_group()
    x.add_argument("--logx", dest="logx", action="store_true", default=None,
                   help="symlog step axis (default: on when line lengths differ more than 30x)")
    x.add_argument("--linx", dest="logx", action="store_false", help="linear step axis")
    p.add_argument("--facet", choices=("auto", "on", "off"), default="auto",
                   help="one panel per line (default auto: when there are more than 8 lines)")
    p.add_argument("--width", type=float, help="figure width in inches")
    p.add_argument("--height", type=float, help="figure height in inches")
    p.add_argument("--dpi", type=int, default=150, help="resolution (default 150)")
    return p.parse_args(argv)


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    try:
        if args.labels and len(args.labels) != len(args.inputs):
            raise InputError(f"--labels gives {len(args.labels)} label(s) for {len(args.inputs)} input(s)")
        if args.dpi <= 0 or (args.width or 1) <= 0 or (args.height or 1) <= 0:
            raise InputError("--width, --height and --dpi must be positive")
        lines = []
        used_stdin = False
        for k, path in enumerate(args.inputs):
            stem, text = read_input(path, used_stdin)
            used_stdin = used_stdin or path == "-"
            base = args.labels[k] if args.labels else stem
            for suffix, pts in read_series(path if path != "-" else "stdin", text):
                if suffix is None:
                    label = base
                elif len(args.inputs) == 1 and not args.labels:
                    label = suffix
                else:
                    label = f"{base}: {suffix}"
                lines.append((label, sorted(pts)))
        problem = lb4mpi_python.rerun_with(["matplotlib"], PROG)  # pyenv's python3 first on PATH
        if problem:
            raise InputError(problem)
        out_dir = os.path.dirname(os.path.abspath(args.output))
        if not os.path.isdir(out_dir):
            raise InputError(f"cannot write '{args.output}': folder '{out_dir}' does not exist")
        plot(lines, args)
    except InputError as e:
        print(f"{PROG}: error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
