/* Bad input through the C API. Every case must end the job with status 2 and
 * a message naming the problem — on every rank when the error is in a
 * collective call, on the misusing rank otherwise — and never hang. The test
 * driver (lb4mpi_add_mpi_failure_test) checks the exit code and counts the
 * messages; reaching the end of main() is a failure (exit 0 is rejected).
 *
 *   capi_bad_input <case>, case one of:
 *     range          DLS_StartLoop with firstIter 10 > lastIter 5
 *     param          FSC with h_overhead = -1
 *     knl            nKNL > numProcs
 *     numprocs       numProcs wrong on rank 1 only
 *     mismatch       rank 1 passes another method to DLS_StartLoop
 *     mismatch_setup the last rank passes another minChunk to DLS_Parameters_Setup
 *     mode           Configure_Chunk_Calculation_Mode(5), reported by DLS_StartLoop
 *     env            (LB4MPI_MODE set to a bad value by the driver)
 *     mloops         an unknown method for loop 1 of DLS_StartMLoops
 *     endloop_early  rank 1 calls DLS_EndLoop before DLS_Terminated returned 1
 *   STATIC loops run alone (no collective at their start or end; their
 *   agreement is concluded later, by the handle's next call at the latest):
 *     static_mismatch rank 1 passes another lastIter
 *     static_mixed   rank 1 passes GSS (not alone), the others STATIC (alone)
 *     static_early   rank 1 calls DLS_EndLoop before DLS_Terminated returned 1
 *     static_range   rank 1 alone passes firstIter 10 > lastIter 5
 *     target         rank 1 alone calls DLS_TargetLoop(5) with 2 loops (local: MPI_Abort) */
#include <lb4mpi/lb4mpi.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static void drain(infoDLS* info) {
  int start = 0, size = 0;
  while (!DLS_Terminated(info)) {
    DLS_StartChunk(info, &start, &size);
    DLS_EndChunk(info);
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int numProcs = 0, rank = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &numProcs);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const char* c = argc >= 2 ? argv[1] : "";
  const int last = numProcs - 1;
  infoDLS info;
  int nIter = 0;
  double workTime = 0.0;

  int procs = numProcs;
  if (strcmp(c, "numprocs") == 0 && rank == 1) procs = numProcs + 1;
  int minChunk = 1;
  if (strcmp(c, "envmin") == 0) minChunk = 0; /* 0: LB4MPI_MIN_CHUNK's value */
  if (strcmp(c, "mismatch_setup") == 0 && rank == last) minChunk = 2;
  double h = 0.013716;
  if (strcmp(c, "param") == 0) h = -1.0;
  int nKNL = 0;
  if (strcmp(c, "knl") == 0) nKNL = numProcs + 1;
  if (strcmp(c, "mloops") == 0 || strcmp(c, "target") == 0) DLS_NumLoops(&info, 2);
  if (strcmp(c, "mode") == 0) Configure_Chunk_Calculation_Mode(5);

  DLS_Parameters_Setup(MPI_COMM_WORLD, &info, procs, -1, -1, minChunk, h, 0.0605, nKNL, 1.0, 2.0);

  if (strcmp(c, "range") == 0) DLS_StartLoop(&info, 10, 5, GSS);
  if (strcmp(c, "param") == 0) DLS_StartLoop(&info, 0, 999, FSC);
  if (strcmp(c, "mismatch") == 0) DLS_StartLoop(&info, 0, 999, rank == 1 ? GSS : FAC);
  if (strcmp(c, "mode") == 0) DLS_StartLoop(&info, 0, 999, GSS);
  if (strcmp(c, "mloops") == 0) {
    int firsts[2] = {0, 0}, lasts[2] = {99, 99}, methods[2] = {GSS, 42};
    DLS_StartMLoops(&info, firsts, lasts, methods);
  }
  if (strcmp(c, "endloop_early") == 0) {
    DLS_StartLoop(&info, 0, 999, SS);
    if (rank != 1) drain(&info);
    DLS_EndLoop(&info, &nIter, &workTime);
  }
  if (strncmp(c, "static_", 7) == 0) {
    /* A first loop that agrees, so that the bad one is not the first. */
    DLS_StartLoop(&info, 0, 99, STATIC);
    drain(&info);
    DLS_EndLoop(&info, &nIter, &workTime);
    int first = 0, lastIter = 999, method = STATIC;
    if (rank == 1 && strcmp(c, "static_mismatch") == 0) lastIter = 998;
    if (rank == 1 && strcmp(c, "static_mixed") == 0) method = GSS;
    if (rank == 1 && strcmp(c, "static_range") == 0) first = 10, lastIter = 5;
    DLS_StartLoop(&info, first, lastIter, method);
    if (rank != 1 || strcmp(c, "static_early") != 0) drain(&info);
    DLS_EndLoop(&info, &nIter, &workTime);
    DLS_Finalize(&info); /* concludes the STATIC loops' agreement at the latest */
  }
  if (strcmp(c, "target") == 0) {
    int firsts[2] = {0, 0}, lasts[2] = {99, 99}, methods[2] = {GSS, FAC};
    DLS_StartMLoops(&info, firsts, lasts, methods);
    int start = 0, size = 0;
    while (!DLS_MTerminated(&info)) {
      for (int l = 0; l < 2; ++l) {
        DLS_TargetLoop(&info, rank == 1 ? 5 : l);
        DLS_StartChunk(&info, &start, &size);
        DLS_EndChunk(&info);
      }
    }
    int nIters[2];
    double workTimes[2];
    DLS_EndMLoops(&info, nIters, workTimes);
  }
  if (strcmp(c, "fulltrace") == 0) {
    /* LB4MPI_TRACE is a link to /dev/full: the start's check passes, the
       write at the end fails. Every rank prints the error, DLS_EndLoop
       returns, and every iteration ran exactly once: exit 0. */
    enum { N = 1000 };
    int mine[N] = {0}, all[N] = {0};
    int start = 0, size = 0;
    DLS_StartLoop(&info, 0, N - 1, GSS);
    while (!DLS_Terminated(&info)) {
      DLS_StartChunk(&info, &start, &size);
      for (int i = start; i < start + size; ++i) ++mine[i];
      DLS_EndChunk(&info);
    }
    DLS_EndLoop(&info, &nIter, &workTime);
    MPI_Reduce(mine, all, N, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    int bad = 0;
    for (int i = 0; i < N; ++i) bad += all[i] != 1;
    MPI_Bcast(&bad, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank == 0) printf("fulltrace: %d of %d iterations not run exactly once\n", bad, N);
    DLS_Finalize(&info);
    MPI_Finalize();
    return bad == 0 ? 0 : 1;
  }
  /* Still here: the bad input was not detected (the driver rejects exit 0 too). */
  if (rank == 0) printf("case '%s': no error was reported\n", c);
  DLS_Finalize(&info);
  MPI_Finalize();
  return 3;
}
