#!/usr/bin/env bash
# lb4mpi under a local Slurm on the emulated cluster (scripts/slurm_cluster.sh,
# docs/CLUSTER.md): 3 nodes x 2 CPUs, one slurmd each. Runs lb4mpi-mandelbrot
# with `srun --mpi=pmix` in every mode and with `sbatch --wait` of the batch
# script of docs/CLUSTER.md (taken from the page), and checks the checksums
# against the serial run and that the ranks ran on 3 hosts, 2 each.
#   tests/slurm/slurm_runs.sh APPS_DIR
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
APPS=$1
WORK=$(mktemp -d "$PWD/slurm-test.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
ARGS="--width 128 --threshold 2000"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# the batch script of docs/CLUSTER.md: the ```bash block after its marker
awk '/<!-- sbatch-example -->/ { on = 1; next } on && /^```bash/ { take = 1; next } take && /^```/ { exit } take' \
  "$ROOT/docs/CLUSTER.md" >"$WORK/job.sh"
grep -q '^#SBATCH' "$WORK/job.sh" || { echo "FAIL: no batch script in docs/CLUSTER.md" >&2; exit 1; }

cat >"$WORK/inner.sh" <<EOI
set -u
# Open MPI 4.1 over TCP: one one-sided component for every window (docs/CLUSTER.md)
export OMPI_MCA_osc=sm,ucx
cd "$WORK"
serial=\$(mpiexec -n 1 "$APPS/lb4mpi-mandelbrot" $ARGS | python3 -c 'import json,sys; print(json.load(sys.stdin)["checksum"])')
echo "serial checksum \$serial"
fail=0
for mode in centralized distributed distributed-rma; do
  out=\$(srun -N 3 -n 6 --mpi=pmix "$APPS/lb4mpi-mandelbrot" $ARGS --mode \$mode) || { echo "FAIL: srun \$mode"; fail=1; continue; }
  got=\$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["checksum"])' "\$out")
  if [[ "\$got" == "\$serial" ]]; then echo "ok    srun --mpi=pmix \$mode: checksum \$got"
  else echo "FAIL  srun --mpi=pmix \$mode: checksum \$got, serial \$serial"; fail=1; fi
done
hosts=\$(srun -N 3 -n 6 --mpi=pmix hostname | sort | uniq -c | awk '{ print \$1 }' | tr '\n' ' ')
if [[ "\$hosts" == "2 2 2 " ]]; then echo "ok    srun: 2 ranks on each of 3 hosts"
else echo "FAIL  srun: ranks per host \$hosts, expected 2 2 2"; fail=1; fi
APP="$APPS/lb4mpi-mandelbrot" APP_ARGS="$ARGS" sbatch --wait -o "$WORK/job.out" "$WORK/job.sh" ||
  { echo "FAIL: sbatch"; cat "$WORK/job.out"; fail=1; }
got=\$(grep '^{' "$WORK/job.out" | python3 -c 'import json,sys; print(json.load(sys.stdin)["checksum"])')
if [[ "\$got" == "\$serial" ]]; then echo "ok    sbatch (docs/CLUSTER.md's script): checksum \$got"
else echo "FAIL  sbatch: checksum \$got, serial \$serial"; cat "$WORK/job.out"; fail=1; fi
exit \$fail
EOI
timeout 280 bash "$ROOT/scripts/slurm_cluster.sh" --nodes 3 --cpus-per-node 2 -- bash "$WORK/inner.sh"
