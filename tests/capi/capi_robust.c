/* Robust mode through the C API (`004` Algorithm 1): DLS_Robust,
 * DLS_SetCommit, DLS_EndChunkData, DLS_FailedRanks.
 *
 *   capi_robust          the last rank is slowed (LB4MPI_SLOW_RANKS, set by
 *                        the test) so that chunks are handed out again; every
 *                        iteration's result must reach the commit function
 *                        exactly once, with the bytes its chunk computed, in
 *                        the three modes, one loop after the other.
 *   capi_robust kill M   one loop in mode M (0, 1, 2) while ranks are killed
 *                        (LB4MPI_FAIL_RANKS, set by the test; under Open MPI's
 *                        mpiexec --enable-recovery): the coordinator must have
 *                        committed every iteration exactly once, every
 *                        survivor must name the victims (DLS_FailedRanks), and
 *                        the survivors leave without MPI_Finalize, as
 *                        docs/ROBUST.md tells a program to. Each survivor
 *                        writes its verdict to $LB4MPI_VERDICT_DIR/rank-R.json
 *                        (rank, failed ranks seen, exit code, and on rank 0
 *                        whether every iteration was committed once with its
 *                        value), which tests/capi/check_killed.py reads:
 *                        mpiexec --enable-recovery's exit code does not tell.
 *   capi_robust mkill M  the same with three loops in flight together
 *                        (DLS_StartMLoops, DLS_TargetLoop, DLS_SetMCommit):
 *                        every iteration of every loop committed exactly
 *                        once with its loop's value. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capi_check.h"

enum { N = 3000 };

struct Committed {
  int count[N];
  int value[N];
  int bad;
};

static void save(int chunkStart, int chunkSize, const void* data, int bytes, void* user) {
  struct Committed* c = (struct Committed*)user;
  if (chunkStart < 0 || chunkSize < 0 || chunkStart + chunkSize > N || bytes != chunkSize * (int)sizeof(int)) {
    ++c->bad;
    return;
  }
  const int* v = (const int*)data;
  for (int k = 0; k < chunkSize; ++k) {
    ++c->count[chunkStart + k];
    c->value[chunkStart + k] = v[k];
  }
}

static struct Committed committed;
static int buffer[N];

/* One robust loop (`004` Algorithm 1) in the current mode. */
static void run_loop(infoDLS* info, int numProcs) {
  memset(&committed, 0, sizeof committed);
  DLS_Parameters_Setup(MPI_COMM_WORLD, info, numProcs, -1, -1, 1, 0.013716, 0.0605, 0, 1.0, 1.0);
  DLS_Robust(info, 1);
  DLS_SetCommit(info, save, &committed);
  DLS_StartLoop(info, 0, N - 1, FAC);
  while (!DLS_Terminated(info)) {
    int start = 0, size = 0;
    DLS_StartChunk(info, &start, &size);
    capi_work_chunk(size);
    for (int k = 0; k < size; ++k) buffer[k] = 7 * (start + k) + 1;
    DLS_EndChunkData(info, buffer, size * (int)sizeof(int));
  }
  int nIter = 0;
  double workTime = 0.0;
  DLS_EndLoop(info, &nIter, &workTime);
}

enum { LOOPS = 3 };
static struct Committed mcommitted[LOOPS];

static void msave(int loop, int chunkStart, int chunkSize, const void* data, int bytes, void* user) {
  struct Committed* c = (struct Committed*)user;
  if (loop < 0 || loop >= LOOPS) {
    ++c[0].bad;
    return;
  }
  save(chunkStart, chunkSize, data, bytes, &c[loop]);
}

/* Three robust loops in flight together, targeted in turn; loop l's
 * iteration i computes 7 i + 1 + 100000 l. */
static void run_mloops(infoDLS* info, int numProcs) {
  memset(mcommitted, 0, sizeof mcommitted);
  DLS_Parameters_Setup(MPI_COMM_WORLD, info, numProcs, -1, -1, 1, 0.013716, 0.0605, 0, 1.0, 1.0);
  DLS_Robust(info, 1);
  DLS_SetMCommit(info, msave, mcommitted);
  DLS_NumLoops(info, LOOPS);
  int firsts[LOOPS] = {0, 0, 0}, lasts[LOOPS] = {N - 1, N - 1, N - 1}, methods[LOOPS] = {FAC, GSS, TSS};
  DLS_StartMLoops(info, firsts, lasts, methods);
  while (!DLS_MTerminated(info)) {
    for (int l = 0; l < LOOPS; ++l) {
      int start = 0, size = 0;
      DLS_TargetLoop(info, l);
      DLS_StartChunk(info, &start, &size);
      if (size == 0) continue; /* nothing for loop l right now */
      capi_work_chunk(size);
      for (int k = 0; k < size; ++k) buffer[k] = 7 * (start + k) + 1 + 100000 * l;
      DLS_EndChunkData(info, buffer, size * (int)sizeof(int));
    }
  }
  int nIters[LOOPS];
  double workTimes[LOOPS];
  DLS_EndMLoops(info, nIters, workTimes);
}

/* Iterations of loop `l` not committed exactly once with their value. */
static int wrong_commits(const struct Committed* c, int l) {
  int wrong = c->bad;
  for (int i = 0; i < N; ++i) {
    if (c->count[i] != 1 || c->value[i] != 7 * i + 1 + 100000 * l) ++wrong;
  }
  return wrong;
}

/* This survivor's verdict, as JSON in $LB4MPI_VERDICT_DIR/rank-R.json
 * (written to a temporary name, then renamed: a reader sees all or nothing). */
static void write_verdict(int rank, int failed, int committed_ok, int exit_code) {
  const char* dir = getenv("LB4MPI_VERDICT_DIR");
  if (dir == NULL || *dir == '\0') return;
  char path[4096], tmp[4200];
  snprintf(path, sizeof path, "%s/rank-%d.json", dir, rank);
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  FILE* f = fopen(tmp, "w");
  if (f == NULL) {
    fprintf(stderr, "rank %d: cannot write the verdict %s\n", rank, tmp);
    return;
  }
  fprintf(f, "{\"rank\": %d, \"failed_count\": %d, \"committed_ok\": %s, \"exit_code\": %d}\n", rank, failed,
          committed_ok < 0 ? "null" : (committed_ok ? "true" : "false"), exit_code);
  fclose(f);
  rename(tmp, path);
}

/* Ranks are killed during the loop(s): no collective call afterwards. */
static int run_killed(int mode, int rank, int numProcs, int loops) {
  Configure_Chunk_Calculation_Mode(mode);
  capi_us_per_iteration = 10.0; /* ~30 ms of work per loop: each victim reaches its 2nd chunk */
  infoDLS info;
  if (loops == 1) {
    run_loop(&info, numProcs);
  } else {
    run_mloops(&info, numProcs);
  }
  const int failed = DLS_FailedRanks(&info);
  int failures = 0, committed_ok = -1;
  if (failed < 1) {
    fprintf(stderr, "mode %d: rank %d: no rank reported failed, but victims were killed\n", mode, rank);
    failures = 1;
  }
  if (rank == 0) { /* the coordinator holds every commit */
    int wrong = 0;
    if (loops == 1) {
      wrong = wrong_commits(&committed, 0);
    } else {
      for (int l = 0; l < LOOPS; ++l) wrong += wrong_commits(&mcommitted[l], l);
    }
    committed_ok = wrong == 0;
    if (wrong != 0) {
      fprintf(stderr, "mode %d: %d iterations not committed exactly once with their value\n", mode, wrong);
      failures = 1;
    }
    printf("C API, robust mode, %d loop(s), mode %d, %d ranks failed: %s\n", loops, mode, failed,
           failures ? "FAILED" : "ok");
  }
  write_verdict(rank, failed, committed_ok, failures);
  fflush(stdout);
  fflush(stderr);
  _exit(failures); /* MPI_Finalize is collective: not with dead ranks (docs/ROBUST.md) */
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int numProcs = 0, rank = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &numProcs);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  capi_us_per_iteration = 2.0;
  if (argc >= 3 && strcmp(argv[1], "kill") == 0) return run_killed(atoi(argv[2]), rank, numProcs, 1);
  if (argc >= 3 && strcmp(argv[1], "mkill") == 0) return run_killed(atoi(argv[2]), rank, numProcs, LOOPS);
  int failures = 0;
  const int modes[] = {CENTRALIZED, DECENTRALIZED, DECENTRALIZED_RMA};
  const char* names[] = {"CENTRALIZED", "DECENTRALIZED", "DECENTRALIZED_RMA"};
  for (int m = 0; m < 3; ++m) {
    Configure_Chunk_Calculation_Mode(modes[m]);
    infoDLS info;
    run_loop(&info, numProcs);
    if (DLS_FailedRanks(&info) != 0) {
      fprintf(stderr, "%s: rank %d: %d ranks reported failed without a failure\n", names[m], rank,
              DLS_FailedRanks(&info));
      failures = 1;
    }
    /* Commits happen on the coordinator (rank 0): summed over the ranks,
     * every iteration exactly once, with its value. */
    long wrong_value = 0;
    for (int i = 0; i < N; ++i) {
      if (committed.count[i] > 0 && committed.value[i] != 7 * i + 1) ++wrong_value;
    }
    if (capi_exactly_once(committed.count, N, 0, names[m]) != 0) failures = 1;
    long all_wrong = 0;
    int all_bad = 0;
    MPI_Allreduce(&wrong_value, &all_wrong, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&committed.bad, &all_bad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (all_wrong != 0 || all_bad != 0) {
      if (rank == 0) fprintf(stderr, "%s: %ld wrong values, %d malformed commits\n", names[m], all_wrong, all_bad);
      failures = 1;
    }
    DLS_Finalize(&info);
  }
  int any = 0;
  MPI_Allreduce(&failures, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0) printf("C API, robust mode: %s\n", any ? "FAILED" : "ok");
  MPI_Finalize();
  return any;
}
