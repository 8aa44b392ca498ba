/* lb4mpi — the LB4MPI-compatible C interface.
 *
 * A program written for the original LB4MPI C API (`001` Listing 1, `003`
 * Listings 2.1 and 4.3) compiles against lb4mpi by changing its include line
 * to `#include <lb4mpi/lb4mpi.h>` and linking `-llb4mpi -llb4mpi_techniques`
 * (or `pkg-config --libs lb4mpi`). See docs/MIGRATION.md.
 *
 * Iteration bounds are inclusive as in LB4MPI: DLS_StartLoop(info, first,
 * last, method) schedules last - first + 1 iterations.
 *
 * Errors (unknown technique, invalid parameter, inconsistent ranks, MPI
 * failures) are printed on every rank as "lb4mpi: ..." on stderr; then every
 * rank finalizes MPI and exits with status 2 — the functions return void, as
 * in LB4MPI, and no rank is left waiting for another. */
#ifndef LB4MPI_LB4MPI_H
#define LB4MPI_LB4MPI_H

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Technique constants: the ids of `000` Table 4.1 (so LB4MPI_SCHEDULING
 * values keep their meaning). FAC is LB4MPI's practical factoring (FAC2). */
enum {
  STATIC = 0,
  SS = 1,
  FSC = 2,
  mFSC = 3,
  GSS = 4,
  TSS = 5,
  FAC = 7,
  WF = 8,
  AWF = 9,
  AWF_B = 10,
  AWF_C = 11,
  AWF_D = 12,
  AWF_E = 13,
  AF = 14,
  /* lb4mpi's further techniques (no LB4MPI id). */
  LB4MPI_TAP = 100,
  LB4MPI_FAC_PROB = 101, /* probabilistic factoring (needs mu and sigma) */
  LB4MPI_TFSS = 102,
  LB4MPI_FISS = 103,
  LB4MPI_VISS = 104,
  LB4MPI_RND = 105,
  LB4MPI_PLS = 106
};

/* Chunk-calculation modes for Configure_Chunk_Calculation_Mode (`001`). */
enum { CENTRALIZED = 0, DECENTRALIZED = 1, DECENTRALIZED_RMA = 2 };

/* The per-rank scheduling handle. The application declares one (`infoDLS
 * iInfo;`) and passes its address; DLS_Parameters_Setup initializes it and
 * DLS_Finalize releases what it holds. */
typedef struct infoDLS {
  void* state; /* owned by lb4mpi */
} infoDLS;

/* Selects centralized (CCA) or distributed (DCA) chunk calculation for the
 * loops set up afterwards. */
void Configure_Chunk_Calculation_Mode(int mode);

/* numProcs must equal the size of icomm. requestWhen / breakAfter < 0 select
 * the automatic values; minChunk <= 0 selects 1. h_overhead and sigma feed
 * FSC. nKNL > 0 gives the first nKNL ranks the relative speed KNL_speed and
 * the others Xeon_speed as WF weights. */
void DLS_Parameters_Setup(MPI_Comm icomm, infoDLS* info, int numProcs, int requestWhen, int breakAfter,
                          int minChunk, double h_overhead, double sigma, int nKNL, double Xeon_speed,
                          double KNL_speed);

/* One loop at a time. */
void DLS_StartLoop(infoDLS* info, int firstIter, int lastIter, int method);
int DLS_Terminated(infoDLS* info);
void DLS_StartChunk(infoDLS* info, int* chunkStart, int* chunkSize);
void DLS_EndChunk(infoDLS* info);
void DLS_EndLoop(infoDLS* info, int* nIter, double* workTime);

/* Several loops in flight at once (`003` §4.1, Listing 4.3):
 *   DLS_NumLoops(&info, n);                 before DLS_Parameters_Setup
 *   DLS_StartMLoops(&info, firsts, lasts, methods);
 *   while (!DLS_MTerminated(&info)) {
 *     DLS_TargetLoop(&info, l);             for each loop l
 *     DLS_StartChunk(&info, &start, &size); size 0: nothing for loop l right now
 *     ... DLS_EndChunk(&info);
 *   }
 *   DLS_EndMLoops(&info, nIters, workTimes); one synchronization for all loops
 * A rank with no chunk of the targeted loop gets size 0 at once and moves on
 * (no idle probing). Bounds are inclusive; nIters and workTimes have one
 * entry per loop. DLS_NumLoops records n for the next DLS_Parameters_Setup
 * on this rank (the handle is not initialized before it). */
void DLS_NumLoops(infoDLS* info, int n);
void DLS_StartMLoops(infoDLS* info, int* firstIters, int* lastIters, int* imeths);
int DLS_MTerminated(infoDLS* info);
void DLS_TargetLoop(infoDLS* info, int loop);
void DLS_EndMLoops(infoDLS* info, int* niters, double* worktime);

void DLS_Finalize(infoDLS* info);

#ifdef __cplusplus
}
#endif

#endif /* LB4MPI_LB4MPI_H */
