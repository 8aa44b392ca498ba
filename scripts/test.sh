#!/usr/bin/env bash
# The whole test suite of lb4mpi, in four configurations, each in its own
# build folder; stops at the first failure.
#   (a) openmpi  build/ci-openmpi  Release (-O2), unity build, -Werror, Open MPI: every test, the Python
#                                  package too (-DLB4MPI_BUILD_PYTHON=ON: Debian's mpi4py is on Open MPI)
#   (b) asan     build/ci-asan     clang, Debug, static, unity build, AddressSanitizer + UBSan, -Werror,
#                                  libFuzzer (-DLB4MPI_FUZZ=ON): every test but the apps' and the
#                                  install tests, and each fuzz target for FUZZ_SECONDS (leak
#                                  checking off under mpiexec: Open MPI leaks)
#   (c) mpich    build/ci-mpich    Release (-O2), unity build, -Werror, MPICH: the MPI tests
#                                  (ctest -L mpi); neither the MPI-free unit tests nor the
#                                  apps and tools are built (the Open MPI configuration tests them)
#   (e) cluster  build/ci-cluster, build/ci-cluster-mpich: not in the default run (root, minutes):
#                                  the emulated cluster of network namespaces (3 nodes x 2 ranks over
#                                  TCP) under Open MPI and MPICH, and a local Slurm (labels cluster,
#                                  slurm; docs/CLUSTER.md)
#   (d) sim      build/ci-sim      SimGrid's SMPI (-DLB4MPI_SIMGRID=ON), -O0, unity build, -Werror:
#                                  the library and the synthetic app only; the tests of label sim
#                                  (64 simulated ranks: checksums against the Open MPI build's
#                                  app when build/ci-openmpi has it, a smoke experiment)
#
#   bash scripts/test.sh                          # all four configurations
#   bash scripts/test.sh --config mpich           # one configuration (repeatable)
#   bash scripts/test.sh --config cluster         # the emulated cluster (root; not in the default run)
#   bash scripts/test.sh --config openmpi -L apps # one label (ctest -L, repeatable)
#   bash scripts/test.sh --config asan -R 'runtime_p2$'   # tests by regex (ctest -R)
#   bash scripts/test.sh -E 'install'             # all but these (ctest -E)
#   bash scripts/test.sh --list                   # the configurations and labels
#
# Time budget: a test that needs more than BUDGET_S seconds (default 30, with
# CTEST_JOBS tests sharing the cores; 20 when they ran one per core; half as
# much again under the sanitizers) in any configuration carries the label `slow` and the reason in a comment where it
# is defined. A test without that label that takes longer fails the
# configuration ("over budget"). The ten slowest tests of each configuration
# are printed at the end.
#
# Environment: JOBS (default: the number of cores) for the builds; CTEST_JOBS
# (default: twice JOBS) for ctest: an MPI test of P ranks counts P
# (PROCESSORS), and the tests leave the cores idle about half of the time
# (mpiexec's start-up, robust mode's timeouts), so twice as many run at once;
# measured on 2 cores, Open MPI configuration: ctest -j2 293 s, -j4 196 s.
# BUILD_ROOT (default build) for the parent folder of the build folders;
# BUDGET_S (default 30); FUZZ_SECONDS (default 8) for each libFuzzer run.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
JOBS="${JOBS:-$(nproc 2>/dev/null || echo 2)}"
CTEST_JOBS="${CTEST_JOBS:-$((2 * JOBS))}"
BUILD_ROOT="${BUILD_ROOT:-build}"
BUDGET_S="${BUDGET_S:-30}"
FUZZ_SECONDS="${FUZZ_SECONDS:-8}"
LOGS="$ROOT/$BUILD_ROOT/ci-logs"
ALL_CONFIGS=(openmpi asan mpich sim)

usage() {
  sed -n '2,/^set -uo/p' "${BASH_SOURCE[0]}" | sed '$d' | sed 's/^# \{0,1\}//'
}

CONFIGS=()
FILTER=()  # extra ctest selection, applied in every configuration
while [[ $# -gt 0 ]]; do
  case "$1" in
    --config)
      [[ $# -ge 2 ]] || { echo "test.sh: --config needs a name: ${ALL_CONFIGS[*]}" >&2; exit 2; }
      case "$2" in
        openmpi | asan | mpich | sim | cluster) CONFIGS+=("$2") ;;
        *) echo "test.sh: unknown configuration '$2'; valid: ${ALL_CONFIGS[*]} cluster" >&2; exit 2 ;;
      esac
      shift 2 ;;
    -L | -LE | -R | -E)
      [[ $# -ge 2 ]] || { echo "test.sh: $1 needs a value" >&2; exit 2; }
      FILTER+=("$1" "$2"); shift 2 ;;
    --list)
      echo "configurations: ${ALL_CONFIGS[*]} (default), cluster"
      echo "labels: unit (no MPI), mpi (under mpiexec), apps, capi, runtime, python, tools, bench, install, fuzz, stress, slow,"
      echo "        sim (the simulation build: smpirun, configuration sim only),"
      echo "        cluster, slurm (the emulated cluster: configuration cluster only)"
      exit 0 ;;
    -h | --help) usage; exit 0 ;;
    *) echo "test.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
[[ ${#CONFIGS[@]} -gt 0 ]] || CONFIGS=("${ALL_CONFIGS[@]}")

START_ALL=$SECONDS
echo "== lb4mpi test suite: configurations ${CONFIGS[*]}${FILTER[*]:+, selection ${FILTER[*]}}; $JOBS build jobs, $CTEST_JOBS test jobs"
t0=$SECONDS
if ! bash "$ROOT/scripts/deps.sh"; then
  echo "test.sh: FAILED installing the Debian packages" >&2
  exit 1
fi
DEPS_S=$((SECONDS - t0))

# Open MPI as root, and more ranks than cores. (Not mpi_yield_when_idle: with
# it the tests' waiting ranks gave their cores to the background build.)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1

mkdir -p "$LOGS"
SUMMARY=()
SLOWEST=()
TOTAL_PASSED=0
TOTAL_FAILED=0

finish() {
  stop_prebuild
  echo
  local line
  for line in "${SLOWEST[@]}"; do echo "$line"; done
  echo
  echo "== summary ($((SECONDS - START_ALL)) s in all; Debian packages ${DEPS_S} s)"
  for line in "${SUMMARY[@]}"; do echo "  $line"; done
  echo "total: $TOTAL_PASSED passed, $TOTAL_FAILED failed"
  exit "$1"
}

# --- one configuration ----------------------------------------------------------
# Configurations build one ahead: while configuration k runs its tests (which
# leave the cores idle half of the time: mpiexec start-up, robust mode's
# timeouts), configuration k+1 configures and builds in the background at
# nice 10, so that it takes only the cycles the tests leave (log:
# $LOGS/NAME-build.log). A configuration that fails stops the background build.
PRE_CFG="" PRE_PID=""

# build_config NAME DIR TIMES CMAKE_ARGS...: configure and build DIR; writes
# "CONFIGURE_S BUILD_S STEP RC" to the file TIMES (STEP: configure or build).
build_config() {
  local name=$1 dir=$2 times=$3 t0=$SECONDS rc conf_s gen=()
  shift 3
  # Ninja when it is there (scripts/deps.sh installs it): ~10 % less build
  # time than make's recursive Makefiles. A build folder made by the other
  # generator is made again (cmake refuses to switch).
  if command -v ninja >/dev/null; then gen=(-G Ninja); fi
  if [[ -f "$dir/CMakeCache.txt" ]] &&
    ! grep -qx "CMAKE_GENERATOR:INTERNAL=${gen[1]:-Unix Makefiles}" "$dir/CMakeCache.txt"; then
    echo "-- $name: $dir was made by another CMake generator: starting it afresh"
    rm -rf "$dir"
  fi
  echo "cmake options: ${gen[*]} $*"
  cmake -S "$ROOT" -B "$dir" "${gen[@]}" "$@"
  rc=$? conf_s=$((SECONDS - t0))
  echo "-- $name configure: ${conf_s} s"
  if [[ $rc -ne 0 ]]; then echo "$conf_s 0 configure $rc" >"$times"; return; fi
  t0=$SECONDS
  cmake --build "$dir" -j "$JOBS"
  rc=$?
  echo "-- $name build: $((SECONDS - t0)) s"
  echo "$conf_s $((SECONDS - t0)) build $rc" >"$times"
}

# start_prebuild NAME: NAME's configure and build in the background.
start_prebuild() {
  [[ "$1" != cluster ]] || return 0  # two builds of its own, after its packages
  config_args "$1" || return 0
  PRE_CFG=$1
  rm -f "$LOGS/$1-build.times"
  export -f build_config
  export ROOT JOBS
  # A session of its own (setsid), so that stop_prebuild can end the whole
  # build. With the kernel's autogroups (Debian's default) that session gets
  # an equal share of the cores whatever its nice value, which is what the
  # suite needs: in the tests' session at nice 10 the build starved behind
  # the MPI tests' polling ranks and the runtime tests ran 10x slower
  # (measured: 34 s against 4 s for runtime_p2).
  # The session's autogroup gets nice 10 too (/proc/self/autogroup): the
  # build then takes what the tests leave idle and no more.
  setsid nice -n 10 bash -c 'echo 10 >/proc/self/autogroup 2>/dev/null; build_config "$@"' build_config "$1" "$ROOT/$BUILD_ROOT/ci-$1" \
    "$LOGS/$1-build.times" "${CMAKE_ARGS[@]}" >"$LOGS/$1-build.log" 2>&1 &
  PRE_PID=$!
  echo "-- $1: configuring and building in the background (nice 10; log ${LOGS#"$ROOT"/}/$1-build.log)"
}

stop_prebuild() {
  [[ -n "$PRE_PID" ]] || return 0
  kill -- "-$PRE_PID" 2>/dev/null
  wait "$PRE_PID" 2>/dev/null
  PRE_PID="" PRE_CFG=""
}

# begin_config NAME: configure and build $BUILD_ROOT/ci-NAME (or wait for its
# background build), then start the next configuration's in the background.
begin_config() {
  CFG=$1 CFG_DIR="$ROOT/$BUILD_ROOT/ci-$1" CFG_PASSED=0 CFG_FAILED=0 CFG_TESTS_S=0 CFG_NOTE=""
  rm -f "$LOGS/$CFG"-*.xml
  echo
  echo "======== $CFG: ${CFG_DIR#"$ROOT"/}"
  CFG_CONF_S="?" CFG_BUILD_S="?" CFG_WAIT=""
  local times="$LOGS/$CFG-build.times" t0=$SECONDS conf_s build_s step rc
  if [[ "$PRE_CFG" == "$CFG" ]]; then
    echo "-- $CFG: waiting for its background build"
    wait "$PRE_PID"
    PRE_PID="" PRE_CFG=""
    CFG_WAIT=" (in the background; $((SECONDS - t0)) s waited)"
  else
    config_args "$CFG" || config_failed "configure"
    build_config "$CFG" "$CFG_DIR" "$times" "${CMAKE_ARGS[@]}"
  fi
  read -r conf_s build_s step rc <"$times" 2>/dev/null || { conf_s="?" build_s="?" step=configure rc=1; }
  CFG_CONF_S=$conf_s CFG_BUILD_S=$build_s
  if [[ $rc -ne 0 ]]; then
    [[ -z "$CFG_WAIT" ]] || { tail -n 80 "$LOGS/$CFG-build.log"; echo "test.sh: the whole log: $LOGS/$CFG-build.log" >&2; }
    config_failed "$step"
  fi
  [[ -z "$CFG_WAIT" ]] || echo "-- $CFG: configured in $conf_s s, built in $build_s s$CFG_WAIT"
  local i
  for i in "${!CONFIGS[@]}"; do
    if [[ "${CONFIGS[$i]}" == "$CFG" && $((i + 1)) -lt ${#CONFIGS[@]} ]]; then
      start_prebuild "${CONFIGS[$((i + 1))]}"
    fi
  done
}

config_times() {
  echo "configure ${CFG_CONF_S} s, build ${CFG_BUILD_S} s${CFG_WAIT}, tests ${CFG_TESTS_S} s"
}

config_failed() {  # config_failed WHAT
  SUMMARY+=("$CFG: FAILED at $1: $CFG_PASSED passed, $CFG_FAILED failed ($(config_times))")
  [[ "$1" == *"time budget"* ]] || check_times >/dev/null 2>&1
  echo
  echo "test.sh: configuration '$CFG' FAILED at $1 (see above)" >&2
  finish 1
}

# The ten slowest tests of the configuration so far (from ctest's JUnit
# reports), for the final report; and the time budget: every test that ran
# longer than BUDGET_S seconds must carry the label `slow`.
check_times() {
  local reports=("$LOGS/$CFG"-*.xml) out rc
  [[ -e "${reports[0]}" ]] || return 0
  # The sanitizers make a test 2-5x slower: half as much again there.
  local budget=$BUDGET_S
  [[ "$CFG" != asan ]] || budget=$((BUDGET_S * 3 / 2))
  out=$(python3 "$ROOT/scripts/ctest_times.py" --build-dir "$CFG_DIR" --budget "$budget" \
    --label "$CFG" "${reports[@]}" 2>&1)
  rc=$?
  local line
  while IFS= read -r line; do
    [[ "$line" == ctest_times.py:* ]] || SLOWEST+=("$line")
  done <<<"$out"
  if [[ $rc -ne 0 ]]; then
    grep '^ctest_times.py:' <<<"$out" >&2
    CFG_NOTE+=" $(grep -o 'over the.*' <<<"$out")"
  fi
  return $rc
}

# run_ctest TAG [VAR=VALUE...] -- CTEST_ARGS...: one ctest pass in CFG_DIR,
# with the given environment and the selection given on the command line.
run_ctest() {
  local tag=$1; shift
  local envs=()
  while [[ $# -gt 0 && "$1" != "--" ]]; do envs+=("$1"); shift; done
  shift
  local log="$LOGS/$CFG-$tag.log" t0=$SECONDS
  echo "-- $CFG ctest ($tag): ctest $* ${FILTER[*]}${envs[*]:+ with ${envs[*]}}"
  (cd "$CFG_DIR" && env "${envs[@]}" ctest --output-on-failure -j "$CTEST_JOBS" --timeout 300 \
    --output-junit "$LOGS/$CFG-$tag.xml" "$@" "${FILTER[@]}") 2>&1 | tee "$log"
  local rc=${PIPESTATUS[0]} dt=$((SECONDS - t0))
  CFG_TESTS_S=$((CFG_TESTS_S + dt))
  echo "-- $CFG ctest ($tag): ${dt} s (exit $rc)"
  if grep -q "No tests were found" "$log"; then
    if [[ ${#FILTER[@]} -gt 0 ]]; then
      echo "-- $CFG: no test of this pass matches ${FILTER[*]}"
      return 0
    fi
    config_failed "ctest $tag (no tests were found)"
  fi
  local counts passed=0 failed=0
  counts=$(grep -Eo '[0-9]+ tests failed out of [0-9]+' "$log" | tail -n 1)
  if [[ -n "$counts" ]]; then
    failed=$(awk '{print $1}' <<<"$counts")
    passed=$(($(awk '{print $NF}' <<<"$counts") - failed))
  fi
  CFG_PASSED=$((CFG_PASSED + passed)) CFG_FAILED=$((CFG_FAILED + failed))
  TOTAL_PASSED=$((TOTAL_PASSED + passed)) TOTAL_FAILED=$((TOTAL_FAILED + failed))
  if [[ $rc -ne 0 || -z "$counts" ]]; then
    echo "test.sh: log of this pass: $log" >&2
    config_failed "ctest $tag"
  fi
}

end_config() {
  check_times || config_failed "the time budget"
  SUMMARY+=("$CFG: ok: $CFG_PASSED passed, $CFG_FAILED failed ($(config_times)).$CFG_NOTE")
}

# Optimized builds without debug information: -g doubles the compile time of
# the template-heavy test and app sources; the sanitizer build has it.
RELEASE=(-DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE=-O2 -DCMAKE_C_FLAGS_RELEASE=-O2)
# Unity builds (CMake batches each target's sources, 8 per translation unit):
# the headers (GoogleTest, CLI11, nlohmann-json, pybind11, MPI) are parsed
# once per batch instead of once per source. Measured on this 2-core machine
# from scratch: Open MPI 123 s against ~200 s, ASan+UBSan 84 s against 216 s
# (docs/PERFORMANCE.md, "The test suite"). Sources keep their file-local
# names distinct for it. Every configuration builds so; a build without it
# (the default for users: scripts/demo.sh, docs/INSTALL.md) compiles each
# source alone — a missing #include shows there, not here.
UNITY=(-DCMAKE_UNITY_BUILD=ON)
# The tests' own sources at -O0 (LB4MPI_TEST_OPTIMIZATION): half their compile
# time at -O2 (test_runtime's largest batch: 21 s against 43 s); the library,
# apps and benchmarks they test keep -O2.
TESTS_O0=(-DLB4MPI_TEST_OPTIMIZATION=-O0)

# config_args NAME: the cmake options of configuration NAME in CMAKE_ARGS.
config_args() {
  case "$1" in
    openmpi)
      # --- (a) Open MPI (Debian's default mpicc/mpicxx/mpiexec): every test ------------
      CMAKE_ARGS=("${RELEASE[@]}" "${UNITY[@]}" "${TESTS_O0[@]}" -DLB4MPI_WERROR=ON -DLB4MPI_BUILD_PYTHON=ON) ;;
    asan)
      # --- (b) sanitizers: every test ----------------------------------------------------
      # clang: the same build has libFuzzer (g++ has none) and the library gets a
      # second compiler's warnings. It also builds faster than g++ here (149 s
      # against 214 s on the 2-core machine, docs/PERFORMANCE.md). Static
      # libraries: the fuzzer's coverage calls cost ~30 % more through a shared
      # library's PLT; the other configurations test the shared ones.
      # The fuzz tests (label fuzz) fuzz each target for FUZZ_SECONDS from the
      # repository's corpus; every build also replays the corpora (replay_*).
      # No Python package: an instrumented module needs the sanitizers' runtime
      # preloaded into the interpreter (the Open MPI configuration tests it).
      CMAKE_ARGS=("${UNITY[@]}" -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++
        -DCMAKE_BUILD_TYPE=Debug -DLB4MPI_SANITIZE=ON -DLB4MPI_WERROR=ON
        -DLB4MPI_BUILD_BENCH=OFF -DBUILD_SHARED_LIBS=OFF -DLB4MPI_BUILD_TOOLS=OFF
        -DLB4MPI_FUZZ=ON -DLB4MPI_FUZZ_SECONDS="$FUZZ_SECONDS" -DLB4MPI_BUILD_PYTHON=OFF) ;;
    mpich)
      # --- (c) MPICH: the MPI tests only -------------------------------------------------
      # Neither the apps nor lb4mpi-chunks (LB4MPI_BUILD_TOOLS=OFF): clients of
      # the library that do not depend on the MPI; the library under MPICH is
      # what the runtime, C API, stress, install and perturbation tests test.
      # No Python package: Debian's mpi4py is built on Open MPI.
      MPIEXEC_MPICH="$(command -v mpiexec.mpich || true)"
      if [[ -z "$MPIEXEC_MPICH" ]]; then
        echo "test.sh: mpich: mpiexec.mpich not found (scripts/deps.sh installs mpich)" >&2
        return 1
      fi
      CMAKE_ARGS=("${RELEASE[@]}" "${UNITY[@]}" "${TESTS_O0[@]}" -DLB4MPI_WERROR=ON -DLB4MPI_BUILD_BENCH=OFF
        -DLB4MPI_BUILD_PYTHON=OFF -DLB4MPI_BUILD_UNIT_TESTS=OFF -DLB4MPI_BUILD_TOOLS=OFF
        -DMPI_CXX_COMPILER=mpicxx.mpich -DMPI_C_COMPILER=mpicc.mpich
        -DMPIEXEC_EXECUTABLE="$MPIEXEC_MPICH") ;;
    sim)
      # --- (d) SimGrid's SMPI: the simulation build (docs/EXPERIMENTS.md) ------------------
      # Only what its tests run: the library and the synthetic app (LB4MPI_APPS), at -O0
      # and as a unity build (compile time: the simulated runs take seconds either way).
      # The checksums of the simulated runs are compared with the native app of the Open
      # MPI configuration when it was built (it runs first in the whole suite).
      local native="$ROOT/$BUILD_ROOT/ci-openmpi/apps" native_arg=-DLB4MPI_NATIVE_APPS=
      if [[ -x "$native/lb4mpi-synthetic" ]]; then
        native_arg=-DLB4MPI_NATIVE_APPS="$native"
      else
        echo "-- sim: no $native/lb4mpi-synthetic (run the openmpi configuration first):" \
          "the simulated checksums are compared among themselves only"
      fi
      CMAKE_ARGS=(-DCMAKE_BUILD_TYPE=None -DCMAKE_UNITY_BUILD=ON -DLB4MPI_WERROR=ON
        -DLB4MPI_SIMGRID=ON -DLB4MPI_APPS=synthetic "$native_arg") ;;
    cluster-mpich | cluster)
      # --- (e) the emulated cluster (docs/CLUSTER.md): root, not in the default run ------
      CMAKE_ARGS=("${RELEASE[@]}" "${UNITY[@]}" -DLB4MPI_WERROR=ON -DLB4MPI_BUILD_BENCH=OFF
        -DLB4MPI_BUILD_UNIT_TESTS=OFF -DLB4MPI_CLUSTER_TESTS=ON)
      if [[ "$1" == cluster-mpich ]]; then
        CMAKE_ARGS+=(-DLB4MPI_BUILD_PYTHON=OFF -DMPI_CXX_COMPILER=mpicxx.mpich -DMPI_C_COMPILER=mpicc.mpich
          -DMPIEXEC_EXECUTABLE="$(command -v mpiexec.mpich)")
      else
        CMAKE_ARGS+=(-DLB4MPI_BUILD_PYTHON=ON)
      fi ;;
    *) return 1 ;;
  esac
}

for cfg in "${CONFIGS[@]}"; do
  case "$cfg" in
    openmpi)
      begin_config openmpi
      run_ctest all --
      end_config ;;
    asan)
      # Open MPI's MPI_Init leaks from components it dlopens and unloads again, which
      # LeakSanitizer cannot even name; so leaks are checked in the tests without MPI
      # and not in those under mpiexec (label mpi). Everything else is checked in both.
      UBSAN="UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1"
      begin_config asan
      # The install tests (label install: install the tree, build consumers
      # against it) run in the Open MPI configuration, for shared and static
      # libraries, and in MPICH's; here they would only repeat the static ones.
      # The technique properties at the largest loops (label slow: 10-22 s each
      # here) run in the Open MPI configuration; under the sanitizers the same
      # extremes (N up to 2^62, P up to 2^20) are fuzz_chunks' inputs.
      run_ctest no-mpi "ASAN_OPTIONS=detect_leaks=1" "$UBSAN" -- -LE "mpi|install|slow"
      # The apps and tools are not built here (LB4MPI_BUILD_TOOLS=OFF): their
      # tests run in the Open MPI configuration; under ASan the apps' took
      # 25-28 s each (4 ranks on 2 cores), and the library code they reach is
      # the runtime tests' too.
      # The runtime's gtests run here at P = 1, 2 and 4: P = 3 adds no code
      # path the sanitizers would see (the other configurations run it).
      run_ctest mpi "ASAN_OPTIONS=detect_leaks=0" "$UBSAN" -- -L mpi -LE "apps|install" \
        -E '^runtime(_sets|_trace)?_p3$'
      end_config ;;
    mpich)
      begin_config mpich
      run_ctest mpi -- -L mpi
      end_config ;;
    sim)
      begin_config sim
      run_ctest sim -- -L sim
      end_config ;;
    cluster)
      # Network namespaces joined by a bridge, TCP between nodes: the tests take
      # minutes (each builds its own cluster), over what the suite can spare.
      if [[ $(id -u) -ne 0 ]]; then
        SUMMARY+=("cluster: FAILED: needs root (network namespaces, scripts/cluster.sh)")
        finish 1
      fi
      bash "$ROOT/scripts/deps.sh" --cluster || { SUMMARY+=("cluster: FAILED installing its packages"); finish 1; }
      begin_config cluster-mpich
      run_ctest cluster -- -L "cluster|slurm" -j 1
      end_config
      begin_config cluster
      run_ctest cluster -- -L "cluster|slurm" -j 1
      end_config ;;
  esac
done

finish 0
