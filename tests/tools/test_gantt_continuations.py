#!/usr/bin/env python3
"""lb4mpi_gantt.py on a hand-made trace of two loops in flight together.

    test_gantt_continuations.py path/to/lb4mpi_gantt.py OUTPUT_DIR

The trace (JSON and the equivalent CSV) holds chunk, continuation and serve
events. Checks that both forms read alike, that continuations are read as
their own kind (drawn, not counted as chunks: N per execution comes from the
chunk events only) and that a PNG is written. Exit code 0 when all is well.
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

    # rank 0: loop 0 chunk [0,60) in two runs around a loop 1 piece, a serve
    # interval inside its first run; rank 1: the rest of both loops.
    events = [
        # kind, rank, loop, start, size, t0 [us], t1 [us]
        ("chunk", 0, 0, 0, 60, 0.0, 10.0),
        ("serve", 0, 0, 0, 0, 4.0, 5.0),
        ("chunk", 0, 1, 0, 30, 10.0, 14.0),
        ("continuation", 0, 0, 0, 60, 14.0, 20.0),
        ("chunk", 1, 0, 60, 40, 0.5, 12.0),
        ("chunk", 1, 1, 30, 70, 12.0, 19.0),
    ]
    doc = {"displayTimeUnit": "ms", "traceEvents": [
        {"ph": "M", "name": "process_name", "pid": 0, "args": {"name": "lb4mpi"}},
        {"ph": "M", "name": "thread_name", "pid": 0, "tid": 0, "args": {"name": "rank 0"}},
        {"ph": "M", "name": "thread_name", "pid": 0, "tid": 1, "args": {"name": "rank 1"}},
    ]}
    csv_lines = ["kind,rank,loop,step,technique,mode,start,size,t_request_s,t_begin_s,t_end_s"]
    for kind, rank, loop, start, size, t0, t1 in events:
        e = {"cat": kind, "ph": "X", "pid": 0, "tid": rank, "ts": t0, "dur": t1 - t0,
             "args": {"loop": loop, "step": 0}}
        if kind == "serve":
            e["name"] = "serve requests"
        else:
            e["name"] = f"loop {loop}" + (" (continued)" if kind == "continuation" else "")
            e["args"].update({"start": start, "size": size, "technique": "GSS", "mode": "centralized"})
            if kind == "continuation":
                e["args"]["continued"] = True
        doc["traceEvents"].append(e)
        csv_lines.append(f"{kind},{rank},{loop},0,GSS,centralized,{start},{size},"
                         f"{t0 * 1e-6:.9f},{t0 * 1e-6:.9f},{t1 * 1e-6:.9f}")
    json_path = os.path.join(out_dir, "continuations.json")
    csv_path = os.path.join(out_dir, "continuations.csv")
    with open(json_path, "w", encoding="utf-8") as f:
        json.dump(doc, f)
    with open(csv_path, "w", encoding="utf-8") as f:
        f.write("\n".join(csv_lines) + "\n")

    errors = []
    read = {}
    for path in (json_path, csv_path):
        evs, ranks = gantt.read_trace(path)
        kinds = sorted(e.kind for e in evs)
        want = sorted(k for k, *_ in events)
        if kinds != want:
            errors.append(f"{path}: kinds {kinds}, expected {want}")
        if ranks != {0, 1}:
            errors.append(f"{path}: ranks {ranks}")
        cont = [e for e in evs if e.kind == "continuation"]
        if len(cont) != 1 or (cont[0].start, cont[0].size, cont[0].loop) != (0, 60, 0):
            errors.append(f"{path}: continuation read as {cont}")
        title = gantt.describe(evs, ranks)
        if "N = 100" not in title:  # 60 + 40 and 30 + 70: continuations add nothing
            errors.append(f"{path}: title {title!r} does not say N = 100")
        read[path] = sorted((e.kind, e.rank, e.loop, e.start, e.size, round(e.t0 * 1e9), round(e.t1 * 1e9))
                            for e in evs)
    if read[json_path] != read[csv_path]:
        errors.append(f"JSON and CSV differ:\n{read[json_path]}\n{read[csv_path]}")

    if importlib.util.find_spec("matplotlib") is not None:
        png = os.path.join(out_dir, "continuations.png")
        if os.path.exists(png):
            os.remove(png)
        rc = gantt.main([json_path, "-o", png])
        if rc != 0:
            errors.append(f"lb4mpi_gantt.py exited {rc}")
        else:
            with open(png, "rb") as f:
                if f.read(8) != b"\x89PNG\r\n\x1a\n":
                    errors.append(f"{png} is not a PNG")

    for e in errors:
        print("FAIL " + e, file=sys.stderr)
    print("gantt continuations: " + ("all good" if not errors else f"{len(errors)} problems"))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
