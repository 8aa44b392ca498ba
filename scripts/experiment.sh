#!/usr/bin/env bash
# Runs an experiment of tools/experiments/designs/ from a fresh clone: the
# Debian packages (scripts/deps.sh), the builds the design needs (build/sim
# for simulated runs: -DLB4MPI_SIMGRID=ON; build/release for native ones;
# only the apps of the design), then the experiment runner. Results and
# figures in results/<design>/ (docs/EXPERIMENTS.md).
#
#   bash scripts/experiment.sh 001-delay-sim256            # a design by name
#   bash scripts/experiment.sh tools/experiments/designs/scale-sim.json --jobs 2
#
# Arguments after the design go to tools/experiments/lb4mpi_experiment.py
# (--out, --jobs, --timeout, --plot-only, ...). Environment: JOBS (build
# jobs, default the number of cores).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
JOBS="${JOBS:-$(nproc 2>/dev/null || echo 2)}"
if [[ $# -lt 1 || "$1" == -h || "$1" == --help ]]; then
  sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d' | sed 's/^# \{0,1\}//'
  echo "designs: $(cd "$ROOT/tools/experiments/designs" && ls ./*.json | sed 's|./||; s|\.json||' | tr '\n' ' ')"
  exit 0
fi
DESIGN="$1"
shift
if [[ ! -f "$DESIGN" ]]; then
  DESIGN="$ROOT/tools/experiments/designs/${DESIGN%.json}.json"
fi
if [[ ! -f "$DESIGN" ]]; then
  echo "experiment.sh: no design '$1'; the designs: $(cd "$ROOT/tools/experiments/designs" && ls ./*.json | sed 's|./||; s|\.json||' | tr '\n' ' ')" >&2
  exit 2
fi

bash "$ROOT/scripts/deps.sh"

# A Python 3 with matplotlib (a pyenv or venv python3 may lack it).
PY=""
for candidate in python3 /usr/bin/python3; do
  if command -v "$candidate" >/dev/null 2>&1 && "$candidate" -c "import matplotlib" 2>/dev/null; then
    PY="$candidate"
    break
  fi
done
[[ -n "$PY" ]] || { echo "experiment.sh: no Python 3 with matplotlib (apt-get install python3-matplotlib)" >&2; exit 1; }

# What the design runs: its platforms and apps.
read -r PLATFORMS APPS < <("$PY" -c '
import json, sys
f = json.load(open(sys.argv[1]))["factors"]
print(",".join(sorted(set(f.get("platform", [])))), ";".join(sorted(set(f.get("app", [])))))' "$DESIGN")

build() {  # build DIR CMAKE_ARGS...: configure once, build the design's apps
  local dir=$1
  shift
  local t0=$SECONDS
  # The options of scripts/demo.sh's build/release, so that the two share it.
  cmake -S "$ROOT" -B "$dir" -DCMAKE_BUILD_TYPE=Release -DLB4MPI_BUILD_TESTS=OFF -DLB4MPI_BUILD_BENCH=OFF \
    "$@" >/dev/null
  # shellcheck disable=SC2086
  cmake --build "$dir" -j "$JOBS" --target ${APPS//;/ }
  echo "experiment.sh: ${dir#"$ROOT"/} built in $((SECONDS - t0)) s"
}
ARGS=()
if [[ ",$PLATFORMS," == *",simulated,"* ]]; then
  build "$ROOT/build/sim" -DLB4MPI_SIMGRID=ON
  ARGS+=(--sim-build "$ROOT/build/sim")
fi
if [[ ",$PLATFORMS," == *",native,"* ]]; then
  build "$ROOT/build/release"
  ARGS+=(--native-build "$ROOT/build/release")
fi
exec "$PY" "$ROOT/tools/experiments/lb4mpi_experiment.py" "$DESIGN" "${ARGS[@]}" "$@"
