"""A Python consumer of an installed lb4mpi (scripts/check_install.cmake,
KIND=python): imports the package where it was installed, runs a loop on
every rank, checks that each iteration ran exactly once and that bad input
raises lb4mpi.Error, and prints "consumer-python: ok: ..." on rank 0.
Only the standard library and mpi4py."""
import sys

from mpi4py import MPI

import lb4mpi

comm = MPI.COMM_WORLD
n = 3001
hits = bytearray(n)


def body(begin, end):
    for i in range(begin, end):
        hits[i] += 1


report = lb4mpi.parallel_for(comm, 0, n, body, technique="GSS", mode="distributed")
total = [sum(column) for column in zip(*comm.allgather(bytes(hits)))]
ok = total == [1] * n and report.iterations() == n
try:
    lb4mpi.parallel_for(comm, 0, n, body, technique="no-such-technique")
    ok = False
except lb4mpi.Error as e:
    ok = ok and "valid names" in str(e)
if comm.rank == 0:
    print(f"consumer-python: {'ok' if ok else 'FAILED'}: lb4mpi {lb4mpi.__version__} from {lb4mpi.__file__}, "
          f"{report.summary()}")
sys.exit(0 if ok else 1)
