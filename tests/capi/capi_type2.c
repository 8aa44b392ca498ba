/* DLS4LB's setup calls: DLS_Setup (a Type I loop), get_DLS_ShortName, and
 * DLS_GroupSetup with a Type II (nested) loop as in docs/MIGRATION.md: the
 * outer j-loop scheduled among the coordinator and the groups' foremen, each
 * j's inner i-loop inside the group that got it. Every (j, i) must run
 * exactly once over the job (which also means every j ran in exactly one
 * group), for several outer/inner techniques in the three modes, two time
 * steps on the same handles. Run with LB4MPI_RANKS_PER_NODE for emulated
 * nodes (tests/capi/CMakeLists.txt). */
#include "capi_check.h" /* first: it asks for POSIX (nanosleep) */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { M = 23 };

static int inner_n(int j) { return 5 + (j * 7) % 31; } /* N(j): 5 .. 35 iterations */

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int failures = 0;

  /* get_DLS_ShortName: the technique layer's names for lb4mpi.h's ids. */
  if (strcmp(get_DLS_ShortName(GSS), "GSS") != 0 || strcmp(get_DLS_ShortName(AF), "AF") != 0 ||
      strcmp(get_DLS_ShortName(FAC), "FAC2") != 0 || strcmp(get_DLS_ShortName(42), "unknown") != 0) {
    fprintf(stderr, "get_DLS_ShortName: GSS -> %s, AF -> %s, FAC -> %s, 42 -> %s\n", get_DLS_ShortName(GSS),
            get_DLS_ShortName(AF), get_DLS_ShortName(FAC), get_DLS_ShortName(42));
    failures = 1;
  }

  /* DLS_Setup: a Type I loop with DLS4LB's defaults (FSC needs its h and sigma). */
  infoDLS info;
  DLS_Setup(MPI_COMM_WORLD, &info);
  failures |= capi_run_loop(&info, 1, 500, FSC, 0, NULL);
  failures |= capi_run_loop(&info, 1, 500, FAC, 0, NULL);
  DLS_Finalize(&info);

  /* Type II. marks[j][i] counts (j, i) on this rank. */
  int offset[M + 1];
  offset[0] = 0;
  for (int j = 0; j < M; ++j) offset[j + 1] = offset[j] + inner_n(j);
  const int total = offset[M];
  int* marks = (int*)calloc((size_t)total, sizeof(int));
  const int cases[][3] = {/* outer method, inner method, mode */
                          {FAC, GSS, CENTRALIZED},  {SS, STATIC, CENTRALIZED},     {GSS, AF, DECENTRALIZED},
                          {TSS, SS, DECENTRALIZED}, {FAC, FAC, DECENTRALIZED_RMA}, {AWF_B, mFSC, CENTRALIZED}};
  infoDLS GS, LS;
  DLS_GroupSetup(MPI_COMM_WORLD, 0, &GS, &LS);
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
    Configure_Chunk_Calculation_Mode(cases[c][2]);
    for (int step = 0; step < 2; ++step) {
      memset(marks, 0, (size_t)total * sizeof(int));
      int jStart = 0, jSize = 0, iStart = 0, iSize = 0, jIters = -1, iIters = 0, ran_j = 0;
      double jTime = 0.0, iTime = 0.0;
      DLS_StartLoop(&GS, 1, M, cases[c][0]);
      while (!DLS_Terminated(&GS)) {
        DLS_StartChunk(&GS, &jStart, &jSize);
        for (int j = jStart; j < jStart + jSize; ++j) {
          if (j < 1 || j > M) {
            fprintf(stderr, "case %zu: outer iteration %d outside [1, %d]\n", c, j, M);
            failures = 1;
            continue;
          }
          DLS_StartLoop(&LS, 1, inner_n(j - 1), cases[c][1]);
          while (!DLS_Terminated(&LS)) {
            DLS_StartChunk(&LS, &iStart, &iSize);
            for (int i = iStart; i < iStart + iSize; ++i) {
              if (i < 1 || i > inner_n(j - 1)) {
                fprintf(stderr, "case %zu: inner iteration %d of j %d out of range\n", c, i, j);
                failures = 1;
              } else {
                marks[offset[j - 1] + i - 1] += 1;
              }
            }
            DLS_EndChunk(&LS);
          }
          DLS_EndLoop(&LS, &iIters, &iTime);
          ++ran_j;
        }
        DLS_EndChunk(&GS);
      }
      DLS_EndLoop(&GS, &jIters, &jTime);
      if (jIters != ran_j) {
        fprintf(stderr, "case %zu: DLS_EndLoop(GS) reports %d outer iterations, the group ran %d\n", c, jIters, ran_j);
        failures = 1;
      }
      char what[64];
      snprintf(what, sizeof what, "Type II case %zu step %d", c, step);
      if (capi_exactly_once(marks, total, 0, what) != 0) failures = 1;
    }
  }
  DLS_Finalize(&LS);
  DLS_Finalize(&GS);
  free(marks);

  int any = 0;
  MPI_Allreduce(&failures, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0) printf("capi_type2: %s\n", any ? "FAILED" : "ok");
  MPI_Finalize();
  return any ? 1 : 0;
}
