/* A C program on an installed lb4mpi (the consumer tests: scripts/check_install.cmake,
 * scripts/check_deb.sh), built by CMake (find_package) or by mpicc with
 * `pkg-config --cflags --libs lb4mpi` / `lb4mpi-static`.
 *
 * One loop through the DLS_* API; every iteration of [0, N) must run exactly
 * once over all ranks (per-iteration counts summed with MPI_Allreduce).
 * Prints "consumer-c: ok ..." on rank 0 and exits 0, or exits 1. */
#include <lb4mpi/lb4mpi.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

enum { N = 10007 };

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  infoDLS info;
  DLS_Parameters_Setup(MPI_COMM_WORLD, &info, size, -1, -1, 1, 0.013716, 0.0605, 0, 1.0, 1.0);
  int* marks = calloc(N, sizeof(int));
  int* counts = calloc(N, sizeof(int));
  if (marks == NULL || counts == NULL) MPI_Abort(MPI_COMM_WORLD, 1);

  int failures = 0;
  DLS_StartLoop(&info, 0, N - 1, FAC); /* inclusive bounds, as in LB4MPI */
  while (!DLS_Terminated(&info)) {
    int start = 0, chunk = 0;
    DLS_StartChunk(&info, &start, &chunk);
    for (int i = start; i < start + chunk; ++i) {
      if (i < 0 || i >= N) {
        failures = 1;
      } else {
        ++marks[i];
      }
    }
    DLS_EndChunk(&info);
  }
  int executed = 0;
  double work_time = 0.0;
  DLS_EndLoop(&info, &executed, &work_time);
  DLS_Finalize(&info);

  MPI_Allreduce(marks, counts, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  long total = 0;
  for (int i = 0; i < N; ++i) {
    if (counts[i] != 1) {
      if (failures < 3 && rank == 0) fprintf(stderr, "consumer-c: iteration %d ran %d times\n", i, counts[i]);
      ++failures;
    }
    total += counts[i];
  }
  int any = 0;
  MPI_Allreduce(&failures, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0) {
    if (any == 0) {
      printf("consumer-c: ok: %ld iterations, each exactly once, on %d ranks\n", total, size);
    } else {
      printf("consumer-c: FAILED\n");
    }
  }
  free(marks);
  free(counts);
  MPI_Finalize();
  return any == 0 ? 0 : 1;
}
