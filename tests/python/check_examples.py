#!/usr/bin/env python3
"""The Python examples against the C++ app (ctest python.examples):

1. examples/python/mandelbrot.py on 1 and 3 ranks in each mode (and time
   steps) must print a valid app summary (apps/common/check_app.py) whose
   checksum is the one lb4mpi-mandelbrot prints for the same width and
   threshold; a bad technique must fail with exit code 2 naming the valid ones;
2. examples/python/task_farm.py over parameter sets, from a JSON-lines file
   and from a folder of files (robust mode), on 3 ranks: each task's
   checksum must be lb4mpi-mandelbrot's for that width and threshold.

  check_examples.py --mpiexec mpiexec --python /usr/bin/python3 --app build/apps/lb4mpi-mandelbrot \
      --examples examples/python --check-app apps/common/check_app.py --work build/tests/python
"""
import argparse
import json
import os
import subprocess
import sys

SIZE = ["--width", "72", "--threshold", "300"]
TASKS = [{"width": 40, "threshold": 500}, {"width": 72, "threshold": 300}, {"width": 56, "threshold": 200}]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mpiexec", required=True)
    ap.add_argument("--np-flag", default="-n")
    ap.add_argument("--preflag", action="append", default=[])
    ap.add_argument("--python", required=True)
    ap.add_argument("--app", required=True, help="lb4mpi-mandelbrot")
    ap.add_argument("--examples", required=True)
    ap.add_argument("--check-app", required=True)
    ap.add_argument("--work", required=True)
    a = ap.parse_args()
    errors = []

    def launch(np, *cmd):
        return [a.mpiexec, a.np_flag, str(np), *a.preflag, *cmd]

    def summary(cmd):
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=100)
        lines = [line for line in p.stdout.splitlines() if line.startswith("{")]
        if p.returncode != 0 or len(lines) != 1:
            errors.append(f"{' '.join(cmd)}: exit {p.returncode}, {len(lines)} JSON lines\n{p.stdout}\n{p.stderr}")
            return None
        return json.loads(lines[0])

    references = {}

    def reference(width, threshold):
        key = (str(width), str(threshold))
        if key not in references:
            s = summary(launch(1, a.app, "--width", key[0], "--threshold", key[1]))
            references[key] = s and s["checksum"]
        return references[key]

    # 1. mandelbrot.py through the apps' checker, against the C++ checksum.
    expected = reference(SIZE[1], SIZE[3])
    if expected:
        example = os.path.join(a.examples, "mandelbrot.py")
        common = [sys.executable, a.check_app, f"--mpiexec={a.mpiexec}", f"--np-flag={a.np_flag}",
                  f"--exe={a.python}", *[f"--preflag={f}" for f in a.preflag], f"--postflag={example}",
                  "--timeout=100"]
        runs = ["1:STATIC", "3:FAC2:centralized", "3:GSS:distributed:--repeat=2", "3:AF:distributed-rma"]
        p = subprocess.run([*common, *[f"--run={r}" for r in runs], f"--expect-checksum={expected}", "--", *SIZE])
        if p.returncode != 0:
            errors.append("mandelbrot.py: check_app.py failed (above)")
        p = subprocess.run([*common, "--run=3:FAC3", "--expect-exit=2",
                            "--expect-stderr=unknown scheduling technique 'FAC3'; valid names: STATIC", "--", *SIZE])
        if p.returncode != 0:
            errors.append("mandelbrot.py --technique FAC3: check_app.py failed (above)")

    # 2. task_farm.py: a file of parameter sets, and a folder of files.
    os.makedirs(os.path.join(a.work, "task_dir"), exist_ok=True)
    tasks_file = os.path.join(a.work, "tasks.jsonl")
    with open(tasks_file, "w") as f:
        f.writelines(json.dumps(t) + "\n" for t in TASKS)
    for i, t in enumerate(TASKS):
        with open(os.path.join(a.work, "task_dir", f"input_{i}.json"), "w") as f:
            json.dump(t, f)
    expect = [reference(t["width"], t["threshold"]) for t in TASKS]
    farm = os.path.join(a.examples, "task_farm.py")
    for args in (["--tasks", tasks_file, "--mode", "distributed"],
                 ["--task-dir", os.path.join(a.work, "task_dir"), "--robust", "--technique", "GSS"]):
        s = summary(launch(3, a.python, farm, *args))
        if s is None:
            continue
        got = [t["checksum"] for t in s["tasks"]]
        total = sum(int(c, 16) for c in expect if c) % 2**64
        if got != expect or s["checksum"] != f"0x{total:016x}" or s["iterations"] != len(TASKS):
            errors.append(f"task_farm.py {' '.join(args)}: checksums {got} (sum {s['checksum']}), "
                          f"lb4mpi-mandelbrot's {expect}")
        else:
            print(f"task_farm.py {' '.join(args)}: {len(got)} tasks, checksums as lb4mpi-mandelbrot's: {got}")

    for e in errors:
        print("FAIL " + e, file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
