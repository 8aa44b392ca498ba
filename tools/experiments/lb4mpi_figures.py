"""The figures of an experiment (tools/experiments/lb4mpi_experiment.py): one
PNG per figure of the design, from the rows of its runs.csv.

A figure of the design:
  {"name": "tpar", "kind": "bars" | "box" | "lines", "x": FACTOR,
   "hue": FACTOR, "panels": FACTOR, "y": COLUMN (default t_par_s),
   "filter": {FACTOR: LEVEL, ...}, "title": TEXT, "ylabel": TEXT,
   "logx": true, "logy": true}

  bars   per x level one bar per hue level: the median over the repetitions,
         the whiskers their minimum and maximum (`001` Fig. 4-5)
  box    per x level one box per hue level over the repetitions (`003`
         Fig. 5.2-5.3, `004` Fig. 3)
  lines  x numeric (rank counts): one line per hue level through the medians
  panels one subplot per level of that factor, side by side

When the runs know the lower bound of their workload (the synthetic app:
max(sum t_i / P, max t_i), column t_par_over_bound), the figure gets a
second row: T_par / lower bound in the same layout, with the bound at 1.
"""
from __future__ import annotations

import statistics
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

LABELS = {
    "t_par_s": "T_par [s]", "wall_s": "time of all steps [s]", "t_par_over_bound": "T_par / lower bound",
    "handout_us_mean": "mean chunk hand-out [us]", "handout_us_median": "median chunk hand-out [us]",
    "handout_us_p95": "95th percentile chunk hand-out [us]", "chunks": "chunks",
    "load_imbalance_pct": "load imbalance [%]", "host_cpu_s": "host CPU time [s]",
}
COLOURS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f"]


def _number(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return None


def _levels(design: dict, factor: str | None) -> list:
    if factor is None:
        return [None]
    return [v["name"] if isinstance(v, dict) else v for v in design["factors"][factor]]


def _same(row_value, level) -> bool:
    return str(row_value) == str(level)


def _select(rows, **cond):
    return [r for r in rows if all(k is None or _same(r.get(k), v) for k, v in cond.items())]


# At least 960 pixels wide (6.4 in), 900 tall per panel row pair (issue 34:
# 72 dpi and 5 in gave 360 x 432 pixels).
DPI = 150


def draw(design: dict, spec: dict, rows: list[dict], out: Path) -> Path | None:
    """Draws one figure into out/<name>.png; None when no run has its data."""
    rows = [r for r in rows if r.get("status") == "ok"]
    for k, v in spec.get("filter", {}).items():
        rows = [r for r in rows if _same(r.get(k), v)]
    y = spec.get("y", "t_par_s")
    rows = [r for r in rows if _number(r.get(y)) is not None]
    if not rows:
        return None
    metrics = [y]
    if y == "t_par_s" and any(_number(r.get("t_par_over_bound")) for r in rows):
        metrics.append("t_par_over_bound")
    panels = _levels(design, spec.get("panels"))
    panels = [p for p in panels if p is None or _select(rows, **{spec["panels"]: p})]
    xs = [x for x in _levels(design, spec["x"]) if _select(rows, **{spec["x"]: x})]
    width = max(6.4, min(16.0, 1.2 + len(panels) * (0.35 * len(xs) + 1.5)))
    fig, axes = plt.subplots(len(metrics), len(panels), figsize=(width, 3.0 * len(metrics)), squeeze=False,
                             sharex="col")
    for row_i, metric in enumerate(metrics):
        for col_i, panel in enumerate(panels):
            ax = axes[row_i][col_i]
            sub = rows if panel is None else _select(rows, **{spec["panels"]: panel})
            _plot(ax, design, spec, sub, metric, xs)
            if row_i == 0 and panel is not None:
                ax.set_title(f"{spec['panels']} = {panel}", fontsize=9)
            if col_i == 0:
                ax.set_ylabel(spec.get("ylabel", LABELS.get(metric, metric)) if metric == y
                              else LABELS[metric], fontsize=9)
            if metric == "t_par_over_bound":
                ax.axhline(1.0, color="black", linewidth=0.8, linestyle="--")
            if row_i == len(metrics) - 1:
                ax.set_xlabel(spec["x"], fontsize=9)
            ax.tick_params(labelsize=8)
            ax.grid(axis="y", alpha=0.3)
    hue = spec.get("hue")
    if hue:
        handles = [plt.Rectangle((0, 0), 1, 1, color=COLOURS[i % len(COLOURS)])
                   for i, _ in enumerate(_levels(design, hue))]
        fig.legend(handles, [f"{hue} = {h}" for h in _levels(design, hue)], loc="upper right", fontsize=8,
                   ncol=min(4, len(handles)), frameon=False,
                   bbox_to_anchor=(1.0, 1.0 - (0.28 / fig.get_size_inches()[1] if spec.get("title") else 0.0)))
    if spec.get("title"):
        fig.suptitle(spec["title"], fontsize=10, x=0.01, y=0.995, ha="left")
    height = fig.get_size_inches()[1]
    top = 1.0 - ((0.3 if spec.get("title") else 0.0) + (0.25 if hue else 0.0)) / height
    fig.tight_layout(rect=(0, 0, 1, top))
    path = out / f"{spec['name']}.png"
    fig.savefig(path, dpi=DPI)
    plt.close(fig)
    return path


def _plot(ax, design, spec, rows, metric, xs):
    hue = spec.get("hue")
    hues = _levels(design, hue)
    kind = spec["kind"]
    if kind == "lines":
        for i, h in enumerate(hues):
            pts = []
            for x in xs:
                vals = [_number(r[metric]) for r in _select(rows, **{spec["x"]: x, hue: h} if hue
                                                            else {spec["x"]: x})]
                vals = [v for v in vals if v is not None]
                if vals:
                    pts.append((float(x), statistics.median(vals)))
            if pts:
                ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", color=COLOURS[i % len(COLOURS)])
        if spec.get("logx"):
            ax.set_xscale("log", base=2)
        ax.set_xticks([float(x) for x in xs])
        ax.set_xticklabels([str(x) for x in xs])
    else:
        group = 0.8
        w = group / len(hues)
        for i, h in enumerate(hues):
            data, pos = [], []
            for k, x in enumerate(xs):
                vals = [_number(r[metric]) for r in _select(rows, **({spec["x"]: x, hue: h} if hue
                                                                     else {spec["x"]: x}))]
                vals = [v for v in vals if v is not None]
                if vals:
                    data.append(vals)
                    pos.append(k - group / 2 + w * (i + 0.5))
            colour = COLOURS[i % len(COLOURS)]
            if not data:
                continue
            if kind == "box":
                bp = ax.boxplot(data, positions=pos, widths=w * 0.9, patch_artist=True, showfliers=True,
                                flierprops={"markersize": 2})
                for b in bp["boxes"]:
                    b.set_facecolor(colour)
                    b.set_alpha(0.8)
            else:
                med = [statistics.median(v) for v in data]
                lo = [m - min(v) for m, v in zip(med, data)]
                hi = [max(v) - m for m, v in zip(med, data)]
                ax.bar(pos, med, width=w * 0.9, color=colour, yerr=[lo, hi] if any(lo + hi) else None,
                       capsize=1.5, error_kw={"linewidth": 0.6})
        ax.set_xticks(range(len(xs)))
        ax.set_xticklabels([str(x) for x in xs], rotation=60 if len(xs) > 6 else 0, fontsize=8)
        ax.set_xlim(-0.6, len(xs) - 0.4)
    if spec.get("logy"):
        ax.set_yscale("log")
