/* Robust mode through the C API (`004` Algorithm 1): DLS_Robust,
 * DLS_SetCommit, DLS_EndChunkData, DLS_FailedRanks. The last rank is slowed
 * (LB4MPI_SLOW_RANKS, set by the test) so that chunks are handed out again;
 * every iteration's result must reach the commit function exactly once,
 * with the bytes its chunk computed, in the centralized and distributed
 * modes. (Killed ranks: tests/robust/ with the apps.) */
#include <string.h>

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

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int numProcs = 0, rank = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &numProcs);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  static struct Committed committed;
  int failures = 0;
  const int modes[] = {CENTRALIZED, DECENTRALIZED};
  const char* names[] = {"CENTRALIZED", "DECENTRALIZED"};
  int buffer[N];
  capi_us_per_iteration = 2.0;
  for (int m = 0; m < 2; ++m) {
    memset(&committed, 0, sizeof committed);
    Configure_Chunk_Calculation_Mode(modes[m]);
    infoDLS info;
    DLS_Parameters_Setup(MPI_COMM_WORLD, &info, numProcs, -1, -1, 1, 0.013716, 0.0605, 0, 1.0, 1.0);
    DLS_Robust(&info, 1);
    DLS_SetCommit(&info, save, &committed);
    DLS_StartLoop(&info, 0, N - 1, FAC);
    while (!DLS_Terminated(&info)) {
      int start = 0, size = 0;
      DLS_StartChunk(&info, &start, &size);
      capi_work_chunk(size);
      for (int k = 0; k < size; ++k) buffer[k] = 7 * (start + k) + 1;
      DLS_EndChunkData(&info, buffer, size * (int)sizeof(int));
    }
    int nIter = 0;
    double workTime = 0.0;
    DLS_EndLoop(&info, &nIter, &workTime);
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
