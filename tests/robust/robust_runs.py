#!/usr/bin/env python3
"""Fail-stop failures of real processes against robust mode (docs/ROBUST.md).

Runs lb4mpi's apps (Mandelbrot, PSIA) under Open MPI's
`mpiexec --enable-recovery`, kills ranks while the job runs, and checks that
the run completes with the failure-free checksum and names exactly the ranks
that died as failed. Every run has a watchdog; a run that outlives it is a hang.

What a run must show (the launcher's exit code alone cannot be trusted under
--enable-recovery, docs/ROBUST.md):
- mpiexec exits 0, within the watchdog, and prints rank 0's JSON summary with
  the failure-free checksum;
- the ranks killed (by this script's SIGKILL, or announced by lb4mpi's
  injection: "failure injection: rank R stops now") are really dead: each pid
  is gone or a zombie within 5 s, and wrote no verdict;
- every other rank is a survivor: it wrote its verdict (LB4MPI_VERDICT_DIR,
  apps/common/verdict.hpp) with exit code 0 and names exactly the killed ranks
  as failed (reported == killed, both ways), and rank 0's verdict has the
  failure-free checksum;
- stderr holds nothing but the announcements, the injection's lines and Open
  MPI's known PMIx notices.

Victims are killed two ways: by lb4mpi's built-in injection
(--fail-ranks/--fail-after, SIGKILL or _exit), or from outside: this script
finds the ranks among the children of the mpiexec it started (their
OMPI_COMM_WORLD_RANK), waits a random time and sends SIGKILL to the pid.

  robust_runs.py --mpiexec mpiexec --apps BUILD/apps --runs 10 --seed 3
  robust_runs.py ... --scenario coordinator   # rank 0 (and successors) killed: failover, checksum kept
  robust_runs.py ... --scenario loops         # --loops 3 --robust, a worker killed: every loop committed once
  robust_runs.py ... --scenario loops-coordinator  # ... rank 0 killed while every loop is in flight: failover
  robust_runs.py ... --scenario unprotected   # injection without robust mode: refused on every rank

A random run draws: app, P in {3, 4} (2 in a few), mode centralized,
distributed or distributed-rma, a technique (not STATIC), 1, P/2 or P-1
victims among ranks 1..P-1 (every third run: rank 0, the coordinator, among them), and how and
when they die.
--seed N replays the draws of seed N; --seed fresh draws a new seed from the
system's entropy and prints it with the command that replays it.
Prints one line per run and a JSON summary; exits 1 on any failure.
"""
import argparse
import json
import os
import random
import re
import signal
import shutil
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                                "apps", "common"))
from app_summary import summary_of  # noqa: E402

TECHNIQUES = ["SS", "FSC", "mFSC", "GSS", "TAP", "TSS", "FAC", "FAC2", "TFSS", "FISS", "VISS",
              "WF", "AWF", "AWF-B", "AWF-C", "AWF-D", "AWF-E", "AF", "RND", "PLS"]
MODES = ["centralized", "distributed", "distributed-rma"]
APPS = {
    "mandelbrot": ["--width", "192", "--threshold", "15000"],  # T_par ~0.25 s at P = 3: kills land mid-loop
    "psia": ["--points", "6000"],
}
WATCHDOG_S = 60
# --scenario loops: Mandelbrot's three loops per time step (~0.3-1.6 s each at P = 3).
LOOPS_APP = "mandelbrot-loops3"
# The coordinator killed late (0.8 s after the loops started, once the set's first loop ended):
# three times the work, so that the kill lands well before the set's end (with LOOPS_APP the set
# ended at ~0.7-1.1 s and a late kill could find the victim done).
LOOPS_APP_LONG = "mandelbrot-loops3-long"
VARIANTS = {LOOPS_APP: ("mandelbrot", ["--width", "128", "--threshold", "15000", "--loops", "3"]),
            LOOPS_APP_LONG: ("mandelbrot", ["--width", "128", "--threshold", "45000", "--loops", "3"])}


# stderr lines a correct run may print; anything else fails the run.
EXPECTED_STDERR = [
    re.compile(r"^\S+ \[rank \d+\]: loop started$"),
    re.compile(r"^lb4mpi: failure injection: rank \d+ stops now \((SIGKILL|exit), LB4MPI_FAIL_RANKS\)$"),
    re.compile(r"^lb4mpi-\S+: \d+ ranks? on \d+ hosts?: .*$"),  # rank 0's ranks per host (apps/README.md)
]  # and OPEN_MPI_NOTICES, below
INJECTED = re.compile(r"failure injection: rank (\d+) stops now")


# Open MPI's notices about a killed rank: its PMIx peer's (BAD-PARAM,
# UNREACHABLE), and the shared-memory transport reading a message from a rank
# killed meanwhile (ESRCH). They come from other processes than the ranks'
# lines and can land in the middle of one ("lb4mpi-mandelbrot" + notice +
# newline + ": 4 ranks on 1 host ..."): they are taken out wherever they
# stand before the lines are judged.
OPEN_MPI_NOTICES = re.compile(
    r"\[[^]\n]+\] (PMIX ERROR: (BAD-PARAM|UNREACHABLE) in file \S+ at line \d+|Read -1, expected \d+, errno = 3)\n?")


def unexpected_stderr(err):
    """The lines of `err` that no correct run prints."""
    return [line for line in OPEN_MPI_NOTICES.sub("", err).splitlines()
            if line.strip() and not any(p.match(line) for p in EXPECTED_STDERR)]


def pid_state(pid):
    """The state letter of /proc/PID/stat, None when the process is gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return None


def wait_dead(pid, limit_s=5.0):
    """True once `pid` is gone or a zombie (waited for at most `limit_s`)."""
    deadline = time.time() + limit_s
    while time.time() < deadline:
        if pid_state(pid) in (None, "Z", "X"):
            return True
        time.sleep(0.005)
    return False


def rank_pids(mpiexec_pid, ranks, deadline, found=None, stop=None):
    """{rank: pid} of the app processes that are children of `mpiexec_pid`
    (filled into `found` as they appear, until all are or `stop` is set)."""
    found = {} if found is None else found
    while len(found) < ranks and time.time() < deadline and not (stop and stop.is_set()):
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
        binary, args = VARIANTS.get(app, (app, APPS.get(app)))
        cmd += ["-n", str(ranks), os.path.join(self.a.apps, f"lb4mpi-{binary}")] + args + extra
        return cmd

    def run(self, cmd, kill=None, ranks=0):
        """Runs cmd with the watchdog; kill = (ranks, [victims], delay_s) kills from outside,
        `delay_s` after every victim announced that its loop started (--announce-start: a
        failure before the loop starts is not robust mode's to survive, docs/ROBUST.md).
        Returns a dict: rc (None: hung), out, err, dt, killed {rank: how},
        undead [ranks killed whose pid did not die], verdicts {rank: verdict}."""
        t0 = time.time()
        if kill is not None:
            cmd = cmd + ["--announce-start"]
            ranks = kill[0]
        verdict_dir = tempfile.mkdtemp(prefix="lb4mpi-verdicts-")
        env = dict(os.environ, LB4MPI_VERDICT_DIR=verdict_dir)
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             start_new_session=True, env=env)
        pids = {}
        stop_scan = threading.Event()
        err_lines = []
        started = set()
        killed = {}
        undead = []
        checkers = []
        cond = threading.Condition()

        def confirm_dead(rank):
            deadline = time.time() + 5
            while rank not in pids and time.time() < deadline:
                time.sleep(0.005)
            if rank not in pids or not wait_dead(pids[rank]):
                with cond:
                    undead.append(rank)

        def read_stderr():
            for line in p.stderr:
                with cond:
                    err_lines.append(line)
                    m = re.search(r"\[rank (\d+)\]: loop started", line)
                    if m:
                        started.add(int(m.group(1)))
                        cond.notify_all()
                    m = INJECTED.search(line)
                    if m:
                        killed[int(m.group(1))] = "injected"
                        t = threading.Thread(target=confirm_dead, args=(int(m.group(1)),), daemon=True)
                        checkers.append(t)
                        t.start()

        out_parts = []
        threads = [threading.Thread(target=read_stderr, daemon=True),
                   threading.Thread(target=lambda: out_parts.append(p.stdout.read()), daemon=True)]
        if ranks:
            threads.append(threading.Thread(target=rank_pids, daemon=True,
                                            args=(p.pid, ranks, time.time() + 20, pids, stop_scan)))
        for t in threads:
            t.start()
        if kill is not None:
            _, victims, delay = kill
            # delay: seconds before the first kill, or a list: before each kill in turn
            delays = delay if isinstance(delay, list) else [delay] + [0.0] * (len(victims) - 1)
            deadline = time.time() + 10
            while not set(victims) <= set(pids) and time.time() < deadline:
                time.sleep(0.005)
            with cond:
                cond.wait_for(lambda: set(victims) <= started, timeout=20)
            for v, pause in zip(victims, delays):
                time.sleep(pause)
                # Only a live process is a victim: one that already ended (a zombie) survived.
                if v in pids and pid_state(pids[v]) not in (None, "Z", "X"):
                    try:
                        os.kill(pids[v], signal.SIGKILL)
                    except ProcessLookupError:
                        continue
                    killed[v] = "outside"
                    if not wait_dead(pids[v]):
                        undead.append(v)
        try:
            rc = p.wait(timeout=WATCHDOG_S)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
            rc = None
        stop_scan.set()
        for t in threads + checkers:
            t.join(timeout=6)
        verdicts = {}
        for name in os.listdir(verdict_dir):
            m = re.fullmatch(r"rank-(\d+)\.json", name)
            if m:
                with open(os.path.join(verdict_dir, name)) as f:
                    try:
                        verdicts[int(m.group(1))] = json.load(f)
                    except ValueError:
                        verdicts[int(m.group(1))] = {"unreadable": name}
        shutil.rmtree(verdict_dir, ignore_errors=True)
        return {"rc": rc, "out": "".join(out_parts), "err": "".join(err_lines), "dt": time.time() - t0,
                "killed": killed, "undead": sorted(undead), "verdicts": verdicts}

    def load_references(self, path):
        with open(path) as f:
            self.references = json.load(f)

    def save_references(self, path):
        for app in sorted(APPS):
            self.reference(app)
        self.reference(LOOPS_APP)
        self.reference(LOOPS_APP_LONG)
        with open(path, "w") as f:
            json.dump(self.references, f)
        print(f"failure-free checksums: {self.references}", flush=True)
        return 1, 1

    def reference(self, app):
        if app not in self.references:
            res = self.run(self.command(app, 2, [], recovery=False))
            s = summary_of(res["out"])
            if res["rc"] != 0 or s is None or unexpected_stderr(res["err"]):
                sys.exit(f"robust_runs: the failure-free reference run of {app} failed:\n{res['err']}")
            self.references[app] = s["checksum"]
        return self.references[app]

    def random_case(self, rng, k):
        app = rng.choice(sorted(APPS))
        ranks = rng.choice([3, 4, 4, 2])
        mode = rng.choice(MODES)
        technique = rng.choice(TECHNIQUES)
        count = rng.choice(sorted({1, ranks // 2, ranks - 1}))
        if k % 3 == 0:  # every third run loses the coordinator (rank 0) too: failover
            victims = sorted([0] + rng.sample(range(1, ranks), count - 1))
        else:
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

    def check_completed(self, label, app, ranks, result, victims):
        rc, out, err, dt = result["rc"], result["out"] or "", result["err"] or "", result["dt"]
        verdicts = result["verdicts"]
        # A victim killed from outside after it wrote its verdict (at its very end, after the
        # summary) had finished: like one that ended before its kill, it survived.
        finished_first = sorted(r for r, how in result["killed"].items()
                                if how == "outside" and (verdicts.get(r) or {}).get("exit_code") == 0)
        killed = sorted(set(result["killed"]) - set(finished_first))
        problems = []
        if rc is None:
            problems.append(f"hung (watchdog {WATCHDOG_S} s)")
        elif rc != 0:
            problems.append(f"mpiexec exit code {rc}")
        if set(killed) - set(victims):
            problems.append(f"ranks {sorted(set(killed) - set(victims))} died but were not victims")
        if result["undead"]:
            problems.append(f"killed ranks {result['undead']} still alive 5 s later (or pid unknown)")
        s = summary_of(out)
        reference = self.reference(app)
        # The final coordinator: the lowest survivor (failover, docs/ROBUST.md).
        final = min(set(range(ranks)) - set(killed), default=None)
        if s is None:
            problems.append("no JSON summary")
        else:
            if s["checksum"] != reference:
                problems.append(f"checksum {s['checksum']} != failure-free {reference}")
            if not s.get("robust"):
                problems.append("summary says robust false")
            if sorted(s.get("failed_ranks", [])) != killed:
                problems.append(f"summary names {sorted(s.get('failed_ranks', []))} failed, killed {killed}")
            if s.get("coordinator") != final:
                problems.append(f"summary names coordinator {s.get('coordinator')}, expected {final}")
        for r in range(ranks):
            v = verdicts.get(r)
            if r in killed:
                if v is not None:
                    problems.append(f"rank {r} was killed but wrote a verdict")
                continue
            if v is None:
                problems.append(f"survivor {r} wrote no verdict")
                continue
            if v.get("exit_code") != 0:
                problems.append(f"survivor {r} exit code {v.get('exit_code')}")
            if sorted(v.get("failed_ranks", [])) != killed:
                problems.append(f"survivor {r} names {v.get('failed_ranks')} failed, killed {killed}")
            if r == final and v.get("checksum") != reference:
                problems.append(f"rank {r}'s (the final coordinator's) verdict has checksum {v.get('checksum')} "
                                f"!= {reference}")
        if set(verdicts) - set(range(ranks)):
            problems.append(f"verdicts of unknown ranks {sorted(set(verdicts) - set(range(ranks)))}")
        strange = unexpected_stderr(err)
        if strange:
            problems.append(f"unexpected stderr: {strange[:3]}")
        self.last_lost = bool(killed)
        status = "ok" if not problems else "FAILED: " + "; ".join(problems)
        after = f", {finished_first} killed after their end" if finished_first else ""
        print(f"{label}: {status} ({dt:.2f} s, killed {killed}{after})", flush=True)
        if problems:
            print("  stderr: " + err[-2000:].replace("\n", "\n  "), flush=True)
        return not problems

    def random_runs(self):
        rng = random.Random(self.a.seed)
        ok = 0
        lost = 0
        for k in range(self.a.runs):
            app, ranks, extra, victims, kill, label = self.random_case(rng, k)
            result = self.run(self.command(app, ranks, extra), kill, ranks)
            ok += self.check_completed(label, app, ranks, result, victims)
            lost += self.last_lost
        # A victim that finished before its time survives; most runs must lose ranks,
        # or the test tests nothing.
        print(f"{lost} of {self.a.runs} runs lost ranks", flush=True)
        if lost * 2 < self.a.runs:
            print("FAILED: fewer than half of the runs lost a rank", flush=True)
            ok = min(ok, self.a.runs - 1)
        return ok

    def coordinator(self):
        """Coordinator failover (docs/ROBUST.md): on 4 ranks, ranks {0}, {0,1}, {0,2,3} and {1,0}
        (in that order) SIGKILLed from outside mid-run, and {0} then its successor 1 while it
        recovers, in every mode: the run completes with the failure-free checksum, every survivor
        names the victims, the lowest survivor is the final coordinator.
        Then the end-of-loop exchange (--fail-after end: a victim stops once the loop ended on it,
        before the exchange): {0} in every mode and {0,1} (the successor, too, stops at its end);
        and in it (--fail-after report: the coordinator stops once rank 1 has the report, so ranks 2
        and 3 lack it): {0} and {0,1}; and worker 2 once it has it (it never acknowledges it: the
        release names it failed)."""
        ok = 0
        total = 0
        ranks = 4
        # (victims in kill order, delays before each kill); timeout 1 s: rank 1 is recovering
        # 1.2 s after rank 0 died.
        cases = [([0], [0.05]), ([0, 1], [0.05, 0.0]), ([0, 2, 3], [0.05, 0.0, 0.0]), ([1, 0], [0.02, 0.03]),
                 ([0, 1], [0.05, 1.2])]
        for i, (victims, delays) in enumerate(cases):
            for j, mode in enumerate(MODES):
                if i == len(cases) - 1 and j != 0:
                    continue  # the successor killed during its recovery: once
                app = sorted(APPS)[(i + j) % len(APPS)]
                extra = ["--robust", "--robust-timeout", "1", "--mode", mode]
                res = self.run(self.command(app, ranks, extra), (ranks, victims, delays), ranks)
                label = f"failover {mode} {app} killed {victims} after {delays} s"
                ok += self.check_completed(label, app, ranks, res, victims)
                total += 1
        # (mode, victims, when): at the loop's end in every mode, and the successor too once; in the
        # report (--fail-after report: rank 0 stops once rank 1 has the report, rank 1 once it has
        # it), so that rank 1 must give the report up when ranks 2 and 3, which lack it, fail over.
        # A worker stopped once it has the report (rank 2) never acknowledges it: the coordinator
        # waits the timeout for it, then its release names rank 2 failed to every survivor.
        ends = [(m, [0], "end") for m in MODES] + [("centralized", [0, 1], "end"),
                                                    ("centralized", [0], "report"),
                                                    ("distributed-rma", [0, 1], "report"),
                                                    ("distributed", [2], "report")]
        for j, (mode, victims, when) in enumerate(ends):
            app = sorted(APPS)[j % len(APPS)]
            extra = ["--robust", "--robust-timeout", "1", "--mode", mode,
                     "--fail-ranks", ",".join(map(str, victims)), "--fail-after", when]
            res = self.run(self.command(app, ranks, extra), None, ranks)
            where = "at the loop's end" if when == "end" else "in the end-of-loop report"
            ok += self.check_completed(f"failover {mode} {app} {victims} stop {where}", app, ranks, res, victims)
            total += 1
        return ok, total

    def loops(self, coordinator=False, part=(1, 1)):
        """Three loops per time step, robust (--loops 3 --robust; docs/ROBUST.md, *Several loops in
        flight*): Mandelbrot on 4 ranks, each mode synchronous (the loops one after the other) and
        asynchronous (--async: in flight together in one LoopSet), a worker killed by the injection or
        from outside: every loop's results committed once, the failure-free checksum.
        coordinator: rank 0 killed 0.05 s into the first loop (every loop of the set is then in flight,
        and fails over to rank 1), asynchronous in every mode and synchronous once, and 0.8 s in
        (the loops that ended on it are reopened under rank 1) twice asynchronous and once
        synchronous, and at the set's end (--fail-after end: during the end-of-loop exchange; every
        loop is reopened). The late runs wait 0.5 s: rank 1, the successor of the loop it works on,
        then still has work there when the others ask it to take over another loop, and must answer
        within twice that (before tend() acted on it, they split in two groups: 5 runs in 6)."""
        # (mode, --async?, victims, how): each mode both ways, each way of killing in each drive.
        cases = [("centralized", True, [2], "inject"), ("centralized", False, [1, 3], "outside"),
                 ("distributed", True, [1, 3], "outside"), ("distributed", False, [2], "inject"),
                 ("distributed-rma", True, [3], "inject"), ("distributed-rma", False, [1], "outside")]
        if coordinator:
            # (how: early = at 0.05 s, every loop in flight; late = at 0.8 s, after the set's first
            # loop ended on the coordinator: the ended loops go on under the successor too)
            cases = [("centralized", True, [0], "inject"), ("distributed", True, [0], "outside"),
                     ("distributed-rma", True, [0], "inject-late"), ("centralized", True, [0], "outside-late"),
                     ("distributed", False, [0], "inject"), ("distributed", False, [0], "inject-late"),
                     ("distributed-rma", True, [0], "inject-end")]
        # part (k, n): the k-th of n shares of the cases (every n-th from the k-th), so that one
        # ctest test stays under the suite's per-test budget.
        k, n = part
        cases = cases[k - 1::n]
        ok = 0
        total = 0
        ranks = 4
        for mode, asynchronous, victims, how in cases:
            # Timeout 2 s with workers killed: a set's end waits a tenth of it for each rank's
            # figures, loop after loop, and a live rank later than that is counted failed (this
            # machine is loaded); 1 s when the coordinator is killed: each loop waits it out; 0.5 s
            # when it is killed late (above).
            late = how.endswith("-late")
            timeout = ("0.5" if late else "1") if coordinator else "2"
            extra = ["--robust", "--robust-timeout", timeout, "--mode", mode] + (["--async"] if asynchronous else [])
            kill = None
            if how.startswith("inject"):
                when = ("0.8s" if late else "0.05s") if coordinator else "2"
                when = "end" if how.endswith("-end") else when
                extra += ["--fail-ranks", ",".join(map(str, victims)), "--fail-after", when]
            else:
                kill = (ranks, victims, (0.8 if late else 0.05) if coordinator else 0.1)
            app = LOOPS_APP_LONG if late else LOOPS_APP
            res = self.run(self.command(app, ranks, extra), kill, ranks)
            label = (f"loops 3 {'async' if asynchronous else 'sync'} {mode} victims {victims} "
                     f"({'injection' if how.startswith('inject') else 'kill -9 from outside'}"
                     f"{', late' if late else ''}{', at the end' if how.endswith('-end') else ''})")
            ok += self.check_completed(label, app, ranks, res, victims)
            total += 1
        return ok, total

    def unprotected(self):
        """Injection without robust mode, plain mpiexec: refused before the loop runs,
        the same error on every rank, a non-zero exit status (issue 34)."""
        cmd = self.command("psia", 3, ["--fail-ranks", "1", "--fail-after", "1"], recovery=False)
        res = self.run(cmd)
        rc, out, err, dt = res["rc"], res["out"], res["err"], res["dt"]
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
    ap.add_argument("--seed", default="1", help="the draws' seed (an integer), or 'fresh': a new "
                    "one from the system's entropy, printed with the command that replays it")
    ap.add_argument("--scenario", choices=["random", "coordinator", "loops", "loops-coordinator", "unprotected",
                                           "references"],
                    default="random")
    ap.add_argument("--references", help="JSON file of the failure-free checksums: written by "
                    "--scenario references, read otherwise (computed when not given)")
    ap.add_argument("--part", default="1/1", help="K/N: run the K-th of N shares of the loop "
                    "scenarios' cases (every N-th case from the K-th)")
    a = ap.parse_args()
    m = re.fullmatch(r"(\d+)/(\d+)", a.part)
    if not m or not 1 <= int(m.group(1)) <= int(m.group(2)):
        sys.exit(f"robust_runs: --part must be K/N with 1 <= K <= N, got '{a.part}'")
    part = (int(m.group(1)), int(m.group(2)))
    if a.seed == "fresh":
        a.seed = int.from_bytes(os.urandom(4), "little")
        replay = [arg if arg != "fresh" else str(a.seed) for arg in sys.argv]
        print(f"fresh seed {a.seed}; replay: {' '.join(replay)}", flush=True)
    else:
        try:
            a.seed = int(a.seed)
        except ValueError:
            sys.exit(f"robust_runs: --seed must be an integer or 'fresh', got '{a.seed}'")
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
    elif a.scenario in ("loops", "loops-coordinator"):
        ok, total = r.loops(coordinator=a.scenario == "loops-coordinator", part=part)
    else:
        ok, total = r.unprotected()
    print(json.dumps({"scenario": a.scenario, "runs": total, "failures": total - ok, "seed": a.seed}))
    sys.exit(0 if ok == total else 1)


if __name__ == "__main__":
    main()
