#!/usr/bin/env bash
# The Debian packages, end to end (opt-in: it installs packages, so it is no
# ctest; run it as root, or as a user with sudo):
#   1. builds lb4mpi for /usr and makes lb4mpi_<v>-1_<arch>.deb and
#      lb4mpi-dev_<v>-1_<arch>.deb with CPack (cmake/Packaging.cmake), and
#      python3-lb4mpi_<v>-1_<arch>.deb when the Python package is built (Open MPI:
#      Debian's mpi4py is built on it);
#   2. installs them with `apt-get install ./lb4mpi_*.deb ./lb4mpi-dev_*.deb ...`
#      (apt fetches their dependencies, e.g. libopenmpi3, libopenmpi-dev);
#   3. builds the consumers of tests/consumers/ against /usr, with no search
#      path given — a C++ CMake project, a C CMake project, mpicc and mpicxx
#      through pkg-config, each shared and static — and runs each under
#      mpiexec on 2 ranks (exactly-once check); runs /usr/bin/lb4mpi-chunks;
#      with python3-lb4mpi, tests/consumers/python/consumer.py under mpiexec;
#   4. removes the packages again (apt-get purge) and checks that no file is
#      left, also when a step failed.
# Steps 2-4 run on this machine, or with --fresh in a copy of a fresh Debian
# 12 root (debootstrap --variant=minbase, e.g. the one scripts/fresh_machine.sh
# keeps in /srv/lb4mpi-fresh-base), under chroot: there the packages meet a
# system with nothing else installed; the copy is deleted afterwards.
#
#   sudo bash scripts/check_deb.sh                # Open MPI, Debian's default MPI
#   sudo bash scripts/check_deb.sh --mpi mpich    # the same packages built on MPICH
#   sudo bash scripts/check_deb.sh --fresh /srv/lb4mpi-fresh-base
#   bash scripts/check_deb.sh --keep              # leave the packages installed
#
# Environment: BUILD_DIR (default build/deb-<mpi>), JOBS (default: the cores).
# On this machine, refuses to run when a package named lb4mpi or lb4mpi-dev is
# installed already (it would replace and then remove it).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
JOBS="${JOBS:-$(nproc 2>/dev/null || echo 2)}"
MPI=openmpi
KEEP=0
FRESH_BASE=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --mpi)
      [[ $# -ge 2 ]] || { echo "check_deb.sh: --mpi needs openmpi or mpich" >&2; exit 2; }
      MPI=$2; shift 2 ;;
    --fresh)
      [[ $# -ge 2 ]] || { echo "check_deb.sh: --fresh needs a Debian root folder" >&2; exit 2; }
      FRESH_BASE=$2; shift 2 ;;
    --keep) KEEP=1; shift ;;
    -h | --help) sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "check_deb.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
case "$MPI" in
  # The wrappers and launcher, and the Debian packages that bring them.
  openmpi) MPICC=mpicc MPICXX=mpicxx MPIEXEC=mpiexec MPI_PACKAGES=(openmpi-bin) ;;
  mpich) MPICC=mpicc.mpich MPICXX=mpicxx.mpich MPIEXEC=mpiexec.mpich MPI_PACKAGES=(mpich) ;;
  *) echo "check_deb.sh: --mpi must be openmpi or mpich, not '$MPI'" >&2; exit 2 ;;
esac
BUILD="${BUILD_DIR:-$ROOT/build/deb-$MPI}"
if [[ -n "$FRESH_BASE" && ! -x "$FRESH_BASE/usr/bin/apt-get" ]]; then
  echo "check_deb.sh: --fresh $FRESH_BASE is no Debian root (no usr/bin/apt-get)" >&2
  exit 2
fi

SUDO=()
if [[ $(id -u) -ne 0 ]]; then
  command -v sudo >/dev/null || { echo "check_deb.sh: needs root or sudo (apt-get install)" >&2; exit 1; }
  SUDO=(sudo)
fi
HOST_APT=("${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get)
if [[ -z "$FRESH_BASE" ]]; then
  for pkg in lb4mpi lb4mpi-dev python3-lb4mpi; do
    if dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null | grep -q '^installed$'; then
      echo "check_deb.sh: $pkg is installed already; remove it first (apt-get purge $pkg)" >&2
      exit 1
    fi
  done
fi
# To build: CPack's dependency scan (dpkg-shlibdeps) needs `file`, which
# Debian's build packages do not bring; MPICH's wrappers for --mpi mpich.
need=()
command -v file >/dev/null || need+=(file)
command -v dpkg-shlibdeps >/dev/null || need+=(dpkg-dev)
command -v "$MPICC" >/dev/null || need+=("${MPI_PACKAGES[@]}" "lib$MPI-dev")
if [[ ${#need[@]} -gt 0 ]]; then
  echo "== check_deb: installing ${need[*]} to build"
  "${HOST_APT[@]}" install -y --no-install-recommends "${need[@]}"
fi
# Open MPI as root, and 2 ranks on any machine.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
step() { echo; echo "== check_deb: $*"; }

# --- 1. build and package ------------------------------------------------------
step "building for /usr with $MPI in $BUILD"
cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX=/usr \
  -DLB4MPI_BUILD_TESTS=OFF -DLB4MPI_BUILD_BENCH=OFF \
  -DMPI_C_COMPILER="$MPICC" -DMPI_CXX_COMPILER="$MPICXX" -DMPIEXEC_EXECUTABLE="$(command -v "$MPIEXEC")"
cmake --build "$BUILD" -j "$JOBS"
rm -f "$BUILD"/lb4mpi*.deb
(cd "$BUILD" && cpack -G DEB)
shopt -s nullglob
runtime=("$BUILD"/lb4mpi_*.deb)
dev=("$BUILD"/lb4mpi-dev_*.deb)
python=("$BUILD"/python3-lb4mpi_*.deb)
shopt -u nullglob
if [[ ${#runtime[@]} -ne 1 || ${#dev[@]} -ne 1 ]]; then
  echo "check_deb.sh: expected one lb4mpi_*.deb and one lb4mpi-dev_*.deb in $BUILD" >&2
  exit 1
fi
debs=("${runtime[0]}" "${dev[0]}" "${python[@]}")
for deb in "${debs[@]}"; do
  echo "-- $(basename "$deb"): $(dpkg-deb -f "$deb" Version), $(dpkg-deb -c "$deb" | wc -l) entries"
  echo "   Depends: $(dpkg-deb -f "$deb" Depends)"
  echo "   Recommends: $(dpkg-deb -f "$deb" Recommends)"
done

# --- where steps 2-4 run: this machine, or a chroot into a fresh root ---------------
# `target CMD...` runs a command there; $TEST is a folder there (the packages,
# the consumers' sources and check_install.cmake are copied in).
if [[ -n "$FRESH_BASE" ]]; then
  FRESH="$BUILD/fresh-root"
  unmount_fresh() {
    local m
    for m in dev/shm dev sys proc; do
      mountpoint -q "$FRESH/$m" && "${SUDO[@]}" umount -l "$FRESH/$m" || true
    done
  }
  unmount_fresh
  "${SUDO[@]}" rm -rf "$FRESH"
  step "a fresh Debian root: copying $FRESH_BASE to $FRESH"
  "${SUDO[@]}" cp -a "$FRESH_BASE" "$FRESH"
  # Name resolution as on an installed machine (the mirror; MPI's start-up).
  "${SUDO[@]}" cp /etc/resolv.conf /etc/hosts "$FRESH/etc/"
  "${SUDO[@]}" mount -t proc proc "$FRESH/proc"
  "${SUDO[@]}" mount --rbind /sys "$FRESH/sys"
  "${SUDO[@]}" mount --rbind /dev "$FRESH/dev"
  "${SUDO[@]}" mkdir -p "$FRESH/dev/shm"
  mountpoint -q "$FRESH/dev/shm" || "${SUDO[@]}" mount -t tmpfs tmpfs "$FRESH/dev/shm"
  TEST=/root/lb4mpi-deb
  "${SUDO[@]}" mkdir -p "$FRESH$TEST/scripts" "$FRESH$TEST/tests"
  "${SUDO[@]}" cp "${debs[@]}" "$FRESH$TEST/"
  "${SUDO[@]}" cp -r "$ROOT/tests/consumers" "$FRESH$TEST/tests/"
  "${SUDO[@]}" cp "$ROOT/scripts/check_install.cmake" "$FRESH$TEST/scripts/"
  target() {
    "${SUDO[@]}" chroot "$FRESH" /usr/bin/env -i HOME=/root LANG=C.UTF-8 TERM=dumb \
      PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive \
      OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 "$@"
  }
  step "apt-get update in the fresh root"
  target apt-get update -q
else
  TEST="$ROOT"
  target() { "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive "$@"; }
fi
DEBS="$TEST"
[[ -n "$FRESH_BASE" ]] || DEBS="$BUILD"

# --- 2. install -----------------------------------------------------------------
cleanup() {
  local rc=$?
  if [[ $KEEP -eq 0 ]]; then
    step "removing the packages"
    target apt-get purge -y -q lb4mpi-dev lb4mpi ${python:+python3-lb4mpi} >/dev/null || rc=1
    local left
    left=$(target find /usr/include /usr/lib -maxdepth 3 \( -name 'lb4mpi*' -o -name 'liblb4mpi*' \) \
           2>/dev/null || true)
    if [[ -n "$left" ]]; then
      echo "check_deb.sh: files of lb4mpi are left after the removal: $left" >&2
      rc=1
    else
      echo "-- removed; no lb4mpi file left in /usr"
    fi
  fi
  if [[ -n "$FRESH_BASE" ]]; then
    unmount_fresh
    [[ $KEEP -eq 1 ]] || "${SUDO[@]}" rm -rf "$FRESH"
  fi
  if [[ $rc -eq 0 ]]; then echo "== check_deb: PASSED ($MPI${FRESH_BASE:+, fresh root})"; else
    echo "== check_deb: FAILED ($MPI${FRESH_BASE:+, fresh root})" >&2; fi
  exit $rc
}
trap cleanup EXIT
install_args=()
for deb in "${debs[@]}"; do install_args+=("./$(basename "$deb")"); done
step "apt-get install ${install_args[*]}"
target bash -c "cd '$DEBS' && apt-get install -y --no-install-recommends ${install_args[*]}"
target ldconfig -p | grep liblb4mpi || { echo "check_deb.sh: the loader does not know liblb4mpi" >&2; exit 1; }
chunks=$(target /usr/bin/lb4mpi-chunks -t FAC2 -n 1000 -p 4 --form closed)
head -n 3 <<<"$chunks"

# --- 3. consumers against /usr ----------------------------------------------------
# What a user installs to build and run programs: a build system, pkg-config,
# the C++ compiler, the MPI launcher (already there on this machine).
tools=(cmake pkg-config make g++ "${MPI_PACKAGES[@]}")
if [[ -n "$FRESH_BASE" ]] || ! command -v cmake pkg-config make g++ "$MPIEXEC" >/dev/null; then
  step "the tools to build and run the consumers: ${tools[*]}"
  target apt-get install -y -q --no-install-recommends "${tools[@]}" >/dev/null
fi
WORK="$TEST/consumer-builds"
[[ -n "$FRESH_BASE" ]] || WORK="$BUILD/consumers"
target rm -rf "$WORK"
for kind in cmake_cxx cmake_c pkgconfig; do
  for variant in shared static; do
    step "consumer $kind, $variant"
    target cmake -DMODE=consumer -DSYSTEM=ON -DKIND="$kind" -DVARIANT="$variant" -DWORK_DIR="$WORK" \
      -DCONSUMERS_DIR="$TEST/tests/consumers" -DMPI_C_COMPILER="$MPICC" -DMPI_CXX_COMPILER="$MPICXX" \
      -DMPIEXEC="/usr/bin/$MPIEXEC" -P "$TEST/scripts/check_install.cmake"
  done
done
# The Fortran modules, when the packages carry them (LB4MPI_BUILD_FORTRAN):
# a Fortran-only CMake project and mpifort with pkg-config lb4mpi-fortran.
if target sh -c 'ls /usr/lib/*/pkgconfig/lb4mpi-fortran.pc' >/dev/null 2>&1; then
  MPIFORT="${MPICC/mpicc/mpifort}"
  if [[ -n "$FRESH_BASE" ]] || ! command -v gfortran >/dev/null; then
    step "gfortran for the Fortran consumers"
    target apt-get install -y -q --no-install-recommends gfortran >/dev/null
  fi
  for kind in cmake_fortran pkgconfig_fortran; do
    step "consumer $kind"
    target cmake -DMODE=consumer -DSYSTEM=ON -DKIND="$kind" -DVARIANT=shared -DWORK_DIR="$WORK" \
      -DCONSUMERS_DIR="$TEST/tests/consumers" -DMPI_Fortran_COMPILER="$MPIFORT" \
      -DMPIEXEC="/usr/bin/$MPIEXEC" -P "$TEST/scripts/check_install.cmake"
  done
fi
if [[ ${#python[@]} -gt 0 ]]; then
  step "consumer python (python3-lb4mpi, from /usr/lib/python3/dist-packages)"
  target cmake -DMODE=consumer -DSYSTEM=ON -DKIND=python -DVARIANT=shared -DWORK_DIR="$WORK" \
    -DCONSUMERS_DIR="$TEST/tests/consumers" -DPYTHON=/usr/bin/python3 \
    -DMPIEXEC="/usr/bin/$MPIEXEC" -P "$TEST/scripts/check_install.cmake"
fi
