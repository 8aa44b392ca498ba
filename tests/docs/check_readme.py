#!/usr/bin/env python3
"""Runs the command blocks of README.md, as a new user would (issue 34: a new
user's first commands must not rot).

    check_readme.py README.md --build BUILD_DIR [--list] [--timeout 60]

Which blocks run. Every ```sh block of the README runs, unless the line just
before its opening fence is a marker

    <!-- readme-check: skip: REASON -->

(REASON says why: the block installs packages, runs the whole test suite,
builds from scratch, or needs files only the user has — every such block is
covered by a test of its own, which REASON names). A block runs as one bash
script (`set -e -o pipefail`) with a time limit of --timeout seconds: a block
that needs more than a minute must be marked, not run.

Where. Each block runs in a fresh temporary folder that looks like the
repository's root to it: `tools/`, `examples/`, `scripts/`, `apps/`,
`python/` link to the repository's, and `build/release` (the build
scripts/demo.sh makes, which the README's commands name) links to --build,
the build under test. So the commands run verbatim and their outputs
(run.json, gantt.png) land in the temporary folder. Open MPI may start more
ranks than cores there as the README says (--oversubscribe in the commands);
the environment is the test's own.

Exit status 0 when every block that runs exits 0; the output of a failing
block is printed.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

MARK = re.compile(r"<!--\s*readme-check:\s*skip:\s*(.+?)\s*-->")
LINKED = ("tools", "examples", "scripts", "apps", "python", "include", "src")


def blocks(text):
    """(line number, language, code, skip reason or None) of every fenced block."""
    out = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        m = re.match(r"^```(\w*)\s*$", lines[i])
        if not m:
            i += 1
            continue
        lang, start = m.group(1), i
        j = i + 1
        while j < len(lines) and not lines[j].startswith("```"):
            j += 1
        prev = lines[start - 1] if start > 0 else ""
        mark = MARK.search(prev)
        out.append((start + 1, lang, "\n".join(lines[start + 1:j]) + "\n", mark.group(1) if mark else None))
        i = j + 1
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("readme")
    ap.add_argument("--build", required=True, help="the build the blocks run against (as build/release)")
    ap.add_argument("--timeout", type=float, default=60.0)
    ap.add_argument("--list", action="store_true", help="list the blocks and whether they run")
    a = ap.parse_args()
    root = os.path.dirname(os.path.abspath(a.readme))
    with open(a.readme, encoding="utf-8") as f:
        found = [b for b in blocks(f.read()) if b[1] == "sh"]
    failures = 0
    ran = 0
    for line, _, code, skip in found:
        first = code.strip().splitlines()[0] if code.strip() else ""
        if skip:
            print(f"README.md:{line}: skipped ({skip}): {first}", flush=True)
            continue
        if a.list:
            print(f"README.md:{line}: runs: {first}", flush=True)
            continue
        with tempfile.TemporaryDirectory(prefix="readme-check-") as tmp:
            for name in LINKED:
                os.symlink(os.path.join(root, name), os.path.join(tmp, name))
            os.makedirs(os.path.join(tmp, "build"))
            os.symlink(os.path.abspath(a.build), os.path.join(tmp, "build", "release"))
            t0 = time.monotonic()
            try:
                p = subprocess.run(["bash", "-c", "set -e -o pipefail\n" + code], cwd=tmp, timeout=a.timeout,
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
                rc, out = p.returncode, p.stdout
            except subprocess.TimeoutExpired as e:
                rc, out = None, (e.stdout or b"").decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
            dt = time.monotonic() - t0
        ran += 1
        if rc == 0:
            print(f"README.md:{line}: ok ({dt:.1f} s): {first}", flush=True)
        else:
            failures += 1
            why = f"over {a.timeout:.0f} s" if rc is None else f"exit {rc}"
            print(f"README.md:{line}: FAILED ({why}, {dt:.1f} s):\n{code}--- output:\n{out[-4000:]}", flush=True)
    if not a.list and ran == 0:
        print("FAILED: no block ran (all skipped?)")
        return 1
    print(f"{ran} blocks ran, {failures} failed; {sum(1 for b in found if b[3])} skipped")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
