#!/usr/bin/env bash
# Installs the Debian (12, bookworm) packages lb4mpi needs to build, test and
# run its demos. Idempotent: when everything is installed it only checks and
# never calls apt (so CI as a user without sudo works); otherwise it names
# the missing packages, then installs them as root or through sudo (without
# the packages they merely recommend, which would double the download).
#   bash scripts/deps.sh           # check, install what is missing
#   bash scripts/deps.sh --check   # check only: exit 1 and name what is missing
#   bash scripts/deps.sh --cluster # also the emulated cluster's (scripts/test.sh --config cluster)
set -euo pipefail

PACKAGES=(
  build-essential cmake pkg-config git
  ninja-build  # scripts/test.sh builds with Ninja: ~10 % less than make's recursive builds
  clang libclang-rt-14-dev  # the sanitizer configuration and libFuzzer (scripts/test.sh)
  libgtest-dev libgmock-dev libbenchmark-dev
  libcli11-dev nlohmann-json3-dev libfmt-dev
  libopenmpi-dev openmpi-bin
  mpich libmpich-dev
  gfortran  # the Fortran modules DLS and lb4mpi (fortran/, docs/FORTRAN.md)
  python3 python3-matplotlib
  # the Python package lb4mpi (python/) and its tests and examples
  python3-dev pybind11-dev python3-mpi4py python3-numpy python3-pytest

  doxygen  # the API reference (cmake --build <dir> --target docs) and its test
  libsimgrid-dev  # SimGrid's SMPI: the simulation build (scripts/test.sh --config sim, docs/EXPERIMENTS.md)
)

check_only=0
for arg in "$@"; do
  case "$arg" in
    --check) check_only=1 ;;
    # the emulated cluster and its Slurm (docs/CLUSTER.md): only for that configuration
    --cluster) PACKAGES+=(iproute2 util-linux slurm-wlm munge) ;;
    *) echo "deps: unknown argument '$arg'; valid: --check, --cluster" >&2; exit 2 ;;
  esac
done

missing=()
for pkg in "${PACKAGES[@]}"; do
  status=$(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null || true)
  if [[ "$status" != "installed" ]]; then
    missing+=("$pkg")
  fi
done

if [[ ${#missing[@]} -eq 0 ]]; then
  echo "deps: all ${#PACKAGES[@]} Debian packages are installed"
  exit 0
fi

echo "deps: missing ${#missing[@]} of ${#PACKAGES[@]} Debian packages: ${missing[*]}"
if [[ $check_only -eq 1 ]]; then
  echo "deps: to install them: apt-get install --no-install-recommends ${missing[*]}" >&2
  exit 1
fi
echo "deps: installing them"
SUDO=()
if [[ $(id -u) -ne 0 ]]; then
  if ! command -v sudo >/dev/null 2>&1; then
    echo "deps: not root and no sudo; as root, run: apt-get install --no-install-recommends ${missing[*]}" >&2
    exit 1
  fi
  SUDO=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
"${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update
"${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
echo "deps: done"
