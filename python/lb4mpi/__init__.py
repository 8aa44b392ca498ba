"""lb4mpi: dynamic loop self-scheduling across the ranks of an MPI job, for mpi4py codes.

    from mpi4py import MPI
    import lb4mpi

    def body(begin, end):            # a chunk: iterations [begin, end)
        out[begin:end] = work(begin, end)

    report = lb4mpi.parallel_for(MPI.COMM_WORLD, 0, n, body, technique="FAC2", mode="distributed")
    print(report.summary())          # every rank gets the report

Every rank calls it with the same range and options; together the chunks
cover [0, n) exactly once. Options come from the LB4MPI_* variables
(lb4mpi.Options.from_env()) with the keywords on top. lb4mpi.Loop is the
start-chunk / end-chunk form (time steps: loop.restart), lb4mpi.LoopSet runs
several loops in flight together. Bad input raises lb4mpi.Error on every rank,
naming the valid choices. The library runs with the GIL released while it
waits or communicates; chunk bodies run with the GIL held.

The package wraps lb4mpi's C++ library (the extension module lb4mpi._core,
built with it and for the same MPI as mpi4py). docs/PYTHON.md has the whole
interface.
"""
import sys as _sys

try:
    from mpi4py import MPI as _MPI  # noqa: F401  (initializes MPI, as _core needs)
except ImportError as _e:  # pragma: no cover - depends on the interpreter
    from ._built_for import PYTHON as _PYTHON
    raise ImportError(
        f"lb4mpi needs mpi4py, which this Python ({_sys.executable}) cannot import ({_e}); the package "
        f"was built for {_PYTHON}: run that one (with mpi4py: on Debian, python3-mpi4py), see docs/PYTHON.md"
    ) from _e

from ._core import (  # noqa: E402
    Error,
    Loop,
    LoopSet,
    LoopSpec,
    Options,
    OutputError,
    RankReport,
    Report,
    __version__,
    known_variables,
    modes,
    option_names,
    parallel_for,
    parse_mode,
    parse_technique,
    run_loops,
    technique_info,
    techniques,
)

__all__ = [
    "Error", "Loop", "LoopSet", "LoopSpec", "Options", "OutputError", "RankReport", "Report",
    "__version__", "known_variables", "modes", "option_names", "parallel_for", "parse_mode",
    "parse_technique", "run_loops", "technique_info", "techniques",
]
