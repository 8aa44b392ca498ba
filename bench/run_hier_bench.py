#!/usr/bin/env python3
"""Hierarchical mode natively (issue 29): the synthetic app on P ranks as
emulated nodes (--ranks-per-node), beside the flat modes, in one run:
every configuration once per round, rounds interleaved, medians of T_par.

  bench/run_hier_bench.py --build-dir build/dev --ranks 4 --ranks-per-node 2 --rounds 5

Prints a Markdown table: per configuration the median T_par, min-max, and
the median ratio to the flat distributed mode of the same round.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

FLAT = ["centralized", "distributed", "distributed-rma"]


def configs(technique: str, node_technique: str, rpn: int) -> list[tuple[str, list[str]]]:
    out = [(m, ["--mode", m, "--technique", technique]) for m in FLAT]
    for g in FLAT:
        out.append((f"hierarchical, global {g}, node {node_technique}",
                    ["--mode", "hierarchical", "--technique", technique, "--node-technique", node_technique,
                     "--global-mode", g, "--ranks-per-node", str(rpn)]))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build-dir", default="build/dev")
    ap.add_argument("--ranks", type=int, default=4)
    ap.add_argument("--ranks-per-node", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--technique", default="FAC2")
    ap.add_argument("--node-technique", default="GSS")
    ap.add_argument("--app-args", default="--iterations 20000 --distribution gamma --mean-us 50 --cov 1")
    ap.add_argument("--timeout", type=float, default=120)
    a = ap.parse_args()
    app = Path(a.build_dir) / "apps" / "lb4mpi-synthetic"
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1")
    cells = configs(a.technique, a.node_technique, a.ranks_per_node)
    tpar: dict[str, list[float]] = {name: [] for name, _ in cells}
    ratio: dict[str, list[float]] = {name: [] for name, _ in cells}
    checksums = set()
    for r in range(a.rounds):
        this: dict[str, float] = {}
        for name, args in cells:
            cmd = ["mpiexec", "--bind-to", "none", "-n", str(a.ranks), str(app)] + a.app_args.split() + args
            out = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=a.timeout, check=True).stdout
            j = json.loads([l for l in out.splitlines() if l.startswith("{")][-1])
            this[name] = j["t_par_s"]
            tpar[name].append(j["t_par_s"])
            checksums.add(j["checksum"])
        for name in this:
            ratio[name].append(this[name] / this["distributed"])
        print(f"round {r + 1}/{a.rounds} done", file=sys.stderr, flush=True)
    print(f"P = {a.ranks}, nodes of {a.ranks_per_node}, {a.technique}, app: {a.app_args}; "
          f"{a.rounds} rounds; checksums: {sorted(checksums)}")
    print()
    print("| configuration | T_par median [s] | min - max [s] | / distributed (median of rounds) |")
    print("|---|--:|--:|--:|")
    for name, _ in cells:
        v = tpar[name]
        print(f"| {name} | {statistics.median(v):.4f} | {min(v):.4f} - {max(v):.4f} | "
              f"{statistics.median(ratio[name]):.3f} |")
    return 0 if len(checksums) == 1 else 1


if __name__ == "__main__":
    sys.exit(main())
