"""Which Python runs the lb4mpi tools (imported by lb4mpi_gantt.py,
lb4mpi_chunk_plot.py and tools/experiments/lb4mpi_experiment.py).

The tools start with `#!/usr/bin/env python3`: the first python3 on PATH,
which on a workstation is often pyenv's or a venv's, without matplotlib,
while Debian's /usr/bin/python3 has it (python3-matplotlib). When the
interpreter running a tool lacks a module the tool needs, `rerun_with`
looks for a python3 that has it — every python3 on PATH, then
/usr/bin/python3 — and runs the tool again with that one (one line on
stderr says so). When none has it, it returns a message that names the
interpreter that was tried and how to get the module for it.
"""
from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys


def _missing(modules):
    return [m for m in modules if importlib.util.find_spec(m) is None]


def _candidates():
    # By path, not by the file a path leads to: a venv's python3 and a
    # wrapper lead to the same binary as /usr/bin/python3, with other modules.
    seen = set()
    out = []
    for folder in os.environ.get("PATH", "").split(os.pathsep) + ["/usr/bin"]:
        path = shutil.which("python3", path=folder) if folder else None
        if path and os.path.abspath(path) not in seen:
            seen.add(os.path.abspath(path))
            out.append(path)
    return out


def rerun_with(modules, prog):
    """Returns None when this interpreter has `modules`; else re-executes the
    running script with the first python3 that has them (does not return),
    or returns an error message naming this interpreter."""
    missing = _missing(modules)
    if not missing:
        return None
    probe = "; ".join(f"import {m}" for m in missing)
    for python in _candidates():
        try:
            ok = subprocess.run([python, "-c", probe], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                timeout=60).returncode == 0
        except (OSError, subprocess.TimeoutExpired):
            ok = False
        if ok:
            print(f"{prog}: {', '.join(missing)} is not available to {sys.executable}; running with {python}",
                  file=sys.stderr, flush=True)
            sys.stdout.flush()
            os.execv(python, [python, os.path.abspath(sys.argv[0])] + sys.argv[1:])
    debian = "Debian/Ubuntu: apt install " + " ".join(f"python3-{m}" for m in missing) + " (for /usr/bin/python3)"
    return (f"{', '.join(missing)} is not available to {sys.executable} (the python3 this ran with) nor to any "
            f"other python3 on PATH or /usr/bin/python3; {debian}, or {sys.executable} -m pip install "
            + " ".join(missing))
