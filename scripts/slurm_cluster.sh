#!/usr/bin/env bash
# A local Slurm on the emulated cluster of scripts/cluster.sh: munged,
# slurmctld on node 0 and one slurmd per node (each in its node's namespaces,
# so each has its own host name and address), then COMMAND on node 0 — the
# "login node" — with SLURM_CONF pointing at the cluster's configuration.
# Everything (daemons, configuration, spool, the munge key) lives in the
# cluster's scratch folder and is torn down with it (docs/CLUSTER.md).
#
#   scripts/slurm_cluster.sh --nodes K --cpus-per-node C [--timeout S] -- COMMAND ARGS...
#
#   scripts/slurm_cluster.sh --nodes 3 --cpus-per-node 2 -- \
#       srun -N 3 -n 6 --mpi=pmix build/apps/lb4mpi-mandelbrot --width 128
#   scripts/slurm_cluster.sh --nodes 3 --cpus-per-node 2 -- \
#       sbatch --wait -N 3 --ntasks-per-node 2 -o job.out job.sh
#
# The partition is `lb4mpi` (default); nodes have C CPUs (Slurm is told so,
# whatever the machine has: SlurmdParameters=config_overrides). srun's MPI
# plugin defaults to pmix (Open MPI); --mpi=pmi2 for MPICH. --timeout bounds
# the wait for the nodes to come up (default 60 s). Exits with COMMAND's
# status (3: Slurm did not come up; its logs are printed). Needs root.
set -uo pipefail
SELF="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
usage() { sed -n '2,/^set -uo/p' "${BASH_SOURCE[0]}" | sed '$d' | sed 's/^# \{0,1\}//'; }
die() { echo "slurm_cluster.sh: $*" >&2; exit 2; }

# Inside the cluster (called back by cluster.sh --exec on node 0).
if [[ "${1:-}" == --inner ]]; then
  shift
  CPUS=$1 WAIT_S=$2; shift 2
  D=$CLUSTER_DIR/slurm
  read -r -a HOSTS <<<"$CLUSTER_HOSTS"
  mkdir -p "$D/ctld" "$D/log" "$D/munge"
  chmod 700 "$D/munge"
  # munge: a key of our own, a socket of our own (another munged may run here)
  mungekey --create --keyfile="$D/munge/munge.key" --force 2>/dev/null ||
    { dd if=/dev/urandom of="$D/munge/munge.key" bs=1024 count=1 status=none; }
  chmod 400 "$D/munge/munge.key"
  SOCK=$D/munge/munge.socket
  munged --force --socket="$SOCK" --key-file="$D/munge/munge.key" --pid-file="$D/munge/munged.pid" \
    --log-file="$D/log/munged.log" --seed-file="$D/munge/seed" --num-threads=2 ||
    { echo "slurm_cluster.sh: munged did not start" >&2; cat "$D/log/munged.log" >&2; exit 3; }
  NODELIST=$(IFS=,; echo "${HOSTS[*]}")
  cat >"$D/slurm.conf" <<EOF
ClusterName=lb4mpi
SlurmctldHost=${HOSTS[0]}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$SOCK
CredType=cred/munge
StateSaveLocation=$D/ctld
SlurmdSpoolDir=$D/spool-%n
SlurmctldPidFile=$D/slurmctld.pid
SlurmdPidFile=$D/slurmd-%n.pid
SlurmctldLogFile=$D/log/slurmctld.log
SlurmdLogFile=$D/log/slurmd-%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SwitchType=switch/none
MpiDefault=pmix
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/builtin
ReturnToService=2
SlurmdParameters=config_overrides
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SlurmctldTimeout=30
SlurmdTimeout=30
InactiveLimit=0
KillWait=5
MinJobAge=30
NodeName=$NODELIST CPUs=$CPUS State=UNKNOWN
PartitionName=lb4mpi Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=NO
EOF
  export SLURM_CONF=$D/slurm.conf
  slurmctld -f "$SLURM_CONF" || { echo "slurm_cluster.sh: slurmctld did not start" >&2; cat "$D/log/slurmctld.log" >&2; exit 3; }
  for h in "${HOSTS[@]}"; do
    mkdir -p "$D/spool-$h"
    "$CLUSTER_AGENT" "$h" "SLURM_CONF=$SLURM_CONF slurmd -f $SLURM_CONF -N $h" ||
      { echo "slurm_cluster.sh: slurmd on $h did not start" >&2; cat "$D/log/slurmd-$h.log" >&2; exit 3; }
  done
  # wait until every node is idle
  for ((i = 0; i < WAIT_S * 5; ++i)); do
    idle=$(sinfo -h -N -t idle -o %N 2>/dev/null | sort -u | wc -l)
    [[ $idle -eq ${#HOSTS[@]} ]] && break
    sleep 0.2
  done
  if [[ $idle -ne ${#HOSTS[@]} ]]; then
    echo "slurm_cluster.sh: only $idle of ${#HOSTS[@]} nodes idle after ${WAIT_S} s:" >&2
    sinfo -N >&2
    tail -n 20 "$D"/log/*.log >&2
    exit 3
  fi
  "$@"
  rc=$?
  [[ $rc -eq 0 ]] || { echo "slurm_cluster.sh: '$*' exited with $rc; the Slurm logs:" >&2; tail -n 30 "$D"/log/*.log >&2; }
  exit $rc
fi

NODES="" CPUS="" WAIT_S=60
while [[ $# -gt 0 ]]; do
  case "$1" in
    --nodes) [[ $# -ge 2 ]] || die "--nodes needs a number"; NODES=$2; shift 2 ;;
    --cpus-per-node) [[ $# -ge 2 ]] || die "--cpus-per-node needs a number"; CPUS=$2; shift 2 ;;
    --timeout) [[ $# -ge 2 ]] || die "--timeout needs seconds"; WAIT_S=$2; shift 2 ;;
    -h | --help) usage; exit 0 ;;
    --) shift; break ;;
    *) die "unknown argument '$1' (see --help; the command follows --)" ;;
  esac
done
[[ $# -ge 1 ]] || die "no command: scripts/slurm_cluster.sh --nodes K --cpus-per-node C -- COMMAND ARGS..."
[[ "$CPUS" =~ ^[0-9]+$ && $CPUS -ge 1 && $CPUS -le 64 ]] || die "--cpus-per-node must be 1..64, got '$CPUS'"
[[ "$WAIT_S" =~ ^[0-9]+$ && $WAIT_S -ge 1 ]] || die "--timeout must be whole seconds >= 1, got '$WAIT_S'"
for tool in munged mungekey slurmctld slurmd srun sbatch sinfo; do
  command -v "$tool" >/dev/null ||
    { echo "slurm_cluster.sh: '$tool' not found (Debian: slurm-wlm, munge; scripts/deps.sh --slurm)" >&2; exit 2; }
done
# cluster.sh checks --nodes and root.
exec bash "$SELF/cluster.sh" --nodes "$NODES" --ranks-per-node "$CPUS" --private-tmp --exec -- \
  bash "$SELF/slurm_cluster.sh" --inner "$CPUS" "$WAIT_S" "$@"
