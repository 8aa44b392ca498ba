#!/usr/bin/env python3
"""Runs a program of lb4mpi's simulation build (cmake -DLB4MPI_SIMGRID=ON) on
a simulated miniHPC, with SimGrid's smpirun and the SMPI settings below.

  tools/sim/lb4mpi_simrun.py -n 256 build/sim/apps/lb4mpi-synthetic --iterations 262144 --technique FAC2
  tools/sim/lb4mpi_simrun.py -n 1024 --cfg smpi/simulate-computation:yes build/sim/apps/lb4mpi-psia --points 4000

The program's stdout and stderr pass through; the exit code is the program's
(124 after --timeout). Options before the program:

  -n, --ranks P          simulated ranks (16 per node, as in the papers)
  --platform NAME        minihpc (default): 16 nodes up to 256 ranks, 64
                         nodes up to 1024, 256 nodes up to 4096 (tools/sim/platforms/)
  --cfg KEY:VALUE        another SMPI option (repeatable; later ones win)
  --timeout S            host seconds before the run is killed (default none)
  --print-command        print the smpirun command on stderr first

The platform files and the SMPI settings, with the sources of their figures,
are described in tools/sim/README.md. As a module, smpirun_command() and
run() serve the experiment runner (tools/experiments/lb4mpi_experiment.py).
"""
from __future__ import annotations

import argparse
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
PLATFORMS = HERE / "platforms"
RANKS_PER_NODE = 16

# Each SMPI setting and why (tools/sim/README.md has the measurements):
SMPI_CFG = [
    # The host's computing time is not simulated time: what ranks compute
    # costs what lb4mpi's platform layer spends explicitly (injected delays,
    # slowed ranks, the apps' modelled iteration times). Noise-free and
    # repeatable; the library's own CPU time per chunk (a few us natively)
    # is not in the simulated figures.
    "smpi/simulate-computation:no",
    # 1 Gflop/s, the platform files' host speed: smpi_execute(t) and, with
    # simulate-computation:yes, measured host time map to the same seconds.
    "smpi/host-speed:1Gf",
    # SMPI's default MPI_Allgather (also inside MPI_Win_create) sends P^2
    # messages: over 100 s of host time at 256 ranks; recursive doubling
    # (what the ompi selector picks) takes 0.5 s. The other collectives keep
    # SMPI's defaults: the ompi selector as a whole made MPI_Comm_dup cost
    # 45 s of host time at 1024 ranks.
    "smpi/allgather:ompi",
    # Messages under 64 KiB are eager (the sender does not wait for the
    # receiver), as Open MPI and MPICH send small messages.
    "smpi/async-small-thresh:65536",
    "smpi/send-is-detached-thresh:65536",
    # Simulated time per MPI_Test / MPI_Iprobe: 0.1 us (SMPI's default is
    # 100 us per call), and no growing of it over repeated calls.
    "smpi/test:1e-7",
    "smpi/iprobe:1e-7",
    "smpi/grow-injected-times:no",
    # Latency and bandwidth are the platform file's, without SMPI's default
    # correction factors (calibrated on another, Ethernet cluster).
    "smpi/lat-factor:0:1",
    "smpi/bw-factor:0:1",
]


def platform_files(name: str, ranks: int) -> tuple[Path, Path]:
    """The platform XML and hostfile of `name` for `ranks` simulated ranks."""
    if name != "minihpc":
        raise ValueError(f"unknown platform '{name}'; valid: minihpc")
    if ranks < 1:
        raise ValueError(f"ranks must be >= 1, got {ranks}")
    for nodes in (16, 64, 256):
        if ranks <= nodes * RANKS_PER_NODE:
            return PLATFORMS / f"minihpc-{nodes}.xml", PLATFORMS / f"minihpc-{nodes}.hosts"
    raise ValueError(f"minihpc has at most 256 nodes x {RANKS_PER_NODE} = 4096 ranks, got {ranks}")


def check_program(program: str) -> None:
    """A clear error when `program` is not a program of the simulation build."""
    path = Path(program)
    if not path.is_file():
        raise ValueError(f"no such program: {program}")
    with open(path, "rb") as f:
        data = f.read()
    if b"libsimgrid.so" not in data:
        raise ValueError(f"{program} is not built for SimGrid: build it with cmake -DLB4MPI_SIMGRID=ON "
                         "(docs/EXPERIMENTS.md)")


def smpirun_command(ranks: int, argv: list[str], platform: str = "minihpc", cfg: list[str] | None = None,
                    tmpdir: str | None = None) -> list[str]:
    """The smpirun command that runs argv (program and arguments) on `ranks`
    simulated ranks. SMPI's temporary files (a copy of the program per rank)
    go to `tmpdir`."""
    xml, hosts = platform_files(platform, ranks)
    smpirun = shutil.which("smpirun")
    if smpirun is None:
        raise ValueError("smpirun not found: apt-get install --no-install-recommends libsimgrid-dev")
    options = [f"--cfg={c}" for c in SMPI_CFG + list(cfg or [])]
    if tmpdir:
        options.append(f"--cfg=smpi/tmpdir:{tmpdir}")
    options.append("--log=root.thres:warning")
    return [smpirun, "-np", str(ranks), "-platform", str(xml), "-hostfile", str(hosts), argv[0]] + options + argv[1:]


@dataclass
class Result:
    returncode: int       # the program's; 124 when it was killed after the timeout
    stdout: str
    stderr: str
    host_wall_s: float    # wall time of the run on the host
    host_cpu_s: float     # user + system CPU time of the run (and its children) on the host
    timed_out: bool


def run_process(cmd: list[str], cwd: str | None = None, env: dict | None = None,
                timeout: float | None = None) -> Result:
    """Runs cmd in its own process group, output into files (no pipe to
    fill up), killed with its group after `timeout` host seconds. The CPU
    time is the run's own (wait4), so runs in parallel do not mix theirs."""
    with tempfile.TemporaryDirectory(prefix="lb4mpi-run-") as tmp:
        out_path, err_path = Path(tmp) / "stdout", Path(tmp) / "stderr"
        with open(out_path, "w") as out, open(err_path, "w") as err:
            t0 = time.monotonic()
            p = subprocess.Popen(cmd, stdout=out, stderr=err, stdin=subprocess.DEVNULL, cwd=cwd, env=env,
                                 start_new_session=True)
            timed_out = threading.Event()

            def watchdog():
                timed_out.set()
                try:
                    os.killpg(p.pid, signal.SIGKILL)  # the job we started, and only it
                except ProcessLookupError:
                    pass

            timer = threading.Timer(timeout, watchdog) if timeout else None
            if timer:
                timer.start()
            # Killed ourselves (SIGTERM from `timeout`, SIGHUP, Ctrl-C): the
            # simulation, in its own session, goes with us.
            handlers = {}
            if threading.current_thread() is threading.main_thread():
                for sig in (signal.SIGTERM, signal.SIGHUP):
                    handlers[sig] = signal.signal(sig, lambda signum, frame: sys.exit(128 + signum))
            try:
                _, status, usage = os.wait4(p.pid, 0)
            except BaseException:
                try:
                    os.killpg(p.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                raise
            finally:
                if timer:
                    timer.cancel()
                for sig, h in handlers.items():
                    signal.signal(sig, h)
            p.returncode = os.waitstatus_to_exitcode(status)
            wall = time.monotonic() - t0
        code = 124 if timed_out.is_set() else p.returncode
        return Result(code, out_path.read_text(errors="replace"), err_path.read_text(errors="replace"), wall,
                      usage.ru_utime + usage.ru_stime, timed_out.is_set())


def run(ranks: int, argv: list[str], platform: str = "minihpc", cfg: list[str] | None = None,
        timeout: float | None = None, env: dict | None = None, echo=None) -> Result:
    """Runs argv on `ranks` simulated ranks, in a private temporary folder
    (smpirun writes its unrolled hostfile into the working folder, SMPI its
    copies of the program into smpi/tmpdir), which is removed afterwards."""
    check_program(argv[0])
    work = tempfile.mkdtemp(prefix="lb4mpi-sim-")
    try:
        cmd = smpirun_command(ranks, [str(Path(argv[0]).resolve())] + argv[1:], platform, cfg, tmpdir=work)
        if echo is not None:
            echo(cmd)
        return run_process(cmd, cwd=work, env=env, timeout=timeout)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-n", "--ranks", type=int, required=True)
    ap.add_argument("--platform", default="minihpc")
    ap.add_argument("--cfg", action="append", default=[])
    ap.add_argument("--timeout", type=float)
    ap.add_argument("--print-command", action="store_true")
    ap.add_argument("program")
    ap.add_argument("args", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    try:
        echo = (lambda cmd: print(" ".join(cmd), file=sys.stderr, flush=True)) if a.print_command else None
        r = run(a.ranks, [a.program] + a.args, a.platform, a.cfg, a.timeout, echo=echo)
    except ValueError as e:
        print(f"lb4mpi_simrun: error: {e}", file=sys.stderr)
        return 2
    sys.stdout.write(r.stdout)
    sys.stderr.write(r.stderr)
    if r.timed_out:
        print(f"lb4mpi_simrun: killed after {a.timeout} s of host time", file=sys.stderr)
    return r.returncode


if __name__ == "__main__":
    sys.exit(main())
