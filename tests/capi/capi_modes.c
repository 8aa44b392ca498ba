/* The C API in its three chunk-calculation modes, single loops and several
 * loops in flight, several techniques, each over two time steps (the second
 * restarts the kept loop with another range). Every iteration must run
 * exactly once, and the loops must run in the expected mode.
 *
 *   capi_modes call        each mode in turn via Configure_Chunk_Calculation_Mode
 *   capi_modes env <mode>  LB4MPI_MODE (set by the test) alone must select <mode>
 *                          (0 CENTRALIZED, 1 DECENTRALIZED, 2 DECENTRALIZED_RMA);
 *                          then Configure_Chunk_Calculation_Mode must override it. */
#include "capi_check.h"

#include <string.h>

enum { NLOOPS = 3 };

static int expect_mode(infoDLS* info, int expected, const char* what) {
  const int got = LB4MPI_Chunk_Calculation_Mode(info);
  if (got != expected) {
    fprintf(stderr, "%s: the loop ran in mode %d, expected %d\n", what, got, expected);
    return 1;
  }
  return 0;
}

/* Single loops and several loops, two time steps each, in the current mode.
 * Small loops: with MPICH on an oversubscribed machine every message round
 * trip may wait for a time slice. */
static int run_all(infoDLS* info, int expected_mode) {
  static const int methods[] = {STATIC, GSS, FAC, AF, AWF_B, LB4MPI_AUTO};
  int failures = 0;
  for (unsigned m = 0; m < sizeof methods / sizeof methods[0]; ++m) {
    failures += capi_run_loop(info, 0, 399, methods[m], (int)(m % 2), NULL);
    failures += expect_mode(info, expected_mode, "single loop");
    failures +=
        capi_run_loop(info, 7, 306, methods[m], (int)((m + 1) % 2), NULL); /* next time step */
  }
  /* Mix 0 over two time steps (the second restarts the kept loops), then mix 1 (rebuilt). */
  static const int mixes[3][NLOOPS] = {{STATIC, AF, GSS}, {STATIC, AF, GSS}, {FAC, AWF_B, LB4MPI_AUTO}};
  for (int step = 0; step < 3; ++step) {
    int firsts[NLOOPS] = {0, 100, 5};
    int lasts[NLOOPS] = {299, 100 + 399 - 100 * step, 204};
    int methods3[NLOOPS];
    memcpy(methods3, mixes[step], sizeof methods3);
    failures += capi_run_mloops(info, NLOOPS, firsts, lasts, methods3, NULL);
    failures += expect_mode(info, expected_mode, "several loops");
  }
  /* An empty loop (lastIter = firstIter - 1) is valid, as in LB4MPI. */
  failures += capi_run_loop(info, 10, 9, GSS, 0, NULL);
  return failures;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int numProcs = 0, rank = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &numProcs);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const int use_env = argc >= 3 && strcmp(argv[1], "env") == 0;
  if (!use_env && !(argc >= 2 && strcmp(argv[1], "call") == 0)) {
    if (rank == 0) fprintf(stderr, "usage: capi_modes call | capi_modes env <0|1|2>\n");
    MPI_Finalize();
    return 2;
  }

  infoDLS info;
  DLS_NumLoops(&info, NLOOPS);
  DLS_Parameters_Setup(MPI_COMM_WORLD, &info, numProcs, -1, -1, 1, 0.013716, 0.0605, 0, 1.0, 1.0);
  int failures = 0;
  if (LB4MPI_Chunk_Calculation_Mode(&info) != -1) {
    fprintf(stderr, "a mode is reported before any loop started\n");
    failures = 1;
  }
  const int modes[3] = {CENTRALIZED, DECENTRALIZED, DECENTRALIZED_RMA};
  if (use_env) {
    const int expected = atoi(argv[2]);
    const char* env = getenv("LB4MPI_MODE");
    if (rank == 0) printf("LB4MPI_MODE=%s, expecting mode %d\n", env ? env : "(unset)", expected);
    failures += run_all(&info, expected);
    /* Configure_Chunk_Calculation_Mode takes precedence over LB4MPI_MODE. */
    const int other = modes[(expected + 1) % 3];
    Configure_Chunk_Calculation_Mode(other);
    failures += capi_run_loop(&info, 0, 399, FAC, 0, NULL);
    failures += expect_mode(&info, other, "after Configure_Chunk_Calculation_Mode");
  } else {
    for (int m = 0; m < 3; ++m) {
      Configure_Chunk_Calculation_Mode(modes[m]);
      failures += run_all(&info, modes[m]);
    }
  }
  DLS_Finalize(&info);
  const int any = capi_any(failures);
  if (rank == 0) printf("C API modes (%s): %s\n", argv[1], any ? "FAILED" : "ok");
  MPI_Finalize();
  return any ? 1 : 0;
}
