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
      -DLB4MPI_BUILD_BENCH=OFF -DLB4MPI_BUILD_PYTHON=ON >/dev/null
cmake --build "$BUILD" -j "$JOBS"

# ---------------------------------------------------------------------------
# The demo. Change this function to change what the demo shows.
demo() {
  echo
  echo "== demo: Mandelbrot on 4 ranks, several techniques side by side"
  /usr/bin/python3 "$ROOT/scripts/demo_compare.py" "$BUILD" "$ROOT/build/demo" --ranks 4
  echo
  echo "== the same set from Python (mpi4py + NumPy, docs/PYTHON.md): examples/python/mandelbrot.py on 4 ranks"
  local python cxx py
  python=$(sed -n 's/^LB4MPI_PYTHON:FILEPATH=//p' "$BUILD/CMakeCache.txt")
  cxx=$(mpiexec -n 4 "$BUILD/apps/lb4mpi-mandelbrot" --width 384 --threshold 2000)
  py=$(PYTHONPATH="$BUILD/python" mpiexec -n 4 "$python" "$ROOT/examples/python/mandelbrot.py" \
       --width 384 --threshold 2000)
  /usr/bin/python3 - "$cxx" "$py" <<'PY'
import json, sys
for name, out in (("C++ lb4mpi-mandelbrot", sys.argv[1]), ("Python mandelbrot.py", sys.argv[2])):
    s = json.loads(out)
    print(f"{name:22} {s['technique']}/{s['mode']}: T_par {s['t_par_s']:.3f} s, {s['chunks']} chunks, "
          f"iterations per rank {s['iterations_per_rank']}, checksum {s['checksum']}")
PY
  echo
  echo "== the chunk sizes of all 21 techniques (lb4mpi-chunks --technique all)"
  "$BUILD/tools/lb4mpi-chunks" --technique all --iterations 1000 --ranks 4
}
# ---------------------------------------------------------------------------

demo
