"""A hand-written mpi4py master-worker loop, as MPI codes in Python commonly
write one (the baseline of bench_mandelbrot.py): rank 0 hands out chunks of
`chunk` iterations on request and collects the results; the other ranks
compute. Pickled messages (comm.send / comm.recv), one chunk per request,
the result of the previous chunk travelling with the request.
"""
from mpi4py import MPI

TASK, STOP = 1, 2


def master_worker(comm, n, chunk, chunk_sum):
    """Runs chunk_sum(begin, end) over [0, n) in chunks of `chunk`; returns the
    sum of the results (mod 2^64) on rank 0, None elsewhere."""
    if comm.size == 1:
        return sum(chunk_sum(b, min(n, b + chunk)) for b in range(0, n, chunk)) % 2**64
    if comm.rank == 0:
        total, begin, working = 0, 0, comm.size - 1
        status = MPI.Status()
        while working > 0:
            result = comm.recv(source=MPI.ANY_SOURCE, status=status)
            total += result
            worker = status.Get_source()
            if begin < n:
                comm.send((begin, min(n, begin + chunk)), dest=worker, tag=TASK)
                begin += chunk
            else:
                comm.send(None, dest=worker, tag=STOP)
                working -= 1
        return total % 2**64
    result = 0
    status = MPI.Status()
    while True:
        comm.send(result, dest=0)
        task = comm.recv(source=0, status=status)
        if status.Get_tag() == STOP:
            return None
        result = chunk_sum(*task)
