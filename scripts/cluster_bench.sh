#!/usr/bin/env bash
# T_par of lb4mpi's modes on the emulated cluster (3 nodes x 2 ranks over TCP,
# scripts/cluster.sh) against 6 ranks on one host, alternating, REPS times
# each; prints the medians (docs/CLUSTER.md, "Which modes suit which networks").
#   scripts/cluster_bench.sh APPS_DIR [REPS ["NAME|APP ARGS..."...]]
set -uo pipefail
SELF="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
APPS=$1 REPS=${2:-5}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
CASES=("${@:3}")
[[ ${#CASES[@]} -gt 0 ]] || CASES=(
  "mandelbrot centralized|lb4mpi-mandelbrot --width 192 --threshold 3000 --technique FAC2 --mode centralized"
  "mandelbrot distributed|lb4mpi-mandelbrot --width 192 --threshold 3000 --technique FAC2 --mode distributed"
  "mandelbrot distributed-rma|lb4mpi-mandelbrot --width 192 --threshold 3000 --technique FAC2 --mode distributed-rma"
  "pisolver steal (relayed)|lb4mpi-pisolver --iterations 1500 --balancer steal --speeds 1,4,1,4,1,4"
  "pisolver a2ws|lb4mpi-pisolver --iterations 1500 --balancer a2ws --speeds 1,4,1,4,1,4"
)
t_par() { python3 -c 'import json,sys; print(json.loads([l for l in sys.stdin if l.startswith("{")][-1])["t_par_s"])'; }
median() { sort -g | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
printf '%-32s %12s %12s %8s\n' case "one host" "3x2 TCP" ratio
for c in "${CASES[@]}"; do
  name=${c%%|*} cmd=${c#*|}
  : >/tmp/cb.$$.one; : >/tmp/cb.$$.net
  for ((r = 0; r < REPS; ++r)); do
    # shellcheck disable=SC2086
    # one host: the same MPI components, shared memory instead of TCP
    timeout 300 mpiexec -n 6 --mca pml ob1 --mca btl self,vader --mca osc ucx \
      --mca btl_vader_single_copy_mechanism none $APPS/$cmd 2>/dev/null | t_par >>/tmp/cb.$$.one
    # shellcheck disable=SC2086
    timeout 300 bash "$SELF/cluster.sh" --nodes 3 --ranks-per-node 2 -- $APPS/$cmd 2>/dev/null | t_par >>/tmp/cb.$$.net
  done
  one=$(median </tmp/cb.$$.one) net=$(median </tmp/cb.$$.net)
  printf '%-32s %10.3f s %10.3f s %8.2f\n' "$name" "$one" "$net" "$(echo "$net / $one" | bc -l)"
done
rm -f /tmp/cb.$$.one /tmp/cb.$$.net
