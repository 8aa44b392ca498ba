/* nKNL, Xeon_speed, KNL_speed of DLS_Parameters_Setup become WF weights as
 * in LB4MPI (`003` Listing B.2): ranks 0 .. P-nKNL-1 are Xeons, the last
 * nKNL ranks are KNLs. WF scales each rank's chunk by its weight, so the
 * first chunks must be in the ratio of the speeds: equal within each kind,
 * KNL / Xeon = KNL_speed / Xeon_speed (LB4MPI gave the speeds to the last
 * nKNL ranks; with the first nKNL ranks, rank 1 would be the KNL). Checked for a faster and a
 * slower KNL, and every iteration must run exactly once. */
#include "capi_check.h"

enum { N = 4000 };

static int check_weights(int nKNL, double xeon, double knl) {
  int numProcs = 0, rank = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &numProcs);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  /* requestWhen = 0 and a breakAfter beyond N: a rank's first piece is its first chunk. */
  infoDLS info;
  DLS_Parameters_Setup(MPI_COMM_WORLD, &info, numProcs, 0, 1 << 30, 1, 0.013716, 0.0605, nKNL, xeon,
                       knl);
  int failures = 0;
  int mine = 0;
  failures += capi_run_loop(&info, 0, N - 1, WF, 0, &mine);
  DLS_Finalize(&info);

  int first[64];
  MPI_Allgather(&mine, 1, MPI_INT, first, 1, MPI_INT, MPI_COMM_WORLD);
  const int xeons = numProcs - nKNL;
  if (rank == 0) {
    printf("P=%d nKNL=%d Xeon_speed=%g KNL_speed=%g: first chunks", numProcs, nKNL, xeon, knl);
    for (int r = 0; r < numProcs; ++r) printf(" %s%d", r < xeons ? "X:" : "K:", first[r]);
    printf("\n");
  }
  /* In CENTRALIZED mode the coordinator (rank 0) hands every worker its
   * first chunk from the first batch before it takes its own, which may come
   * later: compare the workers (ranks 1..P-1) only. */
  const int first_xeon = 1, first_knl = xeons > 1 ? xeons : 1;
  for (int r = 1; r < numProcs; ++r) {
    const int same_kind = r < xeons ? first_xeon : first_knl;
    if (abs(first[r] - first[same_kind]) > 1) {
      if (rank == 0)
        fprintf(stderr, "rank %d's first chunk %d differs from rank %d's %d\n", r, first[r],
                same_kind, first[same_kind]);
      failures = 1;
    }
  }
  if (xeons > 1 && nKNL > 0) {
    const double ratio = (double)first[numProcs - 1] / (double)first[first_xeon];
    const double expected = knl / xeon;
    if (!(ratio > 0.9 * expected && ratio < 1.1 * expected)) {
      if (rank == 0) {
        fprintf(stderr,
                "last rank (KNL) / rank 1 (Xeon) first chunks: %g, expected about %g = KNL_speed / "
                "Xeon_speed\n",
                ratio, expected);
      }
      failures = 1;
    }
  }
  return failures;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int numProcs = 0, rank = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &numProcs);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (numProcs < 3 || numProcs > 64) {
    if (rank == 0)
      fprintf(stderr, "capi_knl needs 3..64 ranks (two workers besides the coordinator)\n");
    MPI_Finalize();
    return 2;
  }
  int failures = 0;
  failures += check_weights(1, 1.0, 3.0);            /* one fast KNL: the last rank */
  failures += check_weights(numProcs - 2, 2.0, 1.0); /* slower KNLs: all but ranks 0 and 1 */
  failures += check_weights(numProcs, 1.0, 2.0);     /* KNLs only: equal weights */
  const int any = capi_any(failures);
  if (rank == 0) printf("C API, nKNL weights: %s\n", any ? "FAILED" : "ok");
  MPI_Finalize();
  return any ? 1 : 0;
}
