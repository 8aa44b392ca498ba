"""What the Python examples share (the counterpart of apps/common for the C++ apps):
finding the package lb4mpi, the scheduling flags, errors, the time steps of a
loop and the apps' JSON summary line.

Finding lb4mpi: an installed package, or PYTHONPATH=<build>/python; failing
both, the examples look for a build tree of this repository (build/release,
the one scripts/demo.sh makes, build/, then any build/*/) and use its
python/ folder. BUILD_DIR=<build> names one (as for scripts/demo.sh; not an
LB4MPI_* name, which lb4mpi would report as unknown).
"""
import argparse
import glob
import json
import os
import sys
import time

_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _build_trees():
    named = os.environ.get("BUILD_DIR")
    if named:
        return [named]
    return [os.path.join(_ROOT, "build", "release"), os.path.join(_ROOT, "build")] + sorted(
        glob.glob(os.path.join(_ROOT, "build", "*")))


def _rerun_with_built_for(package_dir):
    """The package records the Python it was built for (lb4mpi/_built_for.py,
    python/CMakeLists.txt). When this one lacks mpi4py or NumPy — pyenv's or
    a venv's python3 first on PATH — run the example again with that one
    (every rank does, before MPI starts); rank 0 says so on stderr."""
    import importlib.util
    if all(importlib.util.find_spec(m) is not None for m in ("mpi4py", "numpy")):
        return
    built_for = {}
    try:
        with open(os.path.join(package_dir, "_built_for.py")) as f:
            exec(f.read(), built_for)
    except OSError:
        return  # an older package: lb4mpi's own ImportError names what is missing
    python = built_for.get("PYTHON", "")
    if not python or not os.path.exists(python):
        return
    import subprocess  # that one has them (also when it is this one's binary, run with other flags)?
    if subprocess.run([python, "-c", "import mpi4py, numpy"], stdout=subprocess.DEVNULL,
                      stderr=subprocess.DEVNULL).returncode != 0:
        return  # lb4mpi's own ImportError names what is missing
    if os.environ.get("OMPI_COMM_WORLD_RANK", os.environ.get("PMI_RANK", "0")) == "0":
        print(f"{os.path.basename(sys.argv[0])}: {sys.executable} lacks mpi4py or NumPy; running with {python}, "
              "the Python lb4mpi was built for", file=sys.stderr, flush=True)
    path = os.path.dirname(package_dir)
    os.environ["PYTHONPATH"] = path + (os.pathsep + os.environ["PYTHONPATH"] if os.environ.get("PYTHONPATH") else "")
    os.execv(python, [python, os.path.abspath(sys.argv[0])] + sys.argv[1:])


def _find_lb4mpi():
    import importlib.util
    spec = importlib.util.find_spec("lb4mpi")  # installed, or on PYTHONPATH (does not import it)
    if spec is not None and spec.submodule_search_locations:
        _rerun_with_built_for(list(spec.submodule_search_locations)[0])
        return
    for tree in _build_trees():
        if glob.glob(os.path.join(tree, "python", "lb4mpi", "_core*.so")):
            sys.path.insert(0, os.path.join(tree, "python"))
            _rerun_with_built_for(os.path.join(tree, "python", "lb4mpi"))
            return
    sys.exit(f"{os.path.basename(sys.argv[0])}: the Python package lb4mpi is neither installed nor built here: "
             "build lb4mpi (bash scripts/demo.sh, or cmake -S . -B build && cmake --build build) and set "
             "PYTHONPATH=<build>/python (docs/PYTHON.md)")


_find_lb4mpi()
import lb4mpi  # noqa: E402  (first: it says what to do when this Python has no mpi4py)
from mpi4py import MPI  # noqa: E402


class Cli(argparse.ArgumentParser):
    """An argument parser whose help and errors only rank 0 prints (every rank
    parses the same arguments and exits alike), with the scheduling flags of
    the C++ apps (apps/README.md, "Common options")."""

    def __init__(self, description, comm=MPI.COMM_WORLD):
        super().__init__(description=description)
        self.comm = comm
        g = self.add_argument_group("scheduling (default: the LB4MPI_* variables, else lb4mpi's defaults)")
        g.add_argument("--technique", help="a technique name (lb4mpi.techniques()) or auto")
        g.add_argument("--mode", help="centralized, distributed or distributed-rma")
        g.add_argument("--min-chunk", type=int)
        g.add_argument("--max-chunk", type=int)
        g.add_argument("--break-after", type=int,
                       help="coordinator: iterations between checks for requests (-1: automatic)")
        g.add_argument("--request-when", type=int, help="worker: iterations left when it asks for more")
        g.add_argument("--robust", action="store_true", help="robust mode: results committed once")
        g.add_argument("--repeat", type=int, default=1, help="run the loop this many times (time steps)")

    def _print_message(self, message, file=None):
        if self.comm.rank == 0:
            super()._print_message(message, file)

    def options(self, args):
        """lb4mpi.Options: the LB4MPI_* variables, the flags on top."""
        flags = {"technique": args.technique, "mode": args.mode, "min_chunk": args.min_chunk,
                 "max_chunk": args.max_chunk, "break_after": args.break_after,
                 "request_when": args.request_when, "robust": args.robust or None}
        o = lb4mpi.Options.from_env()
        for k, v in flags.items():
            if v is not None:
                setattr(o, k, v)
        if args.repeat < 1:
            raise lb4mpi.Error(f"--repeat must be >= 1, got {args.repeat}")
        return o


def run(name, main):
    """Runs main(); an lb4mpi.Error (the same on every rank) is printed by rank 0
    and ends the program with exit code 2, as the C++ apps do."""
    try:
        main()
    except lb4mpi.Error as e:
        if MPI.COMM_WORLD.rank == 0:
            print(f"{name}: error: {e}", file=sys.stderr)
        sys.exit(2)


def run_steps(comm, n, options, repeat, chunk_sum):
    """Runs [0, n) `repeat` times with one lb4mpi.Loop (restarted for each
    step). chunk_sum(begin, end) computes a chunk and returns the sum of its
    checksum terms (an int mod 2^64). Robust mode: each chunk's sum is the
    chunk's result, committed once on the coordinator. Returns per step
    (report, checksum on rank 0, wall seconds)."""
    gather_hosts(comm)  # before the loop: a failed rank cannot hold the gather up
    steps = []
    loop = None
    for step in range(repeat):
        start = time.perf_counter()
        if loop is None:
            loop = lb4mpi.Loop(comm, 0, n, options=options)
        else:
            loop.restart(0, n)
        committed = [0]
        local = 0
        if options.robust:
            def commit(begin, end, data, committed=committed):
                committed[0] += int.from_bytes(data, "little")
            loop.on_commit(commit)
            for begin, end in loop:
                loop.result(chunk_sum(begin, end).to_bytes(8, "little"))
        else:
            for begin, end in loop:
                local += chunk_sum(begin, end)
        report = loop.finish()
        wall = time.perf_counter() - start
        total = committed[0] if options.robust else comm.reduce(local, op=MPI.SUM, root=0)
        steps.append((report, (total or 0) % 2**64, wall))
    return steps


_hosts = {}  # communicator handle -> each rank's processor name


def gather_hosts(comm):
    """Each rank's processor name, gathered once per communicator (collective
    the first time: call it before a loop runs, so that a rank that fails in
    robust mode cannot hold the gather up; run_steps does)."""
    key = MPI.Comm.py2f(comm)
    if key not in _hosts:
        _hosts[key] = comm.allgather(MPI.Get_processor_name())
    return _hosts[key]


def _imbalance_pct(xs):
    mean = sum(xs) / len(xs) if xs else 0.0
    return (max(xs) / mean - 1.0) * 100.0 if mean > 0 else 0.0


def _cov(xs):
    if len(xs) < 2:
        return 0.0
    mean = sum(xs) / len(xs)
    if mean <= 0:
        return 0.0
    return (sum((x - mean) ** 2 for x in xs) / len(xs)) ** 0.5 / mean


BALANCE = ("busy_imbalance_pct", "busy_cov", "finish_imbalance_pct", "finish_cov", "busy_pct",
           "scheduling_pct", "idle_pct")


def _balance(d):
    """The balance figures of one report (docs/METRICS.md), as the C++ apps
    compute them (apps/common/summary.cpp, balance_of)."""
    ranks = [r for r in d["ranks"] if not r.get("failed")]
    busy = [r["work_time"] for r in ranks]
    waiting = [max(0.0, r["overhead"] - r["serve_time"]) for r in ranks]
    total = len(ranks) * d["t_par"]
    b = {"busy_imbalance_pct": _imbalance_pct(busy), "busy_cov": _cov(busy),
         "finish_imbalance_pct": d["load_imbalance_percent"], "finish_cov": d["finish_cov"],
         "busy_pct": 0.0, "scheduling_pct": 0.0, "idle_pct": 0.0}
    if total > 0:
        b["busy_pct"] = 100.0 * sum(busy) / total
        b["scheduling_pct"] = 100.0 * sum(w + r["serve_time"] for w, r in zip(waiting, ranks)) / total
        b["idle_pct"] = 100.0 * sum(r["idle_time"] for r in ranks) / total
    return b


def summary(app, comm, options, n, steps, params):
    """The JSON summary of the C++ apps, with every key of the schema
    apps/README.md documents ("The JSON summary")."""
    p = comm.size
    per_rank = {k: [0] * p for k in ("iterations", "work_time", "overhead", "idle_time", "serve_time",
                                     "waiting_time")}
    jsteps = []
    failed = []
    for report, checksum, wall in steps:
        d = report.to_dict()
        for r in d["ranks"]:
            r["waiting_time"] = max(0.0, r["overhead"] - r["serve_time"])
        step = {"technique": d["technique"], "t_par_s": d["t_par"], "wall_s": wall,
                "checksum": f"0x{checksum:016x}", "chunks": d["chunks"],
                "load_imbalance_pct": d["load_imbalance_percent"], "cov_finish": d["finish_cov"],
                "failed_ranks": d["failed_ranks"], "coordinator": d["coordinator"],
                "reissued_chunks": d["reissued_chunks"]}
        if d["selection"]:
            step["selection"] = d["selection"]
        for k in ("iterations", "work_time", "overhead", "finish_time", "idle_time", "serve_time",
                  "calculations", "waiting_time"):
            step[f"{k}_per_rank"] = [r[k] for r in d["ranks"]]
        step.update(_balance(d))
        for k, totals in per_rank.items():
            for r, rank in enumerate(d["ranks"]):
                totals[r] += rank[k]
        failed += [r for r in d["failed_ranks"] if r not in failed]
        jsteps.append(step)
    k = len(steps)
    s = {
        "app": app, "technique": options.technique, "mode": options.mode, "ranks": p,
        "hosts": gather_hosts(comm), "repeat": k, "loop_iterations": n, "iterations": n * k,
        "t_par_s": sum(s["t_par_s"] for s in jsteps), "wall_s": sum(s["wall_s"] for s in jsteps),
        "checksum": jsteps[0]["checksum"], "checksum_consistent": all(s["checksum"] == jsteps[0]["checksum"]
                                                                      for s in jsteps),
        "robust": options.robust, "failed_ranks": failed, "coordinator": jsteps[-1]["coordinator"],
        "reissued_chunks": sum(s["reissued_chunks"] for s in jsteps),
        "chunks": sum(s["chunks"] for s in jsteps),
        "load_imbalance_pct": sum(s["load_imbalance_pct"] for s in jsteps) / k,
        "cov_finish": sum(s["cov_finish"] for s in jsteps) / k,
        "iterations_per_rank": per_rank["iterations"],
        "work_time_per_rank": per_rank["work_time"], "overhead_per_rank": per_rank["overhead"],
        "idle_time_per_rank": per_rank["idle_time"], "serve_time_per_rank": per_rank["serve_time"],
        "waiting_time_per_rank": per_rank["waiting_time"],
    }
    s.update({f: sum(step[f] for step in jsteps) / k for f in BALANCE})
    s.update({
        "steps": jsteps,
        "options": {"min_chunk": options.min_chunk, "max_chunk": options.max_chunk,
                    "break_after": options.break_after, "request_when": options.request_when,
                    "inject_delay_us": options.inject_delay_us, "delay_ranks": options.delay_ranks,
                    "coordinator": options.coordinator},
        "params": params,
    })
    return s


def print_summary(comm, s):
    """Rank 0 prints the summary on one line of stdout."""
    if comm.rank == 0:
        print(json.dumps(s), flush=True)
