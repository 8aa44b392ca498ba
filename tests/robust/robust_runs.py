#!/usr/bin/env python3
"""Fail-stop failures of real processes against robust mode (docs/ROBUST.md).

Runs lb4mpi's apps (Mandelbrot, PSIA) under Open MPI's
`mpiexec --enable-recovery`, kills ranks while the job runs, and checks that
the run completes with the failure-free checksum and names only victims as
failed. Every run has a watchdog; a run that outlives it is a hang.

Victims are killed two ways: by lb4mpi's built-in injection
(--fail-ranks/--fail-after, SIGKILL or _exit), or from outside: this script
finds the ranks among the children of the mpiexec it started (their
OMPI_COMM_WORLD_RANK), waits a random time and sends SIGKILL to the pid.

  robust_runs.py --mpiexec mpiexec --apps BUILD/apps --runs 10 --seed 3
  robust_runs.py ... --scenario coordinator   # rank 0 killed: every survivor names it, no hang
  robust_runs.py ... --scenario unprotected   # injection without robust mode: refused on every rank

A random run draws: app, P in {3, 4} (2 in a few), mode centralized,
distributed or distributed-rma, a technique (not STATIC), 1, P/2 or P-1
victims among ranks 1..P-1, and how and when they die.
Prints one line per run and a JSON summary; exits 1 on any failure.
"""
import argparse
import json
import os
import random
import re
import signal
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                                "apps", "common"))
from app_summary import summary_of  # noqa: E402

TECHNIQUES = ["SS", "FSC", "mFSC", "GSS", "TAP", "TSS", "FAC", "FAC2", "TFSS", "FISS", "VISS",
              "WF", "AWF", "AWF-B", "AWF-C", "AWF-D", "AWF-E", "AF", "RND", "PLS"]
MODES = ["centralized", "distributed", "distributed-rma"]
APPS = {
    "mandelbrot": ["--width", "192", "--threshold", "3000"],
    "psia": ["--points", "6000"],
}
WATCHDOG_S = 60


def rank_pids(mpiexec_pid, ranks, deadline):
    """{rank: pid} of the app processes that are children of `mpiexec_pid`."""
    found = {}
    while len(found) < ranks and time.time() < deadline:
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                with open(f"/proc/{entry}/stat") as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
                if ppid != mpiexec_pid:
                    continue
                with open(f"/proc/{entry}/environ", "rb") as f:
                    env = f.read().split(b"\0")
            except (OSError, ValueError, IndexError):
                continue
            for kv in env:
                if kv.startswith(b"OMPI_COMM_WORLD_RANK="):
                    found[int(kv.split(b"=", 1)[1])] = int(entry)
        time.sleep(0.005)
    return found


class Runner:
    def __init__(self, args):
        self.a = args
        self.references = {}

    def command(self, app, ranks, extra, recovery=True):
        cmd = [self.a.mpiexec]
        if recovery:
            cmd.append("--enable-recovery")
        cmd += ["-n", str(ranks), os.path.join(self.a.apps, f"lb4mpi-{app}")] + APPS[app] + extra
        return cmd

    def run(self, cmd, kill=None):
        """Runs cmd with the watchdog; kill = (ranks, [victims], delay_s) kills from outside,
        `delay_s` after every victim announced that its loop started (--announce-start: a
        failure before the loop starts is not robust mode's to survive, docs/ROBUST.md)."""
        t0 = time.time()
        if kill is not None:
            cmd = cmd + ["--announce-start"]
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             start_new_session=True)
        err_lines = []
        started = set()
        cond = threading.Condition()

        def read_stderr():
            for line in p.stderr:
                with cond:
                    err_lines.append(line)
                    m = re.search(r"\[rank (\d+)\]: loop started", line)
                    if m:
                        started.add(int(m.group(1)))
                        cond.notify_all()

        out_parts = []
        readers = [threading.Thread(target=read_stderr, daemon=True),
                   threading.Thread(target=lambda: out_parts.append(p.stdout.read()), daemon=True)]
        for r in readers:
            r.start()
        killed = []
        if kill is not None:
            ranks, victims, delay = kill
            pids = rank_pids(p.pid, ranks, time.time() + 10)
            with cond:
                cond.wait_for(lambda: set(victims) <= started, timeout=20)
            time.sleep(delay)
            for v in victims:
                if v in pids:
                    try:
                        os.kill(pids[v], signal.SIGKILL)
                        killed.append(v)
                    except ProcessLookupError:
                        pass  # already done: it survives
        try:
            rc = p.wait(timeout=WATCHDOG_S)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
            rc = None
        for r in readers:
            r.join(timeout=5)
        return rc, "".join(out_parts), "".join(err_lines), time.time() - t0, killed

    def load_references(self, path):
        with open(path) as f:
            self.references = json.load(f)

    def save_references(self, path):
        for app in sorted(APPS):
            self.reference(app)
        with open(path, "w") as f:
            json.dump(self.references, f)
        print(f"failure-free checksums: {self.references}", flush=True)
        return 1, 1

    def reference(self, app):
        if app not in self.references:
            rc, out, err, _, _ = self.run(self.command(app, 2, [], recovery=False))
            s = summary_of(out)
            if rc != 0 or s is None:
                sys.exit(f"robust_runs: the failure-free reference run of {app} failed:\n{err}")
            self.references[app] = s["checksum"]
        return self.references[app]

    def random_case(self, rng, k):
        app = rng.choice(sorted(APPS))
        ranks = rng.choice([3, 4, 4, 2])
        mode = rng.choice(MODES)
        technique = rng.choice(TECHNIQUES)
        count = rng.choice(sorted({1, ranks // 2, ranks - 1}))
        victims = sorted(rng.sample(range(1, ranks), count))
        how = rng.choice(["inject-chunks", "inject-time", "inject-exit", "outside"])
        extra = ["--robust", "--robust-timeout", "1", "--mode", mode, "--technique", technique]
        kill = None
        if how == "outside":
            kill = (ranks, victims, rng.uniform(0.0, 0.08))
            when = f"kill -9 after {kill[2]:.3f} s"
        else:
            extra += ["--fail-ranks", ",".join(map(str, victims))]
            if how == "inject-time":
                t = rng.uniform(0.0, 0.05)
                extra += ["--fail-after", f"{t:.4f}s"]
                when = f"at {t:.4f} s"
            else:
                chunk = rng.randint(1, 3)
                extra += ["--fail-after", str(chunk)]
                when = f"at chunk {chunk}"
            if how == "inject-exit":
                extra += ["--fail-how", "exit"]
                when += " (exit)"
        return app, ranks, extra, victims, kill, f"#{k} {app} P={ranks} {mode} {technique} victims {victims} {when}"

    def check_completed(self, label, app, result, victims):
        rc, out, err, dt, _ = result
        self.last_lost = False
        problems = []
        if rc is None:
            problems.append(f"hung (watchdog {WATCHDOG_S} s)")
        s = summary_of(out or "")
        if s is None:
            problems.append("no JSON summary")
        else:
            if s["checksum"] != self.reference(app):
                problems.append(f"checksum {s['checksum']} != failure-free {self.reference(app)}")
            if not s.get("robust"):
                problems.append("summary says robust false")
            extra = sorted(set(s.get("failed_ranks", [])) - set(victims))
            if extra:
                problems.append(f"ranks {extra} reported failed but were not victims")
        failed = s.get("failed_ranks") if s else "?"
        self.last_lost = bool(s and s.get("failed_ranks"))
        status = "ok" if not problems else "FAILED: " + "; ".join(problems)
        print(f"{label}: {status} ({dt:.2f} s, failed_ranks {failed})", flush=True)
        if problems:
            print("  stderr: " + (err or "")[-2000:].replace("\n", "\n  "), flush=True)
        return not problems

    def random_runs(self):
        rng = random.Random(self.a.seed)
        ok = 0
        lost = 0
        for k in range(self.a.runs):
            app, ranks, extra, victims, kill, label = self.random_case(rng, k)
            result = self.run(self.command(app, ranks, extra), kill)
            ok += self.check_completed(label, app, result, victims)
            lost += self.last_lost
        # A victim that finished before its time survives; most runs must lose ranks,
        # or the test tests nothing.
        print(f"{lost} of {self.a.runs} runs lost ranks", flush=True)
        if lost * 2 < self.a.runs:
            print("FAILED: fewer than half of the runs lost a rank", flush=True)
            ok = min(ok, self.a.runs - 1)
        return ok

    def coordinator(self):
        """Rank 0 (the coordinator) fails: every survivor names it, and the job ends."""
        ok = 0
        for mode in MODES:
            cmd = self.command("psia", 3, ["--robust", "--robust-timeout", "1", "--mode", mode,
                                           "--fail-ranks", "0", "--fail-after", "0.05s"])
            rc, out, err, dt, _ = self.run(cmd)
            said = len(re.findall(r"heard nothing from the coordinator \(rank 0\)", err or ""))
            problems = []
            if rc is None:
                problems.append("hung")
            if summary_of(out or "") is not None:
                problems.append("printed a summary")
            if said < 1:
                problems.append("no survivor named the failed coordinator")
            status = "ok" if not problems else "FAILED: " + "; ".join(problems)
            print(f"coordinator killed, {mode}: {status} ({dt:.2f} s, {said} ranks named it)", flush=True)
            if problems:
                print("  stderr: " + (err or "")[-2000:].replace("\n", "\n  "), flush=True)
            ok += not problems
        return ok, len(MODES)

    def unprotected(self):
        """Injection without robust mode, plain mpiexec: refused before the loop runs,
        the same error on every rank, a non-zero exit status (issue 34)."""
        cmd = self.command("psia", 3, ["--fail-ranks", "1", "--fail-after", "1"], recovery=False)
        rc, out, err, dt, _ = self.run(cmd)
        problems = []
        said = len(re.findall(r"failure injection needs robust mode", err or ""))
        if rc is None:
            problems.append("hung")
        elif rc == 0:
            problems.append("exit code 0")
        if said != 3:
            problems.append(f"{said} of 3 ranks refused the injection")
        if summary_of(out or "") is not None:
            problems.append("printed a summary")
        status = "ok" if not problems else "FAILED: " + "; ".join(problems)
        print(f"injection without robust mode: {status} ({dt:.2f} s, exit {rc})", flush=True)
        if problems:
            print("  output: " + ((out or "") + (err or ""))[-2000:].replace("\n", "\n  "), flush=True)
        return (0 if problems else 1), 1


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mpiexec", default="mpiexec")
    ap.add_argument("--apps", required=True, help="folder of lb4mpi-mandelbrot and lb4mpi-psia")
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--scenario", choices=["random", "coordinator", "unprotected", "references"],
                    default="random")
    ap.add_argument("--references", help="JSON file of the failure-free checksums: written by "
                    "--scenario references, read otherwise (computed when not given)")
    a = ap.parse_args()
    r = Runner(a)
    if a.scenario == "references":
        if not a.references:
            sys.exit("robust_runs: --scenario references needs --references FILE")
        ok, total = r.save_references(a.references)
    elif a.references:
        r.load_references(a.references)
    if a.scenario == "references":
        pass
    elif a.scenario == "random":
        ok, total = r.random_runs(), a.runs
    elif a.scenario == "coordinator":
        ok, total = r.coordinator()
    else:
        ok, total = r.unprotected()
    print(json.dumps({"scenario": a.scenario, "runs": total, "failures": total - ok, "seed": a.seed}))
    sys.exit(0 if ok == total else 1)


if __name__ == "__main__":
    main()
