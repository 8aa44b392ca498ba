#!/usr/bin/env bash
# The whole test suite of lb4mpi, in three configurations, each in its own
# build folder; stops at the first failure.
#   (a) build/ci-openmpi   RelWithDebInfo, -Werror, Open MPI: every test
#   (b) build/ci-asan      Debug, AddressSanitizer + UBSan, -Werror: every test
#                          (leak checking off for the MPI tests: Open MPI leaks)
#   (c) build/ci-mpich     RelWithDebInfo, -Werror, MPICH: the MPI tests (ctest -L mpi)
#   bash scripts/test.sh
# Environment: JOBS (default 2) for the build and ctest; BUILD_ROOT (default
# build) for the parent folder of the three build folders.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
JOBS="${JOBS:-2}"
BUILD_ROOT="${BUILD_ROOT:-build}"
LOGS="$ROOT/$BUILD_ROOT/ci-logs"

if ! bash "$ROOT/scripts/deps.sh"; then
  echo "test.sh: FAILED installing the Debian packages" >&2
  exit 1
fi

# Open MPI as root, and more ranks than cores.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1

mkdir -p "$LOGS"
SUMMARY=()
TOTAL_PASSED=0
TOTAL_FAILED=0
START_ALL=$SECONDS

finish() {
  echo
  echo "== summary ($((SECONDS - START_ALL)) s in all)"
  local line
  for line in "${SUMMARY[@]}"; do echo "  $line"; done
  echo "total: $TOTAL_PASSED passed, $TOTAL_FAILED failed"
  exit "$1"
}

# --- one configuration ----------------------------------------------------------
# begin_config NAME DIR CMAKE_ARGS...: configure and build.
begin_config() {
  CFG=$1 CFG_DIR="$ROOT/$2" CFG_PASSED=0 CFG_FAILED=0 CFG_TESTS_S=0 CFG_NOTE=""
  shift 2
  echo
  echo "======== $CFG: ${CFG_DIR#"$ROOT"/}"
  echo "cmake options: $*"
  CFG_CONF_S="?" CFG_BUILD_S="?"
  local t0=$SECONDS rc
  cmake -S "$ROOT" -B "$CFG_DIR" "$@"
  rc=$? CFG_CONF_S=$((SECONDS - t0))
  echo "-- $CFG configure: ${CFG_CONF_S} s"
  [[ $rc -eq 0 ]] || config_failed "configure"
  t0=$SECONDS
  cmake --build "$CFG_DIR" -j "$JOBS"
  rc=$? CFG_BUILD_S=$((SECONDS - t0))
  echo "-- $CFG build: ${CFG_BUILD_S} s"
  [[ $rc -eq 0 ]] || config_failed "build"
}

config_times() {
  echo "configure ${CFG_CONF_S} s, build ${CFG_BUILD_S} s, tests ${CFG_TESTS_S} s"
}

config_failed() {  # config_failed WHAT
  SUMMARY+=("$CFG: FAILED at $1: $CFG_PASSED passed, $CFG_FAILED failed ($(config_times))")
  echo
  echo "test.sh: configuration '$CFG' FAILED at $1 (see above)" >&2
  finish 1
}

# run_ctest TAG [VAR=VALUE...] -- CTEST_ARGS...: one ctest pass in CFG_DIR,
# with the given environment. A pass restricted to `-L mpi` that finds no
# test is reported as "MPI tests: none yet"; any other empty pass fails.
run_ctest() {
  local tag=$1; shift
  local envs=()
  while [[ $# -gt 0 && "$1" != "--" ]]; do envs+=("$1"); shift; done
  shift
  local log="$LOGS/$CFG-$tag.log" t0=$SECONDS
  echo "-- $CFG ctest ($tag): ctest $*${envs[*]:+ with ${envs[*]}}"
  (cd "$CFG_DIR" && env "${envs[@]}" ctest --output-on-failure -j "$JOBS" --timeout 300 "$@") \
    2>&1 | tee "$log"
  local rc=${PIPESTATUS[0]} dt=$((SECONDS - t0))
  CFG_TESTS_S=$((CFG_TESTS_S + dt))
  echo "-- $CFG ctest ($tag): ${dt} s (exit $rc)"
  if grep -q "No tests were found" "$log"; then
    if [[ " $* " == *" -L mpi "* ]]; then
      echo "-- $CFG: MPI tests: none yet"
      CFG_NOTE+=" MPI tests: none yet."
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
  SUMMARY+=("$CFG: ok: $CFG_PASSED passed, $CFG_FAILED failed ($(config_times)).$CFG_NOTE")
}

# --- (a) Open MPI (Debian's default mpicc/mpicxx/mpiexec): every test ----------------
begin_config openmpi "$BUILD_ROOT/ci-openmpi" \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLB4MPI_WERROR=ON
run_ctest all --
end_config

# --- (b) sanitizers: every test -----------------------------------------------------
# Open MPI's MPI_Init leaks from components it dlopens and unloads again, which
# LeakSanitizer cannot even name; so leaks are checked in the tests without MPI
# and not in those under mpiexec (label mpi). Everything else is checked in both.
UBSAN="UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1"
begin_config asan "$BUILD_ROOT/ci-asan" \
  -DCMAKE_BUILD_TYPE=Debug -DLB4MPI_SANITIZE=ON -DLB4MPI_WERROR=ON -DLB4MPI_BUILD_BENCH=OFF
run_ctest no-mpi "ASAN_OPTIONS=detect_leaks=1" "$UBSAN" -- -LE mpi
run_ctest mpi "ASAN_OPTIONS=detect_leaks=0" "$UBSAN" -- -L mpi
end_config

# --- (c) MPICH: the MPI tests only --------------------------------------------------
MPIEXEC_MPICH="$(command -v mpiexec.mpich || true)"
if [[ -z "$MPIEXEC_MPICH" ]]; then
  SUMMARY+=("mpich: FAILED: mpiexec.mpich not found")
  finish 1
fi
begin_config mpich "$BUILD_ROOT/ci-mpich" \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLB4MPI_WERROR=ON -DLB4MPI_BUILD_BENCH=OFF \
  -DMPI_CXX_COMPILER=mpicxx.mpich -DMPI_C_COMPILER=mpicc.mpich \
  -DMPIEXEC_EXECUTABLE="$MPIEXEC_MPICH"
run_ctest mpi -- -L mpi
end_config

finish 0
