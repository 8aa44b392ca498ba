#!/usr/bin/env bash
# A manual check of robust distributed-rma (docs/ROBUST.md, "What robust
# mode cannot survive"): kills a worker *inside* an MPI call on the
# coordinator's window, at a point chosen with gdb, and tells whether the
# loop still finished with the serial checksum. Not in the suite: it needs
# gdb and ptrace, which CI machines may not allow.
#
#   bash scripts/robust_lock_kill.sh BUILD_DIR [BREAK_SYMBOL]
#
# BUILD_DIR      an Open MPI build (apps/lb4mpi-mandelbrot)
# BREAK_SYMBOL   where rank 1 stops before it is killed (default
#                ompi_datatype_sndrcv: inside osc rdma's or osc sm's lock
#                when reached from an atomic, outside any lock from a get)
#
# It runs Mandelbrot on 3 ranks (--robust, distributed-rma, FAC), stops rank
# 1 at BREAK_SYMBOL once every rank announced its loop, prints rank 1's
# stack, SIGKILLs rank 1 there and rank 2 plainly, and waits 20 s.
# Exit 0: the loop finished with the serial checksum; 1: it hung (rank 0's
# stack is printed) or the checksum differs; 2: bad usage or no gdb.
# Every process it kills is one of its own mpiexec's ranks, found by pid.
# Before the fix of ef0ef48 (polls by MPI_Rget_accumulate) the coordinator
# hung every time; since, the loop finishes.
set -uo pipefail

build="${1:-}"
symbol="${2:-ompi_datatype_sndrcv}"
app="$build/apps/lb4mpi-mandelbrot"
if [[ -z "$build" || ! -x "$app" ]]; then
  echo "robust_lock_kill.sh: usage: bash scripts/robust_lock_kill.sh BUILD_DIR [BREAK_SYMBOL] (no $app)" >&2
  exit 2
fi
command -v gdb >/dev/null || { echo "robust_lock_kill.sh: needs gdb (apt-get install gdb)" >&2; exit 2; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1

work="$(mktemp -d)"
launcher=""
ranks=()  # the pids of this launcher's ranks (Open MPI gives them process groups of their own)
cleanup() {
  local p
  for p in "${ranks[@]}"; do kill -KILL "$p" 2>/dev/null; done
  if [[ -n "$launcher" ]] && kill -0 "$launcher" 2>/dev/null; then
    kill -KILL -- "-$launcher" 2>/dev/null || kill -KILL "$launcher" 2>/dev/null
  fi
  rm -rf "$work"
}
trap cleanup EXIT

args=(--width 192 --threshold 60000)
serial="$(mpiexec -n 1 "$app" "${args[@]}" 2>/dev/null | sed -n 's/.*"checksum":"\(0x[0-9a-f]*\)".*/\1/p' | head -1)"

setsid mpiexec --enable-recovery -n 3 "$app" "${args[@]}" --robust --robust-timeout 1 \
  --mode distributed-rma --technique FAC --announce-start >"$work/out" 2>"$work/err" &
launcher=$!

# The pid of rank R among this launcher's descendants.
rank_pid() {
  local p
  for p in $(pgrep -s "$launcher"); do
    if tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx "OMPI_COMM_WORLD_RANK=$1"; then
      echo "$p"
      return
    fi
  done
}

for _ in $(seq 200); do
  [[ "$(grep -c 'loop started' "$work/err" 2>/dev/null)" == 3 ]] && break
  sleep 0.05
done
r0="$(rank_pid 0)"
r1="$(rank_pid 1)"
r2="$(rank_pid 2)"
ranks=($r0 $r1 $r2)
if [[ -z "$r1" || -z "$r2" ]]; then
  echo "robust_lock_kill.sh: the ranks did not start (stderr: $(head -c 300 "$work/err"))" >&2
  exit 2
fi
echo "rank 1 = pid $r1, rank 2 = pid $r2; stopping rank 1 at $symbol"
(timeout 30 gdb -p "$r1" -batch -ex "break $symbol" -ex continue -ex "bt 6" -ex "signal SIGKILL" 2>&1; true) 2>/dev/null |
  grep '^#' | head -6
kill -KILL "$r2" 2>/dev/null

for _ in $(seq 200); do
  kill -0 "$launcher" 2>/dev/null || break
  sleep 0.1
done
if kill -0 "$launcher" 2>/dev/null; then
  echo "HUNG: the coordinator (rank 0) did not finish within 20 s; its stack:"
  [[ -n "$r0" ]] && gdb -p "$r0" -batch -ex "bt 10" 2>&1 | grep '^#' | head -10
  exit 1
fi
got="$(sed -n 's/.*"checksum":"\(0x[0-9a-f]*\)".*/\1/p' "$work/out" | head -1)"
failed="$(sed -n 's/.*"failed_ranks":\(\[[^]]*\]\).*/\1/p' "$work/out" | head -1)"
echo "finished: checksum $got (serial $serial), failed ranks $failed"
[[ -n "$got" && "$got" == "$serial" ]]
