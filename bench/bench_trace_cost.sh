#!/usr/bin/env bash
# Cost of tracing: the SS loop with an empty body, trace off / JSON / CSV,
# runs alternating so that machine noise hits all variants alike; prints
# the medians per rank count and variant.
#
#   bench/bench_trace_cost.sh BUILD_DIR                # N = 10^6, P = 2 and 4, 7 runs each
#   RUNS=9 PS="2 4 8" N=200000 bench/bench_trace_cost.sh build
#
# Environment: N (iterations), PS (rank counts), RUNS (runs per variant),
# VARIANTS (default "off json csv"), TECHNIQUE (SS), MODE (centralized),
# MPIEXEC (mpiexec), OUT (raw rows, default trace_cost.csv), TMPDIR (where
# the traces go; each is deleted after its run).
# Every row records t_par_s (the loop, as the report gives it) and wall_s
# (the whole parallel_for, so also gathering the records and writing the file).
set -euo pipefail

build=${1:?usage: bench_trace_cost.sh BUILD_DIR (the folder that holds bench/bench_trace_cost)}
exe=""
for c in "$build/bench/bench_trace_cost" "$build/bench_trace_cost"; do
  [[ -x $c ]] && exe=$c && break
done
[[ -n $exe ]] || { echo "bench_trace_cost.sh: no bench_trace_cost in $build/bench or $build" >&2; exit 2; }

N=${N:-1000000}
PS=${PS:-"2 4"}
RUNS=${RUNS:-7}
VARIANTS=${VARIANTS:-"off json csv"}
TECHNIQUE=${TECHNIQUE:-SS}
MODE=${MODE:-centralized}
MPIEXEC=${MPIEXEC:-mpiexec}
OUT=${OUT:-trace_cost.csv}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/lb4mpi_trace_cost.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# Open MPI as root, and more ranks than cores (ignored by MPICH).
export OMPI_ALLOW_RUN_AS_ROOT=${OMPI_ALLOW_RUN_AS_ROOT:-1} OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=${OMPI_ALLOW_RUN_AS_ROOT_CONFIRM:-1}
export OMPI_MCA_rmaps_base_oversubscribe=${OMPI_MCA_rmaps_base_oversubscribe:-1}

echo "variant,ranks,iterations,technique,mode,trace,execution,t_par_s,wall_s,chunks,trace_bytes" > "$OUT"
for p in $PS; do
  for ((run = 1; run <= RUNS; ++run)); do
    for v in $VARIANTS; do
      args=(--iterations "$N" --technique "$TECHNIQUE" --mode "$MODE")
      file=""
      case $v in
        off) ;;
        json) file=$tmp/t.json ;;
        csv) file=$tmp/t.csv ;;
        *) echo "bench_trace_cost.sh: unknown variant '$v' (off, json, csv)" >&2; exit 2 ;;
      esac
      [[ -n $file ]] && args+=(--trace "$file")
      row=$("$MPIEXEC" -n "$p" "$exe" "${args[@]}")
      bytes=0
      [[ -n $file && -f $file ]] && bytes=$(stat -c %s "$file")
      echo "$v,$row,$bytes" >> "$OUT"
      rm -f "$tmp"/t.*
    done
  done
done

python3 - "$OUT" <<'EOF'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
med = statistics.median
# Rows come in rounds: for each P, run 1 gives off, json, csv one after the
# other, then run 2, ... A round's ratio compares runs made seconds apart, so
# it suffers less from load that drifts over minutes on a shared machine.
groups, rounds, variants = {}, {}, []
for r in rows:
    p, v = int(r["ranks"]), r["variant"]
    if v not in variants:
        variants.append(v)
    groups.setdefault((p, v), []).append(r)
    rounds.setdefault((p, len(groups[(p, v)])), {})[v] = r
print(f"{rows[0]['technique']} {rows[0]['mode']}, N = {rows[0]['iterations']}, "
      f"{len(next(iter(groups.values())))} alternating runs per variant (raw rows: {sys.argv[1]})")
print("medians; 'paired' = median over rounds of (this run / the off run of the same round)")
print(f"{'P':>3} {'trace':>6} {'T_par [s]':>10} {'paired':>7} {'wall [s]':>10} {'paired':>7} {'file [MB]':>10}")
for (p, v), rs in sorted(groups.items(), key=lambda kv: (kv[0][0], variants.index(kv[0][1]))):
    tp = med(float(r["t_par_s"]) for r in rs)
    wall = med(float(r["wall_s"]) for r in rs)
    mb = med(int(r["trace_bytes"]) for r in rs) / 1e6
    pairs = [rd for (pp, _), rd in rounds.items() if pp == p and "off" in rd and v in rd]
    rt = med(float(rd[v]["t_par_s"]) / float(rd["off"]["t_par_s"]) for rd in pairs) if pairs else float("nan")
    rw = med(float(rd[v]["wall_s"]) / float(rd["off"]["wall_s"]) for rd in pairs) if pairs else float("nan")
    print(f"{p:>3} {v:>6} {tp:>10.3f} {rt:>7.2f} {wall:>10.3f} {rw:>7.2f} {mb:>10.1f}")
EOF
