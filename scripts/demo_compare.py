#!/usr/bin/env python3
"""The main demo: Mandelbrot on 4 ranks with a few techniques, side by side.

Runs lb4mpi-mandelbrot once per technique, reads the JSON summary each run
prints, and shows T_par, how balanced the work was (percent imbalance of the
ranks' busy time: max/mean - 1 of the seconds each rank spent executing
iterations), how much of the ranks' time went to scheduling (waiting for
chunks, or serving them on the coordinator), the chunks and the checksum
(identical for every technique); then, for FAC2, where each rank's time went.
The figures are defined in docs/METRICS.md. Then it traces one run and draws
the schedule (Gantt chart) and the chunk sizes of three techniques.

  demo_compare.py BUILD_DIR OUT_DIR [--ranks 4] [--width 384] [--threshold 2000]
"""
import argparse
import json
import os
import shutil
import subprocess
import sys


def run(cmd, env=None):
    p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        sys.stderr.write(p.stdout + p.stderr)
        sys.exit(f"demo: command failed ({p.returncode}): {' '.join(cmd)}")
    return p.stdout


def summary_of(out):
    for line in out.splitlines():
        line = line.strip()
        if line.startswith("{") and '"app"' in line:
            return json.loads(line)
    sys.exit("demo: no JSON summary in the output")


def print_breakdown(s):
    """Where each rank's time went (% of T_par): busy + waiting + serving + idle = 100."""
    t = s["t_par_s"]
    if t <= 0:
        return
    print(f"\n{s['technique']}, where each rank's time went (% of T_par = {t:.3f} s):")
    print(f"{'rank':>6} {'busy':>7} {'waiting':>8} {'serving':>8} {'idle':>7}")
    for r, (busy, wait, serve, idle) in enumerate(zip(s["work_time_per_rank"], s["waiting_time_per_rank"],
                                                       s["serve_time_per_rank"], s["idle_time_per_rank"])):
        print(f"{r:>6} {100 * busy / t:>6.1f}% {100 * wait / t:>7.1f}% {100 * serve / t:>7.1f}% "
              f"{100 * idle / t:>6.1f}%")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("out")
    ap.add_argument("--ranks", type=int, default=4)
    ap.add_argument("--width", type=int, default=384)
    ap.add_argument("--threshold", type=int, default=2000)
    ap.add_argument("--techniques", default="STATIC,SS,GSS,TSS,FAC2,AWF-B,AF")
    ap.add_argument("--mpiexec", default=shutil.which("mpiexec") or "mpiexec")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    app = os.path.join(a.build, "apps", "lb4mpi-mandelbrot")
    base = [a.mpiexec, "-n", str(a.ranks), app, "--width", str(a.width), "--threshold", str(a.threshold)]

    print(f"Mandelbrot z^4 + c, {a.width} x {a.width} = {a.width * a.width} iterations, "
          f"conversion threshold {a.threshold}, {a.ranks} ranks, centralized (master-worker)\n")
    header = (f"{'technique':<10} {'T_par [s]':>10} {'imbalance':>10} {'scheduling':>10} {'chunks':>8} "
              f"{'iterations per rank':<34} checksum")
    print(header)
    print("-" * len(header))
    checksums = set()
    summaries = {}
    for t in a.techniques.split(","):
        s = summary_of(run(base + ["--technique", t]))
        summaries[t] = s
        checksums.add(s["checksum"])
        per_rank = ",".join(str(x) for x in s["iterations_per_rank"])
        print(f"{s['technique']:<10} {s['t_par_s']:>10.3f} {s['busy_imbalance_pct']:>9.1f}% "
              f"{s['scheduling_pct']:>9.1f}% {s['chunks']:>8} {per_rank:<34} {s['checksum']}")
    print("\nimbalance:  max/mean - 1 of the ranks' busy time (seconds executing iterations);"
          "\n            0 % only when every rank computed equally long")
    print("scheduling: share of all ranks' time (P x T_par) spent waiting for chunks or, on the"
          "\n            coordinator, serving them; the rest of it is busy or idle at the end")
    if "FAC2" in summaries:
        print_breakdown(summaries["FAC2"])
    print(f"\nchecksums agree across techniques: {'yes' if len(checksums) == 1 else 'NO'}")
    if len(checksums) != 1:
        sys.exit(1)

    # One traced run, its schedule, and the chunk sizes of three techniques.
    trace = os.path.join(a.out, "trace.json")
    if os.path.exists(trace):
        os.remove(trace)
    env = dict(os.environ, LB4MPI_TRACE=trace)
    run(base + ["--technique", "FAC2"], env=env)
    plot = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools", "plot")
    py = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable
    gantt = os.path.join(a.out, "gantt.png")
    run([py, os.path.join(plot, "lb4mpi_gantt.py"), trace, "-o", gantt,
         "--title", f"Mandelbrot {a.width}x{a.width}, FAC2, {a.ranks} ranks"])
    chunks_tool = os.path.join(a.build, "tools", "lb4mpi-chunks")
    csvs = []
    for t in ("GSS", "FAC2", "TSS"):
        path = os.path.join(a.out, f"chunks_{t}.csv")
        with open(path, "w") as f:
            f.write(run([chunks_tool, "--technique", t, "--iterations", "1000", "--ranks", "4",
                         "--format", "csv"]))
        csvs.append(path)
    chunk_png = os.path.join(a.out, "chunks.png")
    run([py, os.path.join(plot, "lb4mpi_chunk_plot.py"), *csvs, "-o", chunk_png, "--labels", "GSS", "FAC2", "TSS"])
    print(f"\nPerfetto trace (open at ui.perfetto.dev): {trace}")
    print(f"Gantt chart of that run:                  {gantt}")
    print(f"chunk sizes of GSS, FAC2, TSS (N=1000, P=4): {chunk_png}")


if __name__ == "__main__":
    main()
