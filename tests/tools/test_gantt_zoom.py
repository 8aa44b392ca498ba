#!/usr/bin/env python3
"""lb4mpi_gantt.py's --loop/--step zoom (issue 34): the time axis of a chart
of one loop spans that loop, not the whole run.

    test_gantt_zoom.py path/to/lb4mpi_gantt.py OUTPUT_DIR

Three loops one after another (0-10 ms, 10-30 ms, 30-80 ms): without a
selection the axis starts at 0 and ends at 80 ms; with --loop 1 it spans
10-30 ms, also as read from a trace file. (gantt_csv_one_step draws a
zoomed chart.) Exit code 0 when all is well.
"""
import importlib.util
import json
import os
import sys


def main():
    gantt_path, out_dir = sys.argv[1], sys.argv[2]
    spec = importlib.util.spec_from_file_location("lb4mpi_gantt", gantt_path)
    gantt = importlib.util.module_from_spec(spec)
    sys.modules["lb4mpi_gantt"] = gantt  # its dataclass looks its module up
    spec.loader.exec_module(gantt)
    E = gantt.Event
    events = [E("chunk", r, L, 0, t0 + 0.001 * r, t1, start=100 * r, size=100)
              for L, (t0, t1) in enumerate([(0.0, 0.010), (0.010, 0.030), (0.030, 0.080)]) for r in (0, 1)]
    problems = []
    whole = gantt.time_window(events, False)
    if whole != (0.0, 0.080):
        problems.append(f"whole run: axis {whole}, expected (0.0, 0.08)")
    loop1 = gantt.time_window([e for e in events if e.loop == 1], True)
    if loop1 != (0.010, 0.030):
        problems.append(f"--loop 1: axis {loop1}, expected (0.01, 0.03)")
    # End to end: a trace file, --loop 1.
    doc = {"displayTimeUnit": "ms", "traceEvents": []}
    for e in events:
        doc["traceEvents"].append({"ph": "X", "name": "chunk", "cat": "chunk", "pid": 0, "tid": e.rank, "ts": e.t0 * 1e6,
                                   "dur": (e.t1 - e.t0) * 1e6, "args": {"loop": e.loop, "step": 0,
                                   "start": e.start, "size": e.size, "technique": "FAC2", "mode": "centralized"}})
    trace = os.path.join(out_dir, "zoom_trace.json")
    with open(trace, "w") as f:
        json.dump(doc, f)
    read, _ = gantt.read_trace(trace)
    got = gantt.time_window([e for e in read if e.loop == 1], True)
    if abs(got[0] - 0.010) > 1e-9 or abs(got[1] - 0.030) > 1e-9:
        problems.append(f"--loop 1 of the trace file: axis {got}, expected (0.01, 0.03)")
    for p in problems:
        print("FAILED: " + p)
    print("ok" if not problems else f"{len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
