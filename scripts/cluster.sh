#!/usr/bin/env bash
# An emulated cluster on one Linux machine: K "nodes", each a set of
# namespaces (its own host name, network stack and mount table), joined by a
# bridge; one mpiexec across them, TCP between nodes, shared memory within one
# (docs/CLUSTER.md, "The emulated cluster").
#
#   scripts/cluster.sh --nodes K --ranks-per-node R [--mpi openmpi|mpich]
#                      [--kill-node J --kill-after S] [--mpiexec-arg ARG]...
#                      -- PROGRAM ARGS...
#
#   --nodes K            nodes (1..64); node j is host lbc<pid>-n<j>, address 10.231.0.<j+1>
#   --ranks-per-node R   ranks on each node (1..64), consecutive ranks per node
#                        (ranks 0..R-1 on node 0, ...); K*R ranks in all
#   --mpi M              openmpi (mpiexec, default) or mpich (mpiexec.mpich)
#   --kill-node J        SIGKILL every rank of node J (the processes that the node's
#   --kill-after S         launch daemon started) S seconds (decimal) after they started,
#                        as a node crash would; adds Open MPI's --enable-recovery
#                        (MPICH: -disable-auto-cleanup) so that the others go on
#   --mpiexec-arg ARG    one more argument for mpiexec (repeatable)
#   --keep-output DIR    also keep the hostfile, hosts file and node pids in DIR
#   --private-tmp        each node gets a /tmp of its own (a tmpfs), as on a real cluster
#   --exec               run PROGRAM ARGS itself on node 0 instead of mpiexec, with
#                        CLUSTER_HOSTS (the node names), CLUSTER_AGENT
#                        (AGENT HOST COMMAND runs COMMAND on HOST), CLUSTER_MPIEXEC
#                        (MPIEXEC PROGRAM ARGS: the launch across the nodes), CLUSTER_HOSTFILE
#                        and CLUSTER_DIR (a scratch folder, removed at the end)
#                        in its environment (scripts/slurm_cluster.sh starts Slurm so)
#
# Prints the program's output; exits with mpiexec's exit status (2 on bad
# arguments, 3 when the cluster cannot be set up). Needs root (network, UTS and
# mount namespaces, veth pairs, a bridge). Nothing is created outside the
# namespaces: the bridge lives in a namespace of its own, the nodes' addresses
# and host names exist only inside them, the nodes see a private /etc/hosts
# (bind-mounted in their mount namespaces), and there is no route out.
# Everything is torn down on exit, on failure and on Ctrl-C; several
# invocations may run at once (names carry this script's pid).
set -uo pipefail

SELF="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
usage() { sed -n '2,/^set -uo/p' "${BASH_SOURCE[0]}" | sed '$d' | sed 's/^# \{0,1\}//'; }
die() { echo "cluster.sh: $*" >&2; exit 2; }

NODES="" RPN="" MPI=openmpi KILL_NODE="" KILL_AFTER="" EXTRA=() KEEP="" EXEC=0 PRIVATE_TMP=0
while [[ $# -gt 0 ]]; do
  case "$1" in
    --nodes) [[ $# -ge 2 ]] || die "--nodes needs a number"; NODES=$2; shift 2 ;;
    --ranks-per-node) [[ $# -ge 2 ]] || die "--ranks-per-node needs a number"; RPN=$2; shift 2 ;;
    --mpi) [[ $# -ge 2 ]] || die "--mpi needs a name: openmpi, mpich"; MPI=$2; shift 2 ;;
    --kill-node) [[ $# -ge 2 ]] || die "--kill-node needs a node number"; KILL_NODE=$2; shift 2 ;;
    --kill-after) [[ $# -ge 2 ]] || die "--kill-after needs seconds"; KILL_AFTER=$2; shift 2 ;;
    --mpiexec-arg) [[ $# -ge 2 ]] || die "--mpiexec-arg needs a value"; EXTRA+=("$2"); shift 2 ;;
    --keep-output) [[ $# -ge 2 ]] || die "--keep-output needs a folder"; KEEP=$2; shift 2 ;;
    --exec) EXEC=1; shift ;;
    --private-tmp) PRIVATE_TMP=1; shift ;;
    -h | --help) usage; exit 0 ;;
    --) shift; break ;;
    *) die "unknown argument '$1' (see --help; the program follows --)" ;;
  esac
done
[[ $# -ge 1 ]] || die "no program: scripts/cluster.sh --nodes K --ranks-per-node R -- PROGRAM ARGS..."
[[ "$NODES" =~ ^[0-9]+$ && $NODES -ge 1 && $NODES -le 64 ]] || die "--nodes must be 1..64, got '$NODES'"
[[ "$RPN" =~ ^[0-9]+$ && $RPN -ge 1 && $RPN -le 64 ]] || die "--ranks-per-node must be 1..64, got '$RPN'"
case "$MPI" in openmpi | mpich) ;; *) die "unknown MPI '$MPI'; valid: openmpi, mpich" ;; esac
if [[ -n "$KILL_NODE$KILL_AFTER" ]]; then
  [[ -n "$KILL_NODE" && -n "$KILL_AFTER" ]] || die "--kill-node and --kill-after go together"
  [[ "$KILL_NODE" =~ ^[0-9]+$ && $KILL_NODE -lt $NODES ]] || die "--kill-node must be 0..$((NODES - 1)), got '$KILL_NODE'"
  [[ "$KILL_AFTER" =~ ^[0-9]+(\.[0-9]+)?$ ]] || die "--kill-after must be seconds >= 0, got '$KILL_AFTER'"
fi
if [[ $(id -u) -ne 0 ]]; then
  echo "cluster.sh: needs root (it creates network, UTS and mount namespaces, veth pairs and a bridge);" \
    "run it as root or with sudo" >&2
  exit 2
fi
for tool in unshare nsenter ip mount hostname; do
  command -v "$tool" >/dev/null || { echo "cluster.sh: '$tool' not found (Debian: util-linux, iproute2)" >&2; exit 2; }
done
case "$MPI" in
  openmpi) MPIEXEC=$(command -v mpiexec.openmpi || command -v mpiexec || true) ;;
  mpich) MPIEXEC=$(command -v mpiexec.mpich || true) ;;
esac
[[ -n "$MPIEXEC" ]] || { echo "cluster.sh: no mpiexec for $MPI found" >&2; exit 2; }

ID="lbc$$"
SUBNET=10.231.0
# Outside /tmp, which the nodes may not share (--private-tmp).
mkdir -p /run/lb4mpi-cluster || { echo "cluster.sh: cannot create /run/lb4mpi-cluster" >&2; exit 3; }
STATE=$(mktemp -d "/run/lb4mpi-cluster/$$.XXXXXX")
SWITCH=""        # pid of the process that holds the bridge's namespace
NODE_PIDS=()     # pid of the process that holds node j's namespaces
LAUNCHER=""      # pid of mpiexec
KILLER=""        # pid of the --kill-node timer

net_ns() { readlink "/proc/$1/ns/net" 2>/dev/null; }

# "PID NETNS-INODE" of every process (one stat call).
all_net_ns() { stat -L -c '%n %i' /proc/[0-9]*/ns/net 2>/dev/null | sed -E 's#^/proc/([0-9]+)/ns/net #\1 #'; }
ns_inode() { stat -L -c %i "/proc/$1/ns/net" 2>/dev/null; }

# Every process in the namespaces of this invocation (they are ours: nobody
# else can enter them).
NS_INODES=""  # the network namespaces of this invocation (kept after their holders are gone)
our_processes() {
  all_net_ns | awk -v want="$NS_INODES " 'index(want, " " $2 " ") { print $1 }'
}

cleanup() {
  local rc=$?
  trap - EXIT INT TERM HUP
  [[ -n "$KILLER" ]] && kill "$KILLER" 2>/dev/null
  [[ -n "$LAUNCHER" ]] && kill -TERM "$LAUNCHER" 2>/dev/null && sleep 0.3
  # again until none is left: a daemon being launched may fork after a scan
  local pids i
  for ((i = 0; i < 50; ++i)); do
    pids=$(our_processes)
    [[ -n "$pids" ]] || break
    # shellcheck disable=SC2086
    kill -KILL $pids 2>/dev/null
    sleep 0.1
  done
  [[ -n "$KEEP" ]] && mkdir -p "$KEEP" && cp -f "$STATE"/hostfile "$STATE"/hosts "$STATE"/nodes "$KEEP"/ 2>/dev/null
  rm -rf "$STATE"
  exit "$rc"
}
trap cleanup EXIT
trap 'echo "cluster.sh: interrupted; tearing down" >&2; exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP
trap '' PIPE  # a closed output must not stop the teardown

setup_failed() { echo "cluster.sh: setting up the cluster failed: $*" >&2; exit 3; }

# hold NAMESPACE-FLAGS...: a sleeper in new namespaces; prints its pid once they exist.
hold() {
  unshare "$@" sleep infinity &
  local pid=$! own i
  disown "$pid"  # no job report when the teardown kills it
  own=$(net_ns $$)
  for ((i = 0; i < 500; ++i)); do
    [[ "$(net_ns "$pid")" != "$own" && -n "$(net_ns "$pid")" ]] && break
    sleep 0.01
  done
  [[ "$(net_ns "$pid")" != "$own" ]] || return 1
  HELD=$pid
}

# --- the switch: a bridge in a namespace of its own -------------------------------
hold --net || setup_failed "unshare --net (are network namespaces allowed here?)"
SWITCH=$HELD
NS_INODES+=" $(ns_inode "$SWITCH")"
nsenter --target "$SWITCH" --net ip link add br0 type bridge || setup_failed "bridge"
nsenter --target "$SWITCH" --net ip link set br0 up || setup_failed "bridge up"

# --- the nodes ----------------------------------------------------------------
{
  echo "127.0.0.1 localhost"
  for ((j = 0; j < NODES; ++j)); do echo "$SUBNET.$((j + 1)) $ID-n$j"; done
} >"$STATE/hosts"
: >"$STATE/nodes"
for ((j = 0; j < NODES; ++j)); do
  hold --uts --net --mount --propagation private || setup_failed "unshare for node $j"
  pid=$HELD
  NODE_PIDS+=("$pid")
  NS_INODES+=" $(ns_inode "$pid")"
  host="$ID-n$j"
  nsenter --target "$pid" --uts hostname "$host" || setup_failed "host name of node $j"
  nsenter --target "$pid" --mount mount --bind "$STATE/hosts" /etc/hosts || setup_failed "/etc/hosts of node $j"
  if [[ $PRIVATE_TMP -eq 1 ]]; then
    nsenter --target "$pid" --mount mount -t tmpfs -o size=1g,mode=1777 "tmp-$host" /tmp ||
      setup_failed "/tmp of node $j"
  fi
  nsenter --target "$SWITCH" --net ip link add "p$j" type veth peer name eth0 netns "$pid" ||
    setup_failed "veth of node $j"
  nsenter --target "$SWITCH" --net ip link set "p$j" master br0 up || setup_failed "port of node $j"
  nsenter --target "$pid" --net sh -c "ip link set lo up && ip addr add $SUBNET.$((j + 1))/24 dev eth0 &&
    ip link set eth0 up" || setup_failed "address of node $j"
  echo "$host $pid" >>"$STATE/nodes"
done

# The launch agent: mpiexec calls it as it would call ssh ([options] HOST
# COMMAND...); it runs COMMAND in HOST's namespaces.
cat >"$STATE/agent" <<EOF
#!/bin/bash
while [[ \$# -gt 0 && "\$1" == -* ]]; do shift; done
host=\$1; shift
pid=\$(awk -v h="\$host" '\$1 == h { print \$2 }' "$STATE/nodes")
[[ -n "\$pid" ]] || { echo "cluster agent: unknown host '\$host'" >&2; exit 255; }
# as ssh would: a fresh environment; mpiexec forwards what the ranks need
exec nsenter --target "\$pid" --uts --net --mount --wd="\$PWD" -- env -i PATH="\$PATH" HOME="\$HOME" \\
  LD_LIBRARY_PATH="\${LD_LIBRARY_PATH:-}" /bin/sh -c "\$*"
EOF
chmod +x "$STATE/agent"

# --- the launch ------------------------------------------------------------------
NP=$((NODES * RPN))
: >"$STATE/hostfile"
for ((j = 0; j < NODES; ++j)); do
  if [[ "$MPI" == openmpi ]]; then echo "$ID-n$j slots=$RPN" >>"$STATE/hostfile"
  else echo "$ID-n$j:$RPN" >>"$STATE/hostfile"; fi
done
if [[ "$MPI" == openmpi ]]; then
  # Two-sided: ob1 over the TCP btl between nodes, vader within one (the UCX
  # pml would choose for itself); the out-of-band channel on the nodes'
  # interface too. One-sided: osc ucx (UCX over TCP between
  # nodes): osc pt2pt, the other choice over TCP, made A2WS 4.6 times as slow
  # and refuses MPI_THREAD_MULTIPLE (mpi4py's default) (docs/CLUSTER.md);
  # and osc sm for the shared-memory windows within a node
  # (MPI_Win_allocate_shared: hierarchical mode's node pool), which osc ucx
  # cannot make ("MPI_ERR_INTERN").
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  CMD=("$MPIEXEC" --hostfile "$STATE/hostfile" -n "$NP" --map-by slot
    --mca plm_rsh_agent "$STATE/agent" --mca plm_rsh_no_tree_spawn 1
    --mca pml ob1 --mca btl tcp,self,vader --mca btl_tcp_if_include eth0 --mca oob_tcp_if_include eth0
    --mca osc sm,ucx --mca btl_vader_single_copy_mechanism none)
  [[ -n "$KILL_NODE" ]] && CMD+=(--enable-recovery)
else
  # UCX over TCP between nodes, its shared-memory transports within one.
  CMD=("$MPIEXEC" -f "$STATE/hostfile" -n "$NP" -launcher ssh -launcher-exec "$STATE/agent" -iface eth0
    -genv UCX_NET_DEVICES eth0 -genv UCX_TLS tcp,sm,self)
  [[ -n "$KILL_NODE" ]] && CMD+=(-disable-auto-cleanup)
fi
CMD+=("${EXTRA[@]}" "$@")
if [[ $EXEC -eq 1 ]]; then
  # CLUSTER_MPIEXEC PROGRAM ARGS: the launch above, for several launches in one cluster
  mkdir -p "$STATE/scratch"
  # (MPICH refuses a second -n: a leading "-n N" replaces the cluster's)
  {
    echo '#!/bin/bash'
    echo "np=$NP"
    echo 'if [[ "${1:-}" == -n ]]; then np=$2; shift 2; fi'
    printf 'exec'
    prev=""
    for x in "${CMD[@]::${#CMD[@]}-$#}"; do
      if [[ "$prev" == -n ]]; then printf ' "$np"'; else printf ' %q' "$x"; fi
      prev=$x
    done
    echo ' "$@"'
  } >"$STATE/mpiexec"
  chmod +x "$STATE/mpiexec"
  hosts=$(awk '{ printf "%s%s", sep, $1; sep = " " }' "$STATE/nodes")
  CMD=(env CLUSTER_HOSTS="$hosts" CLUSTER_AGENT="$STATE/agent" CLUSTER_MPIEXEC="$STATE/mpiexec"
    CLUSTER_HOSTFILE="$STATE/hostfile" CLUSTER_DIR="$STATE/scratch" "$@")
fi

# The ranks of node J: the descendants of its launch daemon (Open MPI's orted,
# or mpiexec itself on node 0; MPICH's hydra_pmi_proxy) in its namespace.
ranks_of_node() {
  local want p comm ppid daemons=() rows=()
  want=$(ns_inode "${NODE_PIDS[$1]}")
  for p in $(all_net_ns | awk -v want="$want" '$2 == want { print "/proc/" $1 }'); do
    comm=$(cat "$p/comm" 2>/dev/null) || continue
    ppid=$(awk '{ sub(/.*\) /, ""); print $2 }' "$p/stat" 2>/dev/null) || continue
    rows+=("${p#/proc/} $ppid")
    case "$comm" in orted | mpiexec* | mpirun* | orterun | prted | hydra_pmi_proxy)
      daemons+=("${p#/proc/}") ;; esac
  done
  # descendants of the daemons, within the namespace
  local found=("${daemons[@]}") changed=1 row pid par d
  while [[ $changed -eq 1 ]]; do
    changed=0
    for row in "${rows[@]}"; do
      read -r pid par <<<"$row"
      for d in "${found[@]}"; do
        if [[ "$par" == "$d" ]]; then
          [[ " ${found[*]} " == *" $pid "* ]] || { found+=("$pid"); changed=1; }
          break
        fi
      done
    done
  done
  for pid in "${found[@]}"; do [[ " ${daemons[*]} " == *" $pid "* ]] || echo "$pid"; done
}

# mpiexec runs on node 0, as on the first node of an allocation.
nsenter --target "${NODE_PIDS[0]}" --uts --net --mount --wd="$PWD" -- "${CMD[@]}" &
LAUNCHER=$!
if [[ -n "$KILL_NODE" ]]; then
  (
    # S seconds from the moment node J's ranks exist
    for ((i = 0; i < 6000; ++i)); do
      [[ $(ranks_of_node "$KILL_NODE" | wc -l) -ge $RPN ]] && break
      sleep 0.05
    done
    sleep "$KILL_AFTER"
    victims=$(ranks_of_node "$KILL_NODE" | tr '\n' ' ')
    echo "cluster.sh: node $KILL_NODE ($ID-n$KILL_NODE) crashes: SIGKILL to its ranks, pids ${victims:-none}" >&2
    # shellcheck disable=SC2086
    [[ -n "$victims" ]] && kill -KILL $victims 2>/dev/null
  ) &
  KILLER=$!
fi
# Wait for mpiexec. Open MPI 4.1's mpiexec --enable-recovery does not end
# after ranks on another node than its own died (its daemons stay; seen here
# with --kill-node and with lb4mpi's own failure injection): once no rank is
# left on any node for 3 s, the job is over and mpiexec is ended.
gone=0
while [[ $EXEC -eq 0 ]] && kill -0 "$LAUNCHER" 2>/dev/null; do
  sleep 0.5
  any=0
  for ((j = 0; j < NODES; ++j)); do [[ -n "$(ranks_of_node "$j")" ]] && { any=1; break; }; done
  if [[ $any -eq 0 ]]; then gone=$((gone + 1)); else gone=0; fi
  if [[ $gone -ge 6 ]]; then
    kill -0 "$LAUNCHER" 2>/dev/null || break
    echo "cluster.sh: every rank has ended but mpiexec has not after 3 s; ending it" >&2
    kill -TERM "$LAUNCHER" 2>/dev/null
    wait "$LAUNCHER" 2>/dev/null
    LAUNCHER=""
    # the program's output is complete; the status of the ranks is not known here
    [[ -n "$KILL_NODE" ]] && exit 0
    exit 1
  fi
done
wait "$LAUNCHER"
rc=$?
LAUNCHER=""
exit "$rc"
