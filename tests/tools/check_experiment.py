#!/usr/bin/env python3
"""Tests of the experiment runner (tools/experiments/lb4mpi_experiment.py).

  check_experiment.py run --design DESIGN --out DIR [--native-build B] [--sim-build B] [--mpiexec M] [--resume]
      The runner on a design: exit 0 (every run ok, equal checksums), one
      CSV row per run of the design, every figure drawn; a run that stops
      ranks (fail_ranks) names them failed. With --resume: a
      second invocation runs nothing, and a run removed from the CSV is run
      again (and only it).

  check_experiment.py errors --out DIR
      Bad designs end with exit 2 and a message naming the problem and the
      valid choices, before anything runs.
"""
import argparse
import csv
import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
RUNNER = REPO / "tools" / "experiments" / "lb4mpi_experiment.py"


def fail(msg: str) -> None:
    print(f"check_experiment: FAILED: {msg}", flush=True)
    sys.exit(1)


def runner(args: list[str]) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(RUNNER)] + args, capture_output=True, text=True, timeout=600)


def read_csv(path: Path) -> list[dict]:
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def run(a) -> None:
    design = json.loads(Path(a.design).read_text())
    out = Path(a.out)
    if out.exists():
        for f in out.iterdir():
            f.unlink()
    args = [a.design, "--out", str(out)]
    if a.native_build:
        args += ["--native-build", a.native_build]
    if a.sim_build:
        args += ["--sim-build", a.sim_build]
    if a.mpiexec:
        args += ["--mpiexec", a.mpiexec]
    p = runner(args)
    print(p.stderr[-3000:], flush=True)
    if p.returncode != 0:
        fail(f"the runner exited {p.returncode}")
    expected = design.get("repetitions", 1)
    for levels in design["factors"].values():
        expected *= len(levels)
    rows = read_csv(out / "runs.csv")
    if len(rows) != expected or any(r["status"] != "ok" for r in rows):
        fail(f"{len(rows)} rows ({sum(r['status'] == 'ok' for r in rows)} ok), {expected} runs expected")
    if len({r["checksum"] for r in rows}) != 1:
        fail(f"checksums differ: {sorted({r['checksum'] for r in rows})}")
    if any(float(r["t_par_s"]) <= 0 or int(r["chunks"]) < 1 for r in rows):
        fail("a run without T_par or chunks")
    # Runs that stop ranks (fail_ranks): every survivor's report names them.
    for r in rows:
        victims = r.get("fail_ranks", "none")
        if victims not in ("", "none") and r["failed_ranks"] != victims.replace(",", ";"):
            fail(f"run {r['run_id']}: failed ranks '{r['failed_ranks']}', the design stopped '{victims}'")
    for fig in design.get("figures", []):
        png = out / f"{fig['name']}.png"
        if not png.exists() or png.stat().st_size < 1000:
            fail(f"figure {png} missing")
    if not a.resume:
        print(f"check_experiment: ok: {expected} runs, figures drawn", flush=True)
        return
    again = runner(args)
    if again.returncode != 0 or f"{expected} already in" not in again.stderr or "0 to run" not in again.stderr:
        fail(f"a second invocation did not resume (exit {again.returncode}): {again.stderr[-500:]}")
    # One run lost from the CSV runs again, and only it.
    with open(out / "runs.csv", newline="") as f:
        lines = f.readlines()
    (out / "runs.csv").write_text("".join(lines[:-1]))
    third = runner(args)
    if third.returncode != 0 or "1 to run" not in third.stderr or len(read_csv(out / "runs.csv")) != expected:
        fail(f"a lost run was not run again (exit {third.returncode}): {third.stderr[-500:]}")
    print(f"check_experiment: ok: {expected} runs, figures drawn, resumed", flush=True)


BAD_DESIGNS = [
    ({"factors": {"app": ["synthetic"], "platform": ["native"], "ranks": [2], "colour": ["red"]}},
     ["unknown factor 'colour'", "technique"]),
    ({"factors": {"app": ["nosuchapp"], "platform": ["native"], "ranks": [2]}},
     ["unknown app 'nosuchapp'", "mandelbrot", "synthetic"]),
    ({"factors": {"app": ["synthetic"], "platform": ["cloud"], "ranks": [2]}},
     ["unknown platform 'cloud'", "native, simulated"]),
    ({"factors": {"app": ["synthetic"], "platform": ["simulated"], "ranks": [8192]}},
     ["at most 256 nodes", "4096"]),
    ({"factors": {"app": ["synthetic"], "platform": ["native"]}}, ["factor 'ranks' is missing"]),
    ({"factors": {"app": ["synthetic"], "platform": ["native"], "ranks": [2], "loops": ["sometimes"]}},
     ["unknown loops level 'sometimes'", "sync, async"]),
    ({"factors": {"app": ["synthetic"], "platform": ["native"], "ranks": [2]},
      "figures": [{"name": "f", "kind": "pie", "x": "ranks"}]},
     ["kind must be one of", "bars"]),
]


def errors(a) -> None:
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    for i, (body, expected) in enumerate(BAD_DESIGNS):
        path = out / f"bad{i}.json"
        path.write_text(json.dumps(dict({"name": f"bad{i}"}, **body)))
        p = runner([str(path), "--out", str(out / f"bad{i}")])
        if p.returncode != 2:
            fail(f"bad design {body}: exit {p.returncode}, 2 expected; stderr: {p.stderr[-500:]}")
        for text in expected:
            if text not in p.stderr:
                fail(f"bad design {body}: '{text}' not in the message: {p.stderr.strip()}")
        if (out / f"bad{i}" / "runs.csv").exists():
            fail(f"bad design {body}: runs were written")
    print(f"check_experiment: ok: {len(BAD_DESIGNS)} bad designs refused", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="what", required=True)
    r = sub.add_parser("run")
    r.add_argument("--design", required=True)
    r.add_argument("--out", required=True)
    r.add_argument("--native-build")
    r.add_argument("--sim-build")
    r.add_argument("--mpiexec")
    r.add_argument("--resume", action="store_true")
    e = sub.add_parser("errors")
    e.add_argument("--out", required=True)
    a = ap.parse_args()
    run(a) if a.what == "run" else errors(a)


if __name__ == "__main__":
    main()
