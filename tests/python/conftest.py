"""Shared helpers of the pytest suite of the Python package lb4mpi.

The suite runs on every rank of one MPI job:

    mpiexec -n 3 python3 -m pytest -q -p no:cacheprovider tests/python

Every rank collects the same tests in the same order and runs them together
(each test is collective). Checks that depend on what several ranks saw are
made on data gathered to every rank, so all ranks pass or fail alike and no
rank is left waiting in a collective call.
"""
import numpy as np
import pytest
from mpi4py import MPI

import lb4mpi


@pytest.fixture
def comm():
    return MPI.COMM_WORLD


def total_over_ranks(comm, local):
    """Element-wise sum of every rank's NumPy array `local`, on every rank."""
    total = np.zeros_like(local)
    comm.Allreduce(local, total, op=MPI.SUM)
    return total


def assert_once_each(comm, hits, what, at_least=False):
    """Every index of the gathered bitmap was counted exactly once (or, with
    at_least, at least once), checked alike on every rank."""
    total = total_over_ranks(comm, hits)
    bad = np.flatnonzero(total < 1) if at_least else np.flatnonzero(total != 1)
    assert bad.size == 0, (f"{what}: {bad.size} of {total.size} iterations ran "
                           f"{'never' if at_least else 'other than once'}, e.g. index {bad[0]}: "
                           f"{total[bad[0]]} times")


def same_on_every_rank(comm, value):
    """True on every rank when `value` (picklable) is the same on all."""
    values = comm.allgather(value)
    return all(v == values[0] for v in values)


def run_covering(comm, first, last, **options):
    """parallel_for over [first, last) with a body that counts each iteration
    in a bitmap; returns (report, bitmap of this rank)."""
    hits = np.zeros(last - first, dtype=np.int64)

    def body(begin, end):
        hits[begin - first:end - first] += 1

    report = lb4mpi.parallel_for(comm, first, last, body, **options)
    return report, hits
