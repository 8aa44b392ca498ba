#!/usr/bin/env bash
# The randomized stress run of lb4mpi: K random small configurations (technique,
# mode, N in 0..10^5, P in 1..4, chunk bounds, injected delay, 1-3 loops in
# flight, time steps, tiny random work per iteration), each run under mpiexec
# by tests/stress/lb4mpi-stress-case, which checks that every iteration ran
# exactly once, and under a watchdog (timeout --signal=KILL). Prints progress
# on stderr and, at the end, one JSON line on stdout:
#   {"runs": K, "failures": F, "hangs": H, "seed": S}
# A failure or hang prints the command that reproduces it, and its output.
# docs/RELIABILITY.md says what is drawn and what was measured.
#
#   bash scripts/stress.sh --runs 30                 # build in build/stress, 30 runs
#   bash scripts/stress.sh --runs 1000 --seed 42     # the same 1000 configurations every time
#   bash scripts/stress.sh --runs 5 --mpi mpich      # MPICH, built in build/stress-mpich
#   bash scripts/stress.sh --runs 5 --build-dir build/ci-openmpi   # an existing build
#
# Options:
#   --runs K          configurations to run (default 30)
#   --seed S          seed of the draw (default: from the clock; printed)
#   --build-dir DIR   use this build (it must have built lb4mpi-stress-case):
#                     no Debian packages, no configure, no build; its mpiexec
#                     (MPIEXEC_EXECUTABLE in its CMakeCache.txt) unless --mpiexec
#   --mpi M           openmpi (default) or mpich: the MPI of the build made here
#   --mpiexec PATH    the mpiexec to run the configurations with
#   --timeout SEC     the watchdog's limit per run (default 60); a run killed by
#                     it counts as a hang
#   --first I         start at configuration I (default 0): with --runs 1, replays
#                     configuration I of the seed alone
#   --verbose         print every run's command, not only the failing ones
# Exit code: 0 when no run failed or hung; 1 otherwise; 2 bad usage or build.
#
# Environment: JOBS (default 2) for the build. LB4MPI_* variables of the
# caller are removed: the draw alone decides a run's options.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
JOBS="${JOBS:-2}"

usage() { sed -n '2,/^set -uo/p' "${BASH_SOURCE[0]}" | sed '$d' | sed 's/^# \{0,1\}//'; }
die() { echo "stress.sh: $*" >&2; exit 2; }

RUNS=30 SEED="" BUILD="" MPI=openmpi MPIEXEC="" TIMEOUT=60 FIRST=0 VERBOSE=0 INJECT=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --runs | --seed | --build-dir | --mpi | --mpiexec | --timeout | --first | --inject-fault)
      [[ $# -ge 2 ]] || die "$1 needs a value (see --help)"
      case "$1" in
        --runs) RUNS=$2 ;;
        --seed) SEED=$2 ;;
        --build-dir) BUILD=$2 ;;
        --mpi) MPI=$2 ;;
        --mpiexec) MPIEXEC=$2 ;;
        --timeout) TIMEOUT=$2 ;;
        --first) FIRST=$2 ;;
        --inject-fault) INJECT=$2 ;;  # tests of this script only: a fault in every run
      esac
      shift 2 ;;
    --verbose) VERBOSE=1; shift ;;
    -h | --help) usage; exit 0 ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
done
[[ "$RUNS" =~ ^[0-9]+$ ]] || die "--runs: a number >= 0, got '$RUNS'"
[[ "$FIRST" =~ ^[0-9]+$ ]] || die "--first: a number >= 0, got '$FIRST'"
[[ "$TIMEOUT" =~ ^[0-9]+$ && "$TIMEOUT" -ge 1 ]] || die "--timeout: seconds >= 1, got '$TIMEOUT'"
[[ -z "$SEED" ]] && SEED=$(date +%s)
[[ "$SEED" =~ ^[0-9]+$ ]] || die "--seed: a number >= 0, got '$SEED'"
[[ "$MPI" == openmpi || "$MPI" == mpich ]] || die "--mpi: openmpi or mpich, got '$MPI'"

# --- the driver: an existing build, or one made here ----------------------------------
if [[ -n "$BUILD" ]]; then
  BUILD="$(cd "$BUILD" 2>/dev/null && pwd)" || die "--build-dir: no such folder"
  DRIVER="$BUILD/tests/stress/lb4mpi-stress-case"
  [[ -x "$DRIVER" ]] || die "$DRIVER is missing: build it (cmake --build $BUILD --target lb4mpi-stress-case)"
  if [[ -z "$MPIEXEC" ]]; then
    MPIEXEC=$(sed -n 's/^MPIEXEC_EXECUTABLE:[A-Z]*=//p' "$BUILD/CMakeCache.txt" 2>/dev/null)
  fi
else
  bash "$ROOT/scripts/deps.sh" >&2 || die "installing the Debian packages failed"
  CMAKE_MPI=()
  BUILD="$ROOT/build/stress"
  if [[ "$MPI" == mpich ]]; then
    BUILD="$ROOT/build/stress-mpich"
    [[ -n "$MPIEXEC" ]] || MPIEXEC="$(command -v mpiexec.mpich)" || die "mpiexec.mpich not found"
    CMAKE_MPI=(-DMPI_CXX_COMPILER=mpicxx.mpich -DMPI_C_COMPILER=mpicc.mpich -DMPIEXEC_EXECUTABLE="$MPIEXEC")
  fi
  echo "== configure + build lb4mpi-stress-case (${BUILD#"$ROOT"/})" >&2
  mkdir -p "$BUILD" || die "cannot create $BUILD"
  # Release -O2 as the suite's configurations; only what the driver needs.
  cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE=-O2 \
    -DCMAKE_C_FLAGS_RELEASE=-O2 -DLB4MPI_BUILD_BENCH=OFF -DLB4MPI_BUILD_UNIT_TESTS=OFF \
    -DLB4MPI_BUILD_TOOLS=OFF "${CMAKE_MPI[@]}" >"$BUILD/stress-configure.log" 2>&1 \
    || { cat "$BUILD/stress-configure.log" >&2; die "configure failed"; }
  cmake --build "$BUILD" --target lb4mpi-stress-case -j "$JOBS" >&2 || die "build failed"
  DRIVER="$BUILD/tests/stress/lb4mpi-stress-case"
  [[ -n "$MPIEXEC" ]] || MPIEXEC=$(sed -n 's/^MPIEXEC_EXECUTABLE:[A-Z]*=//p' "$BUILD/CMakeCache.txt")
fi
[[ -n "$MPIEXEC" ]] || MPIEXEC="$(command -v mpiexec)" || die "no mpiexec found"
[[ -x "$MPIEXEC" ]] || MPIEXEC="$(command -v "$MPIEXEC")" || die "mpiexec '$MPIEXEC' not found"
command -v timeout >/dev/null || die "timeout (coreutils) not found"

# Open MPI as root, and more ranks than the cores (MPICH ignores these).
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_btl_vader_single_copy_mechanism=none
# The draw alone decides the options of a run.
while IFS= read -r var; do unset "$var"; done < <(compgen -v LB4MPI_ || true)

# Robust mode is drawn once the driver's lb4mpi has it (issue 12).
DRAW_ARGS=(--seed "$SEED" --runs $((FIRST + RUNS)))
FEATURES=$("$DRIVER" --features 2>/dev/null) || die "$DRIVER --features failed (is MPI usable?)"
[[ " $FEATURES " == *" robust "* ]] && DRAW_ARGS+=(--robust)
DRAWS=$(python3 "$ROOT/scripts/stress_draw.py" "${DRAW_ARGS[@]}") || die "scripts/stress_draw.py failed"
mapfile -t CONFIGS <<<"$DRAWS"

echo "== stress: $RUNS runs from configuration $FIRST, seed $SEED, mpiexec $MPIEXEC, watchdog ${TIMEOUT} s" >&2
OUT="$(mktemp -d)"
trap 'rm -rf "$OUT"' EXIT
FAILURES=0 HANGS=0 START=$SECONDS
for ((i = FIRST; i < FIRST + RUNS; i++)); do
  IFS='|' read -r ranks envs args <<<"${CONFIGS[$i]}"
  read -ra env_words <<<"$envs"
  read -ra arg_words <<<"$args"
  [[ -n "$INJECT" ]] && arg_words+=(--inject-fault "$INJECT")
  cmd=(timeout --signal=KILL "$TIMEOUT" "$MPIEXEC" -n "$ranks" "$DRIVER" "${arg_words[@]}")
  # The command as one line to paste into a shell (no value needs quoting).
  repro="${env_words[*]}${envs:+ }${cmd[*]}"
  t0=$EPOCHREALTIME
  # In a subshell whose stderr is dropped: bash reports there that the
  # watchdog killed the job ("Killed"), which the verdict says anyway.
  (env "${env_words[@]}" "${cmd[@]}" >"$OUT/run.log" 2>&1) 2>/dev/null
  rc=$?
  dt=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", b - a }')
  if [[ $rc -eq 0 ]]; then
    verdict="ok"
  elif [[ $rc -eq 137 ]]; then  # 128 + SIGKILL: the watchdog ended it
    verdict="HANG (killed after ${TIMEOUT} s)"
    HANGS=$((HANGS + 1))
  else
    verdict="FAILED (exit $rc)"
    FAILURES=$((FAILURES + 1))
  fi
  echo "[$((i - FIRST + 1))/$RUNS] #$i P=$ranks ${args%% --work-ns*}${envs:+ ($envs)}: $verdict, ${dt} s" >&2
  if [[ $rc -ne 0 || $VERBOSE -eq 1 ]]; then
    echo "  reproduce: OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 $repro" >&2
    echo "  replay:    bash scripts/stress.sh --seed $SEED --first $i --runs 1 --build-dir $BUILD --mpiexec $MPIEXEC --timeout $TIMEOUT${INJECT:+ --inject-fault $INJECT}" >&2
  fi
  if [[ $rc -ne 0 ]]; then
    echo "  output:" >&2
    [[ -s "$OUT/run.log" ]] || echo "(none)" >"$OUT/run.log"
    sed 's/^/  | /' "$OUT/run.log" | tail -n 40 >&2
  fi
done
echo "== stress: $RUNS runs, $FAILURES failures, $HANGS hangs, $((SECONDS - START)) s (seed $SEED)" >&2
echo "{\"runs\": $RUNS, \"failures\": $FAILURES, \"hangs\": $HANGS, \"seed\": $SEED}"
[[ $FAILURES -eq 0 && $HANGS -eq 0 ]]
