/* Several loops in flight through the LB4MPI C interface, as `003`
 * Listing 4.3 uses it: DLS_NumLoops, DLS_StartMLoops, DLS_TargetLoop in a
 * DLS_MTerminated loop, DLS_EndMLoops. Each iteration of each loop must run
 * exactly once, over several time steps and mixes of techniques. */
#include <lb4mpi/lb4mpi.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

enum { NLOOPS = 3 };

static int run_step(infoDLS* info, int* firsts, int* lasts, int* methods) {
  int* marks[NLOOPS];
  int n[NLOOPS];
  for (int l = 0; l < NLOOPS; ++l) {
    n[l] = lasts[l] - firsts[l] + 1;
    marks[l] = calloc((size_t)(n[l] > 0 ? n[l] : 1), sizeof(int));
  }
  int start = 0, chunkSize = 0, failures = 0;
  long mine[NLOOPS] = {0, 0, 0};
  DLS_StartMLoops(info, firsts, lasts, methods);
  while (!DLS_MTerminated(info)) {
    for (int l = 0; l < NLOOPS; ++l) {
      DLS_TargetLoop(info, l);
      DLS_StartChunk(info, &start, &chunkSize);
      for (int i = start; i < start + chunkSize; ++i) {
        if (i < firsts[l] || i > lasts[l]) failures = 1;
        else marks[l][i - firsts[l]] += 1;
      }
      mine[l] += chunkSize;
      DLS_EndChunk(info);
    }
  }
  int nIters[NLOOPS];
  double workTimes[NLOOPS];
  DLS_EndMLoops(info, nIters, workTimes);
  for (int l = 0; l < NLOOPS; ++l) {
    if (nIters[l] != mine[l]) {
      fprintf(stderr, "loop %d: DLS_EndMLoops reports %d iterations, executed %ld\n", l, nIters[l], mine[l]);
      failures = 1;
    }
    int* global = calloc((size_t)(n[l] > 0 ? n[l] : 1), sizeof(int));
    if (n[l] > 0) MPI_Allreduce(marks[l], global, n[l], MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    for (int i = 0; i < n[l]; ++i) {
      if (global[i] != 1) {
        fprintf(stderr, "loop %d (method %d): iteration %d ran %d times\n", l, methods[l], firsts[l] + i, global[i]);
        failures = 1;
        break;
      }
    }
    free(global);
    free(marks[l]);
  }
  return failures;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int numProcs = 0, rank = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &numProcs);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  infoDLS iInfo;
  DLS_NumLoops(&iInfo, NLOOPS);
  DLS_Parameters_Setup(MPI_COMM_WORLD, &iInfo, numProcs, -1, -1, 1, 0.013716, 0.0605, 0, 1.0, 1.0);
  int failures = 0;
  int mixes[4][NLOOPS] = {{STATIC, AF, GSS}, {SS, AWF_E, FAC}, {AWF, TSS, LB4MPI_PLS}, {mFSC, WF, AWF_B}};
  for (int step = 0; step < 8; ++step) {
    int firsts[NLOOPS] = {0, 100, 0};
    int lasts[NLOOPS] = {999, 100 + 1499, step == 3 ? -1 : 2499}; /* an empty loop at step 3 */
    failures += run_step(&iInfo, firsts, lasts, mixes[step % 4]);
  }
  DLS_Finalize(&iInfo);
  /* Every rank exits non-zero when any rank failed. */
  int any = 0;
  MPI_Allreduce(&failures, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0) printf("C API, several loops: %s\n", any ? "FAILED" : "ok");
  MPI_Finalize();
  return any == 0 ? 0 : 1;
}
