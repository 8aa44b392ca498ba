"""The JSON summary line of an lb4mpi app (apps/common/summary.hpp) in its output."""
import json


def summary_of(out):
    """The first line of `out` that is an app's JSON summary, parsed; None when there is none."""
    for line in out.splitlines():
        line = line.strip()
        if line.startswith("{") and '"app"' in line:
            return json.loads(line)
    return None
