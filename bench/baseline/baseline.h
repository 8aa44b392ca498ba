/* The loop a C programmer writes by hand, without lb4mpi (issue 32): the
 * baseline lb4mpi's C interface is compared with (bench/run_baseline_bench.py,
 * docs/PERFORMANCE.md "Hot path and oversubscription (issue 32)"). */
#ifndef LB4MPI_BENCH_BASELINE_H
#define LB4MPI_BENCH_BASELINE_H
#include <mpi.h>

enum hand_technique { HAND_STATIC, HAND_SS, HAND_GSS, HAND_TSS, HAND_FAC };

/* Executes iterations [begin, begin + size) of the loop. */
typedef void (*hand_body)(long long begin, long long size, void* user);

/* Runs the loop [0, n) over `comm`: STATIC splits it in P blocks up front
 * (no message); the others by a master-worker loop with blocking MPI_Send /
 * MPI_Recv, rank 0 the master, which computes the chunk sizes, answers
 * requests between pieces of `probe_every` iterations of its own chunks,
 * and, its own work over, serves the rest with a blocking MPI_Recv. */
void hand_loop(MPI_Comm comm, enum hand_technique t, long long n, long long probe_every,
               hand_body body, void* user);

#endif
