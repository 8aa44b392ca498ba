#!/usr/bin/env python3
"""A task farm: a loop over parameter sets (or files of them), each task a
whole computation of its own, its result collected once on the coordinator.

    mpiexec -n 4 python3 examples/python/task_farm.py                       # a built-in set of tasks
    mpiexec -n 4 python3 examples/python/task_farm.py --tasks tasks.jsonl   # one parameter set per line
    mpiexec -n 4 python3 examples/python/task_farm.py --task-dir inputs/    # one parameter set per *.json file

A task here is a Mandelbrot image (mandelbrot_numpy.py) of its own width and
threshold, e.g. {"width": 128, "threshold": 500}; tasks differ in cost by
orders of magnitude, the case self-scheduling is for. Iteration i of the
loop is task i; its result, the image's checksum, is returned by the body
and committed once, on the coordinator (lb4mpi.parallel_for's `commit`;
with --robust, also when a task ran twice). Without a technique given
(--technique, LB4MPI_SCHEDULING) it is SS: one task at a time. --out-dir
writes each task's counts as task_<i>.npy.

Rank 0 prints one JSON summary line like the C++ apps (common.summary), with
`tasks`: each task's parameters and checksum, which is the one
`lb4mpi-mandelbrot --width W --threshold T` prints for that image; the
summary's `checksum` is their sum mod 2^64.
"""
import glob
import json
import os
import time

from common import Cli, MPI, gather_hosts, lb4mpi, print_summary, run, summary  # common finds lb4mpi (first: the Python)
import numpy as np  # noqa: E402
from mandelbrot_numpy import Params, checksum, escape_counts, hex64

# The built-in tasks: widths x thresholds, cheap and dear mixed.
DEFAULT_TASKS = [{"width": w, "threshold": t} for t in (100, 400, 1600) for w in (64, 96, 128, 160)]


def read_tasks(args):
    """The parameter sets: of --tasks (JSON lines), of --task-dir (*.json files, sorted), or the built-in ones."""
    if args.tasks and args.task_dir:
        raise lb4mpi.Error("--tasks and --task-dir: give one")
    if args.tasks:
        with open(args.tasks) as f:
            tasks = [json.loads(line) for line in f if line.strip()]
    elif args.task_dir:
        files = sorted(glob.glob(os.path.join(args.task_dir, "*.json")))
        tasks = []
        for name in files:
            with open(name) as f:
                tasks.append(dict(json.load(f), file=os.path.basename(name)))
    else:
        tasks = DEFAULT_TASKS
    if not tasks:
        raise lb4mpi.Error("no tasks")
    params = []
    for i, t in enumerate(tasks):
        try:
            p = Params(width=int(t["width"]), threshold=int(t["threshold"]))
            p.validate()
        except (KeyError, ValueError, TypeError) as e:
            raise lb4mpi.Error(f"task {i} ({t}): needs a width and a threshold >= 1: {e}") from e
        params.append(p)
    return tasks, params


def main():
    comm = MPI.COMM_WORLD
    cli = Cli("A task farm over parameter sets (Mandelbrot images), load-balanced across MPI ranks by lb4mpi")
    cli.add_argument("--tasks", help="a file of parameter sets, one JSON object per line")
    cli.add_argument("--task-dir", help="a folder of parameter sets, one JSON object per *.json file")
    cli.add_argument("--out-dir", help="write each task's counts to <out-dir>/task_<i>.npy")
    args = cli.parse_args()
    if args.repeat != 1:
        raise lb4mpi.Error("--repeat: a task farm runs its tasks once")
    # Every rank reads the tasks: a missing file fails on every rank alike.
    try:
        tasks, params = read_tasks(args)
    except OSError as e:
        raise lb4mpi.Error(str(e)) from e
    options = cli.options(args)
    if args.technique is None and "LB4MPI_SCHEDULING" not in os.environ:
        options.technique = "SS"

    results = {}  # on the coordinator: task -> checksum

    def body(begin, end):
        out = []
        for i in range(begin, end):
            counts = escape_counts(params[i], 0, params[i].iterations)
            if args.out_dir:
                np.save(os.path.join(args.out_dir, f"task_{i:04d}.npy"), counts)
            out.append(checksum(0, counts))
        return out

    def commit(begin, end, sums):
        for i, s in zip(range(begin, end), sums):
            assert i not in results, f"task {i} committed twice"
            results[i] = s

    if args.out_dir and comm.rank == 0:
        os.makedirs(args.out_dir, exist_ok=True)
    comm.Barrier()
    gather_hosts(comm)  # for the summary, before the loop (a failed rank cannot hold it up)
    start = time.perf_counter()
    report = lb4mpi.parallel_for(comm, 0, len(tasks), body, commit=commit, options=options)
    wall = time.perf_counter() - start
    # The committing rank (the coordinator) has every result; rank 0 prints them.
    results = comm.bcast(results, root=options.coordinator)
    if sorted(results) != list(range(len(tasks))):
        raise lb4mpi.Error(f"results of {len(results)} of {len(tasks)} tasks")
    total = sum(results.values()) % 2**64
    s = summary("task_farm", comm, options, len(tasks), [(report, total, wall)],
                {"tasks_from": args.tasks or args.task_dir or "built-in"})
    s["tasks"] = [dict(t, checksum=hex64(results[i])) for i, t in enumerate(tasks)]
    print_summary(comm, s)


if __name__ == "__main__":
    run("task_farm.py", main)
