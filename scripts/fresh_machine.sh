#!/usr/bin/env bash
# Runs a command of the README on a fresh Debian 12 (bookworm) with git and
# nothing else: a debootstrap'ed root (minbase + git), a clone of this
# repository's HEAD inside it, and the command under chroot, timed.
#
#   sudo bash scripts/fresh_machine.sh                    # bash scripts/test.sh
#   sudo bash scripts/fresh_machine.sh bash scripts/demo.sh
#
# Environment: FRESH_BASE (default /srv/lb4mpi-fresh-base): the pristine root,
# made once with debootstrap (needs the debootstrap package and the Debian
# mirror); FRESH_ROOT (default /srv/lb4mpi-fresh): the copy each run starts
# from, wiped first. The chroot shares this machine's kernel and cores; /proc,
# /sys, /dev and /dev/shm are bind-mounted for MPI. Root only.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BASE="${FRESH_BASE:-/srv/lb4mpi-fresh-base}"
FRESH="${FRESH_ROOT:-/srv/lb4mpi-fresh}"
MIRROR="${FRESH_MIRROR:-http://deb.debian.org/debian}"
[[ $# -gt 0 ]] || set -- bash scripts/test.sh

if [[ $(id -u) -ne 0 ]]; then
  echo "fresh_machine.sh: needs root (debootstrap, chroot, mounts)" >&2
  exit 1
fi

if [[ ! -x "$BASE/usr/bin/git" ]]; then
  command -v debootstrap >/dev/null || apt-get install -y --no-install-recommends debootstrap
  echo "fresh_machine.sh: creating $BASE (debootstrap bookworm, minbase + git)"
  rm -rf "$BASE"
  debootstrap --variant=minbase --include=git,ca-certificates bookworm "$BASE" "$MIRROR"
fi

unmount_all() {
  local m
  for m in dev/shm dev/pts dev sys proc; do
    mountpoint -q "$FRESH/$m" && umount -l "$FRESH/$m" || true
  done
}
trap unmount_all EXIT

unmount_all
rm -rf "$FRESH"
cp -a "$BASE" "$FRESH"
# What an installed machine has and debootstrap does not write: its name
# resolves locally (else MPI's start-up waits for DNS, seconds per launch).
cp /etc/resolv.conf "$FRESH/etc/resolv.conf"
cp /etc/hosts "$FRESH/etc/hosts"
hostname >"$FRESH/etc/hostname"
mount -t proc proc "$FRESH/proc"
mount --rbind /sys "$FRESH/sys"
mount --rbind /dev "$FRESH/dev"
mkdir -p "$FRESH/dev/shm"
mountpoint -q "$FRESH/dev/shm" || mount -t tmpfs tmpfs "$FRESH/dev/shm"

# The repository as committed (HEAD), cloned as a user would.
git clone -q --no-hardlinks "$ROOT" "$FRESH/root/lb4mpi"

echo "fresh_machine.sh: running '$*' in a fresh Debian 12 ($(git -C "$ROOT" rev-parse --short HEAD))"
start=$SECONDS
set +e
chroot "$FRESH" /usr/bin/env -i HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  TERM=dumb LANG=C.UTF-8 bash -c 'cd /root/lb4mpi && "$@"' _ "$@"
rc=$?
set -e
echo "fresh_machine.sh: '$*' exited $rc after $((SECONDS - start)) s wall"
exit $rc
