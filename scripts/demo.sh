#!/usr/bin/env bash
# The main demo of lb4mpi: installs the Debian packages, builds a release
# build in build/release and runs the demo.
#   bash scripts/demo.sh          (BUILD_DIR=... to build elsewhere)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${BUILD_DIR:-$ROOT/build/release}"
JOBS="${JOBS:-2}"

bash "$ROOT/scripts/deps.sh"

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1

echo "== configure + build ($BUILD)"
cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DLB4MPI_BUILD_TESTS=OFF \
      -DLB4MPI_BUILD_BENCH=OFF >/dev/null
cmake --build "$BUILD" -j "$JOBS"

# ---------------------------------------------------------------------------
# The demo. Change this function to change what the demo shows.
demo() {
  echo
  echo "== demo: Mandelbrot on 4 ranks, several techniques side by side"
  /usr/bin/python3 "$ROOT/scripts/demo_compare.py" "$BUILD" "$ROOT/build/demo" --ranks 4
  echo
  echo "== the chunk sizes of all 21 techniques (lb4mpi-chunks --technique all)"
  "$BUILD/tools/lb4mpi-chunks" --technique all --iterations 1000 --ranks 4
}
# ---------------------------------------------------------------------------

demo
