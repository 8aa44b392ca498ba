#!/usr/bin/env bash
# Mutation check of the test suite (docs/RELIABILITY.md, "Mutation check"):
# applies small deliberate bugs, one at a time, to a scratch copy of the
# repository, rebuilds what the tests need, runs the tests that must catch
# each bug, and prints which mutants survived. The LAST line of stdout is
#   {"mutants": M, "killed": K}
# Exit 0 when every mutant was killed, 1 when one survived or no longer
# builds, 2 when a mutant no longer applies or the build fails (the message
# names the mutant to update here).
#
#   bash scripts/mutants.sh                 # all mutants
#   bash scripts/mutants.sh --only rma,capi # those whose name contains "rma" or "capi"
#   bash scripts/mutants.sh --list          # the list, nothing run
#
# Not part of the test suite: it takes minutes (docs/RELIABILITY.md gives
# the time). The working tree is never touched: the tracked files (with
# uncommitted changes) are copied to $LB4MPI_MUTANTS_DIR (default
# /tmp/lb4mpi-mutants/src), built once in .../build with ccache like
# /work/devbuild.sh, then rebuilt incrementally per mutant.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SCRATCH=${LB4MPI_MUTANTS_DIR:-/tmp/lb4mpi-mutants}
# Not passed on: lb4mpi warns about LB4MPI_* variables it does not know, and
# the robust tests fail on any unexpected line of stderr.
unset LB4MPI_MUTANTS_DIR
export ROOT SCRATCH
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export CCACHE_DIR=${CCACHE_DIR:-/work/.ccache} CCACHE_BASEDIR=$SCRATCH CCACHE_NOHASHDIR=1 CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-8G}
exec python3 - "$@" <<'PY'
import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import time

ROOT = os.environ["ROOT"]
SCRATCH = os.environ["SCRATCH"]
SRC = os.path.join(SCRATCH, "src")
BUILD = os.path.join(SCRATCH, "build")
TEST_TIMEOUT = 120  # seconds per test command (a hang counts as caught: a lost iteration hangs the loop)


def ctest(regex):
    return f"ctest --test-dir {BUILD} -R '{regex}' --timeout 120 --stop-on-failure --output-on-failure"


def runtime(ranks, gtest_filter):
    return (f"$MPIEXEC -n {ranks} {BUILD}/tests/runtime/test_runtime '--gtest_filter={gtest_filter}'")


# The runtime's exactly-once cases (deterministic; the timing-based ones
# would flake on a loaded machine, and a flaky test kills nothing). AWF's
# two runtime checks below do not depend on timing either (issue 35).
EXACTLY_ONCE = "*EveryTechnique.RunsEachIterationExactlyOnce*:*DistributedModes.RunsEachIterationExactlyOnce*"
ROBUST = "Robust.EveryTechniqueAndModeCommitsEachIterationOnce:Robust.ResultsAreCommittedOnceInEveryMode"

# Each mutant: a unique line of a file (exactly as it is, once in the file),
# what it becomes, the targets to rebuild and the test commands that must
# fail (any one failing kills the mutant).
# Four mutations are applied twice, each time against other tests: the
# suite's own test and the fuzz oracle (or robust_runs.py) must each catch it.
FSC_PLUS_ONE = dict(file="src/techniques/fsc.cpp",
                    line="  return std::clamp<Index>(ceil_to_index(std::pow(base, 2.0 / 3.0)), 1,",
                    to="  return std::clamp<Index>(ceil_to_index(std::pow(base, 2.0 / 3.0)) + 1, 1,")
CAPI_NO_RMA = dict(file="src/capi/capi.cpp",
                   line="  if (mode != CENTRALIZED && mode != DECENTRALIZED && mode != DECENTRALIZED_RMA && mode != HIERARCHICAL) {",
                   to="  if (mode != CENTRALIZED && mode != DECENTRALIZED && mode != HIERARCHICAL) {")
AWF_STALE = dict(file="src/techniques/perf_stats.cpp", line="  update_weighted(t.rank);", to="  (void)t.rank;")
DEAD_UNREPORTED = dict(file="src/runtime/recovery/survivors.cpp", line="      all[i].failed = 1;", to="      all[i].failed = 0;")


def mutant(name, file, line, to, targets, tests):
    return dict(name=name, file=file, line=line, to=to, targets=targets, tests=tests)


MUTANTS = [
    mutant("technique-fsc-chunk-off-by-one", **FSC_PLUS_ONE, targets=["test_techniques"],
           tests=[ctest(r"^Table2\.")]),
    mutant("fuzz-oracle-fsc-chunk-off-by-one", **FSC_PLUS_ONE, targets=["replay_chunks"],
           tests=[ctest(r"^fuzz_chunks_replay$")]),
    mutant("fuzz-oracle-mfsc-chunk-off-by-one", "src/techniques/mfsc.cpp", "  return k < 1 ? 1 : k;",
           "  return k < 1 ? 1 : k + 1;", ["replay_chunks"], [ctest(r"^fuzz_chunks_replay$")]),
    mutant("fuzz-oracle-ss-recursive-chunk-of-two", "src/techniques/ss.cpp",
           "  Index next(const StepContext& /*ctx*/) override { return 1; }",
           "  Index next(const StepContext& /*ctx*/) override { return 2; }",
           ["replay_chunks"], [ctest(r"^fuzz_chunks_replay$")]),
    mutant("awf-weights-not-updated", **AWF_STALE, targets=["test_techniques"],
           tests=[ctest(r"^PerfStats\.|^Adaptive\.")]),
    mutant("fuzz-oracle-awf-weights-not-updated", **AWF_STALE, targets=["replay_chunks"],
           tests=[ctest(r"^fuzz_chunks_replay$")]),
    mutant("awf-other-loops-time-not-excluded", "src/runtime/feedback.hpp",
           "  void exclude(double seconds) { since_ += seconds; }", "  void exclude(double seconds) { (void)seconds; }",
           ["test_runtime"], [runtime(2, "Channels.AWFExcludes*")]),
    mutant("awf-time-steps-forgotten-at-restart", "src/techniques/wf.cpp", "    reload_weights_ = adaptive_;",
           "    reload_weights_ = false;", ["test_runtime"], [runtime(2, "TimeSteps.AWFLearnsAcrossStepsOfChangingLength")]),
    mutant("centralized-lost-iteration", "src/runtime/assign.cpp", "    reply.chunk = c;",
           "    reply.chunk = Chunk{c.begin, c.size > 1 ? c.size - 1 : c.size};", ["test_runtime"],
           [runtime(2, EXACTLY_ONCE)]),
    mutant("distributed-step-skipped", "src/runtime/assign.cpp", "    own.id = next_step_++;",
           "    own.id = ++next_step_;", ["test_runtime"], [runtime(2, EXACTLY_ONCE)]),
    mutant("rma-lost-iteration", "src/runtime/rma.cpp", "  cut_.begin(*c, id);",
           "  cut_.begin(Chunk{c->begin, c->size > 1 ? c->size - 1 : c->size}, id);",
           ["test_runtime"], [runtime(2, EXACTLY_ONCE)]),
    mutant("robust-reissued-chunk-never-handed-out", "src/runtime/ledger.hpp", "    return best;",
           "    return best == nullptr ? nullptr : nullptr;", ["test_runtime"], [runtime(3, ROBUST)]),
    mutant("robust-result-committed-twice", "src/runtime/ledger.hpp",
           "    if (e == nullptr || !e->out) return false;", "    if (e == nullptr) return false;",
           # The ledger's unit test first: the runtime tests see a duplicate only when a
           # copy happens to finish second (on a quiet machine this mutant survived them).
           ["test_runtime_unit", "test_runtime", "capi_robust"],
           [ctest(r"^Ledger\."), runtime(3, ROBUST), ctest(r"^capi_robust_p3$")]),
    mutant("robust-dead-rank-not-reported (C API)", **DEAD_UNREPORTED, targets=["capi_robust"],
           tests=[ctest(r"^capi_robust_killed_mode0_p4$")]),
    mutant("robust-dead-rank-not-reported (apps, robust_runs.py)", **DEAD_UNREPORTED,
           targets=["psia", "mandelbrot"], tests=[ctest(r"^robust\.random_1$")]),
    mutant("capi-refuses-a-valid-mode", **CAPI_NO_RMA, targets=["capi_modes"],
           tests=[ctest(r"^capi_modes_call_p2$")]),
    mutant("fuzz-oracle-capi-refuses-a-valid-mode", **CAPI_NO_RMA, targets=["replay_capi"],
           tests=[ctest(r"^fuzz_capi_replay$")]),
    mutant("fuzz-oracle-options-mode-alias-refused", "src/frontend/options.cpp",
           '  if (s == "distributed-rma" || s == "dca-rma") return Mode::DistributedRMA;',
           '  if (s == "distributed-rma") return Mode::DistributedRMA;',
           ["replay_options"], [ctest(r"^fuzz_options_replay$")]),
]


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def session_groups(sid):
    """The process groups of the processes in session `sid` (from /proc)."""
    groups = set()
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()  # state, ppid, pgrp, session, ...
        if int(fields[3]) == sid and fields[0] != "Z":
            groups.add(int(fields[2]))
    return groups


def end_session(sid, grace=5.0):
    """Ends every process left in session `sid` (a command started in a session of its own):
    SIGTERM to each of its process groups (mpiexec then tears its job down), SIGKILL to those
    left after `grace` seconds. Every group, not only the leader's: Open MPI 4 puts each rank
    in a process group of its own, so killing mpiexec's group alone orphaned the ranks of a hung
    mutant, which kept spinning. Returns how many groups were left."""
    left = session_groups(sid)
    for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, 2.0)):
        groups = session_groups(sid)
        for g in groups:
            try:
                os.killpg(g, sig)
            except (ProcessLookupError, PermissionError):
                pass
        deadline = time.time() + wait
        while groups and time.time() < deadline:
            time.sleep(0.1)
            groups = session_groups(sid)
        if not groups:
            break
    return len(left)


def run(cmd, timeout=None, quiet=True):
    """Runs `cmd` in BUILD in a session of its own (setsid); after `timeout` seconds every process
    group of that session is ended (end_session), and so is whatever the command left behind
    when it returned (ranks of an mpiexec that ctest's own timeout killed). Returns (exit code,
    or None on timeout, and the output)."""
    env = dict(os.environ, MPIEXEC=MPIEXEC)
    p = subprocess.Popen(cmd, shell=True, cwd=BUILD, env=env, text=True, start_new_session=True,
                         stdout=subprocess.PIPE if quiet else None, stderr=subprocess.STDOUT if quiet else None)
    try:
        out, _ = p.communicate(timeout=timeout)
        rc = p.returncode
    except subprocess.TimeoutExpired:
        end_session(p.pid)
        out, _ = p.communicate()
        rc = None
    left = end_session(p.pid)  # p.pid is the session's id (its leader), never reused while the session lives
    if left:
        log(f"mutants.sh: ended {left} process group(s) left behind by: {cmd}")
    return rc, out or ""


def copy_tree():
    """The tracked files (as they are in the working tree) into SRC; files whose
    content did not change keep their old copy, so the build stays incremental."""
    files = subprocess.run(["git", "-C", ROOT, "ls-files", "-z"], check=True, capture_output=True).stdout
    for rel in filter(None, files.decode().split("\0")):
        src = os.path.join(ROOT, rel)
        dst = os.path.join(SRC, rel)
        if not os.path.isfile(src) or os.path.islink(src):
            continue
        with open(src, "rb") as f:
            data = f.read()
        if os.path.exists(dst):
            with open(dst, "rb") as f:
                if f.read() == data:
                    continue
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        with open(dst, "wb") as f:
            f.write(data)
        shutil.copymode(src, dst)


def apply(m):
    path = os.path.join(SRC, m["file"])
    with open(path) as f:
        text = f.read()
    lines = text.split("\n")
    hits = [i for i, l in enumerate(lines) if l == m["line"]]
    if len(hits) != 1:
        log(f"mutants.sh: mutant '{m['name']}' no longer applies: the line\n    {m['line']}\n"
            f"  is in {m['file']} {len(hits)} times (must be exactly once). Update this mutant in "
            "scripts/mutants.sh (MUTANTS) to a unique line of the current code.")
        sys.exit(2)
    lines[hits[0]] = m["to"]
    with open(path, "w") as f:
        f.write("\n".join(lines))
    return text


def restore(m, text):
    path = os.path.join(SRC, m["file"])
    with open(path, "w") as f:  # a new mtime: the next build recompiles the pristine file
        f.write(text)


def build(targets):
    rc, out = run(f"cmake --build {BUILD} -j2 --target {' '.join(targets)}")
    return rc == 0, out


def main():
    args = sys.argv[1:]
    only = None
    if "--list" in args:
        for m in MUTANTS:
            print(f"{m['name']}: {m['file']}: '{m['line'].strip()}' -> '{m['to'].strip()}'; tests: {m['tests']}")
        return 0
    if "--only" in args:
        only = args[args.index("--only") + 1]
    chosen = [m for m in MUTANTS if only is None or any(o in m["name"] for o in only.split(","))]
    t0 = time.time()
    os.makedirs(SRC, exist_ok=True)
    copy_tree()
    # Every mutated file gets a fresh mtime: a run stopped midway must not leave
    # a mutant's object file looking newer than the pristine source.
    for m in MUTANTS:
        if not os.path.isfile(os.path.join(SRC, m["file"])):
            log(f"mutants.sh: mutant '{m['name']}' no longer applies: {m['file']} does not exist. "
                "Update this mutant in scripts/mutants.sh (MUTANTS).")
            sys.exit(2)
        os.utime(os.path.join(SRC, m["file"]))
    if not os.path.exists(os.path.join(BUILD, "CMakeCache.txt")):
        cfg = (f"cmake -S {SRC} -B {BUILD} -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE=-O2 "
               "-DCMAKE_C_FLAGS_RELEASE=-O2 -DLB4MPI_WERROR=OFF -DCMAKE_CXX_COMPILER_LAUNCHER=ccache "
               "-DCMAKE_C_COMPILER_LAUNCHER=ccache -DLB4MPI_BUILD_PYTHON=OFF")
        os.makedirs(BUILD, exist_ok=True)
        rc, out = run(cfg)
        if rc != 0:
            log(out[-3000:] + "\nmutants.sh: configuring the scratch build failed")
            sys.exit(2)
    global MPIEXEC
    with open(os.path.join(BUILD, "CMakeCache.txt")) as f:
        MPIEXEC = next((l.split("=", 1)[1].strip() for l in f if l.startswith("MPIEXEC_EXECUTABLE:")), "mpiexec")
    targets = sorted({t for m in chosen for t in m["targets"]})
    log(f"mutants.sh: building {' '.join(targets)} in {BUILD} (unmutated) ...")
    ok, out = build(targets)
    if not ok:
        log(out[-3000:] + "\nmutants.sh: the unmutated scratch build failed")
        sys.exit(2)
    # The tests must pass without a mutant, or a "kill" means nothing.
    log("mutants.sh: the tests pass unmutated? ...")
    for cmd in sorted({c for m in chosen for c in m["tests"]}):
        rc, out = run(cmd, TEST_TIMEOUT)
        if rc != 0:
            log(out[-3000:] + f"\nmutants.sh: without any mutant this fails: {cmd}")
            sys.exit(2)
    killed = 0
    survivors = []
    broken = []
    for k, m in enumerate(chosen):
        t1 = time.time()
        pristine = apply(m)
        try:
            ok, out = build(m["targets"])
            if not ok:
                broken.append(m["name"])
                log(out[-2000:])
                verdict = "DOES NOT BUILD (fix the mutant)"
            else:
                caught_by = None
                for cmd in m["tests"]:
                    rc, _ = run(cmd, TEST_TIMEOUT)
                    if rc != 0:
                        caught_by = f"{cmd} ({'timeout' if rc is None else 'exit ' + str(rc)})"
                        break
                if caught_by:
                    killed += 1
                    verdict = f"killed by {caught_by}"
                else:
                    survivors.append(m["name"])
                    verdict = "SURVIVED"
        finally:
            restore(m, pristine)
        log(f"[{k + 1}/{len(chosen)}] {m['name']}: {verdict} ({time.time() - t1:.0f} s)")
    # Leave the scratch build unmutated (the next run starts from it).
    build(targets)
    log(f"mutants.sh: {len(chosen)} mutants, {killed} killed in {time.time() - t0:.0f} s")
    for name in survivors:
        print(f"survived: {name}")
    for name in broken:
        print(f"does not build: {name}")
    print(json.dumps({"mutants": len(chosen), "killed": killed}))
    return 0 if killed == len(chosen) else 1


MPIEXEC = "mpiexec"
sys.exit(main())
PY
