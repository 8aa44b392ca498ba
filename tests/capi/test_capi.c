/* The LB4MPI C interface, used as `003` Listing 2.1 does: two loops in
 * sequence, each drained with DLS_Terminated / DLS_StartChunk / DLS_EndChunk,
 * synchronized by DLS_EndLoop. Every iteration must run exactly once, for
 * every technique constant. Exits non-zero on any violation. */
#include <lb4mpi/lb4mpi.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int check_loop(infoDLS* info, int first, int last, int method, int* marks, int* global) {
  int n = last - first + 1;
  for (int i = 0; i < n; ++i) marks[i] = 0;
  int start = 0, chunkSize = 0, nIter = 0;
  double workTime = 0.0;
  long mine = 0;
  DLS_StartLoop(info, first, last, method);
  while (!DLS_Terminated(info)) {
    DLS_StartChunk(info, &start, &chunkSize);
    for (int i = start; i < start + chunkSize; ++i) {
      if (i < first || i > last) return 1;
      marks[i - first] += 1;
    }
    mine += chunkSize;
    DLS_EndChunk(info);
  }
  DLS_EndLoop(info, &nIter, &workTime);
  if (nIter != mine) {
    fprintf(stderr, "method %d: DLS_EndLoop reports %d iterations, executed %ld\n", method, nIter, mine);
    return 1;
  }
  MPI_Allreduce(marks, global, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  for (int i = 0; i < n; ++i) {
    if (global[i] != 1) {
      fprintf(stderr, "method %d: iteration %d ran %d times\n", method, first + i, global[i]);
      return 1;
    }
  }
  return 0;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int numProcs = 0, rank = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &numProcs);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);

  infoDLS iInfo;
  int requestWhen = -1, breakAfter = -1, minChunk = 1;
  double h_overhead = 0.013716, sigma = 0.0605;
  DLS_Parameters_Setup(MPI_COMM_WORLD, &iInfo, numProcs, requestWhen, breakAfter, minChunk, h_overhead, sigma,
                       0, 1.0, 1.0);

  const int methods[] = {STATIC, SS, FSC, mFSC, GSS, TSS, FAC, WF, AWF, AWF_B, AWF_C, AWF_D, AWF_E, AF,
                         LB4MPI_TAP, LB4MPI_FAC_PROB, LB4MPI_TFSS, LB4MPI_FISS, LB4MPI_VISS, LB4MPI_RND,
                         LB4MPI_PLS};
  enum { N1 = 1000, N2 = 2500 };
  int* marks = malloc(sizeof(int) * N2);
  int* global = malloc(sizeof(int) * N2);
  int failures = 0;
  for (unsigned m = 0; m < sizeof methods / sizeof methods[0]; ++m) {
    /* loop 1: indices 0..999; loop 2: 100..2599 (inclusive bounds). */
    failures += check_loop(&iInfo, 0, N1 - 1, methods[m], marks, global);
    failures += check_loop(&iInfo, 100, 100 + N2 - 1, methods[m], marks, global);
  }
  DLS_Finalize(&iInfo);
  free(marks);
  free(global);
  if (rank == 0) printf("C API: %d failures\n", failures);
  MPI_Finalize();
  return failures == 0 ? 0 : 1;
}
