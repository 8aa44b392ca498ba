/* The LB4MPI C interface, used as `003` Listing 2.1 does: two loops in
 * sequence, each drained with DLS_Terminated / DLS_StartChunk / DLS_EndChunk,
 * synchronized by DLS_EndLoop. Every iteration must run exactly once, for
 * every technique constant. A failure on any rank makes every rank exit
 * non-zero (no rank leaves a collective early). */
#include "capi_check.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int numProcs = 0, rank = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &numProcs);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);

  infoDLS iInfo;
  int requestWhen = -1, breakAfter = -1, minChunk = 1;
  double h_overhead = 0.013716, sigma = 0.0605;
  DLS_Parameters_Setup(MPI_COMM_WORLD, &iInfo, numProcs, requestWhen, breakAfter, minChunk,
                       h_overhead, sigma, 0, 1.0, 1.0);

  const int methods[] = {STATIC,      SS,          FSC,         mFSC,
                         GSS,         TSS,         FAC,         WF,
                         AWF,         AWF_B,       AWF_C,       AWF_D,
                         AWF_E,       AF,          LB4MPI_TAP,  LB4MPI_FAC_PROB,
                         LB4MPI_TFSS, LB4MPI_FISS, LB4MPI_VISS, LB4MPI_RND,
                         LB4MPI_PLS};
  enum { N1 = 1000, N2 = 2500 };
  int failures = 0;
  for (unsigned m = 0; m < sizeof methods / sizeof methods[0]; ++m) {
    /* loop 1: indices 0..999; loop 2: 100..2599 (inclusive bounds). */
    failures += capi_run_loop(&iInfo, 0, N1 - 1, methods[m], 0, NULL);
    failures += capi_run_loop(&iInfo, 100, 100 + N2 - 1, methods[m], 1, NULL);
  }
  /* STATIC loops back to back run alone (no collective at their start or
     end; their agreements stay outstanding, at most 16): ranges larger and
     smaller than P, empty; a dynamic loop in between concludes them, and
     DLS_Finalize the last ones. */
  for (int k = 0; k < 40; ++k) {
    const int lo = 7 * k, n = k % 5 == 0 ? 0 : (k % 3 == 0 ? numProcs - 1 : 50 + 13 * k);
    failures += capi_run_loop(&iInfo, lo, lo + n - 1, STATIC, k & 1, NULL);
    if (k == 20) failures += capi_run_loop(&iInfo, 0, N1 - 1, GSS, 0, NULL);
  }
  DLS_Finalize(&iInfo);
  const int any = capi_any(failures);
  if (rank == 0) printf("C API: %s\n", any ? "FAILED" : "ok");
  MPI_Finalize();
  return any ? 1 : 0;
}
