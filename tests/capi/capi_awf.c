/* AWF learns across time steps through the C API: rank 1 takes 8x longer per
 * iteration than the others. Time step 0 starts with equal weights; from
 * step 2 on, the weights learned from the finished steps must shrink rank
 * 1's first chunk (and grow rank 0's), in every mode, for a single loop and
 * for a loop in flight with another (DLS_StartMLoops). Each step's
 * iterations must run exactly once.
 *
 * The C API keeps the loop between DLS_EndLoop and the next DLS_StartLoop;
 * a rebuilt loop would start every step with equal weights again. */
#include "capi_check.h"

enum { N = 1000, STEPS = 6 };

static int by_value(const void* a, const void* b) {
  const int x = *(const int*)a, y = *(const int*)b;
  return (x > y) - (x < y);
}

static double median(const int* v, int n) {
  int sorted[STEPS];
  for (int i = 0; i < n; ++i) sorted[i] = v[i];
  qsort(sorted, (size_t)n, sizeof(int), by_value);
  return n % 2 == 1 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
}

/* first[s]: this rank's first piece in step s. Returns failures (same on every rank). */
static int check_learning(const int* first, const char* what) {
  int numProcs = 0, rank = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &numProcs);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int all[16 * STEPS];
  MPI_Allgather(first, STEPS, MPI_INT, all, STEPS, MPI_INT, MPI_COMM_WORLD);
  const int* slow = all + 1 * STEPS; /* rank 1 */
  const int* fast = all + 0 * STEPS; /* rank 0 */
  if (rank == 0) {
    printf("%s: first chunk of rank 0 / rank 1 per step:", what);
    for (int s = 0; s < STEPS; ++s) printf(" %d/%d", fast[s], slow[s]);
    printf("\n");
  }
  /* Step 0: equal weights, both first chunks come from the first batch. */
  const int reference = fast[0] > slow[0] ? fast[0] : slow[0];
  int failures = 0;
  /* One step of the five may come out otherwise: a step timed while the
   * shared machine stalled one rank (seen under ASan with a build running
   * beside: 247/253 in step 4 between 382/118 and 424/76). */
  int against = 0;
  for (int s = 1; s < STEPS; ++s) {
    if (!(slow[s] > 0 && slow[s] < reference)) {
      if (rank == 0) {
        fprintf(stderr, "%s: step %d: the slow rank's first chunk is %d, not below %d (step 0)\n",
                what, s, slow[s], reference);
      }
      ++against;
    }
  }
  if (against > 1) failures = 1;
  /* From the medians of steps 1.. (timing noise of a shared machine aside),
   * the learned weights are far from equal: about 0.2 and 1.8 at P = 2. */
  const double slow_median = median(slow + 1, STEPS - 1);
  const double fast_median = median(fast + 1, STEPS - 1);
  if (!(slow_median < 0.7 * reference)) {
    if (rank == 0) {
      fprintf(stderr,
              "%s: the slow rank's median first chunk of steps 1..%d is %g, not below 0.7 x %d "
              "(step 0)\n",
              what, STEPS - 1, slow_median, reference);
    }
    failures = 1;
  }
  if (!(fast_median > 1.2 * reference)) {
    if (rank == 0) {
      fprintf(stderr,
              "%s: the fast rank's median first chunk of steps 1..%d is %g, not above 1.2 x %d "
              "(step 0)\n",
              what, STEPS - 1, fast_median, reference);
    }
    failures = 1;
  }
  return failures;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int numProcs = 0, rank = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &numProcs);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (numProcs < 2 || numProcs > 16) {
    if (rank == 0) fprintf(stderr, "capi_awf needs 2..16 ranks\n");
    MPI_Finalize();
    return 2;
  }
  /* 8x: learned weights about 0.2 and 1.8 at P = 2, far from the thresholds
   * below; 50 us per iteration: a fast chunk (~20 ms) outlasts the wake-up
   * delays of a loaded machine (4x at 20 us failed under ASan, twice as many
   * tests as cores and a build beside: medians 295 and 195). */
  capi_us_per_iteration = rank == 1 ? 400.0 : 50.0;

  /* requestWhen = 0 and a breakAfter beyond N: every rank runs its chunks
   * in one piece, so the first piece a rank sees is its first chunk. */
  const int requestWhen = 0, breakAfter = 1 << 30;
  infoDLS info;
  DLS_NumLoops(&info, 2);
  DLS_Parameters_Setup(MPI_COMM_WORLD, &info, numProcs, requestWhen, breakAfter, 1, 0.013716,
                       0.0605, 0, 1.0, 1.0);

  const int modes[3] = {CENTRALIZED, DECENTRALIZED, DECENTRALIZED_RMA};
  const char* names[3] = {"CENTRALIZED", "DECENTRALIZED", "DECENTRALIZED_RMA"};
  int failures = 0;
  for (int m = 0; m < 3; ++m) {
    Configure_Chunk_Calculation_Mode(modes[m]);
    char what[96];
    int first[STEPS];
    for (int s = 0; s < STEPS; ++s) failures += capi_run_loop(&info, 0, N - 1, AWF, 0, &first[s]);
    snprintf(what, sizeof what, "%s, DLS_StartLoop", names[m]);
    failures += check_learning(first, what);

    /* Loop 0 (AWF) in flight with loop 1 (a small GSS loop). */
    for (int s = 0; s < STEPS; ++s) {
      int firsts[2] = {0, 0}, lasts[2] = {N - 1, 99}, methods[2] = {AWF, GSS}, pieces[2] = {0, 0};
      failures += capi_run_mloops(&info, 2, firsts, lasts, methods, pieces);
      first[s] = pieces[0];
    }
    snprintf(what, sizeof what, "%s, DLS_StartMLoops", names[m]);
    failures += check_learning(first, what);
  }
  DLS_Finalize(&info);
  const int any = capi_any(failures);
  if (rank == 0) printf("C API, AWF across time steps: %s\n", any ? "FAILED" : "ok");
  MPI_Finalize();
  return any ? 1 : 0;
}
