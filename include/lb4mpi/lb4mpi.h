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
 * Errors (unknown technique, invalid parameter, ranks that disagree) end
 * the job with status 2, never a hang: the functions return void, as in
 * LB4MPI. The collective calls (DLS_Parameters_Setup, DLS_StartLoop,
 * DLS_EndLoop, DLS_StartMLoops, DLS_EndMLoops) agree over the communicator
 * first, so every rank prints the same "lb4mpi: ..." line on stderr and
 * exits 2 after MPI_Finalize (MPI_Abort when the communicator is only a part
 * of the job). Errors of Configure_Chunk_Calculation_Mode and DLS_NumLoops
 * are reported that way by the next collective call. Misuse only one rank
 * can see (a chunk call outside a loop, a bad DLS_TargetLoop, an MPI
 * failure inside a loop) prints the message there and calls
 * MPI_Abort(comm, 2). */
#ifndef LB4MPI_LB4MPI_H
#define LB4MPI_LB4MPI_H

#include <mpi.h>

#include "lb4mpi/export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Technique constants: the ids of `000` Table 4.1 (so LB4MPI_SCHEDULING
 * values keep their meaning). FAC is LB4MPI's practical factoring (FAC2).
 * DLS4LB's DLS.h numbers FAC = 6 ... AF = 13: a program that passes its own
 * integers instead of these names must shift them (see docs/MIGRATION.md). */
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
  LB4MPI_PLS = 106,
  /* Automatic selection (lb4mpi extension, docs/SELECTION.md): each time step
   * of the loop (DLS_StartLoop with the same method and mode) runs the
   * technique a policy picks from what the earlier steps measured;
   * LB4MPI_AUTO_POLICY and LB4MPI_AUTO_CANDIDATES tune it. */
  LB4MPI_AUTO = 107
};

/* Chunk-calculation modes for Configure_Chunk_Calculation_Mode (`001`). */
enum { CENTRALIZED = 0, DECENTRALIZED = 1, DECENTRALIZED_RMA = 2 };
/* lb4mpi extension: two-level scheduling, nodes between them and ranks
 * inside a node (docs/RUNTIME.md; LB4MPI_NODE_SCHEDULING, LB4MPI_GLOBAL_MODE,
 * LB4MPI_RANKS_PER_NODE choose its levels). */
enum { HIERARCHICAL = 3 };

/** The per-rank scheduling handle. The application declares one (`infoDLS
 * iInfo;`) and passes its address; DLS_Parameters_Setup initializes it and
 * DLS_Finalize releases what it holds. It is opaque: the fields of the
 * original struct (myRank, commSize, ...) do not exist. */
typedef struct infoDLS {
  void* state; /**< owned by lb4mpi */
} infoDLS;

/* Selects centralized (CCA) or distributed (DCA) chunk calculation for the
 * loops started afterwards (DLS_StartLoop / DLS_StartMLoops), on every
 * handle. When it was never called, the environment variable LB4MPI_MODE
 * (read by DLS_Parameters_Setup) decides, else CENTRALIZED. An invalid mode
 * is reported by the next collective call. */
LB4MPI_API void Configure_Chunk_Calculation_Mode(int mode);

/* lb4mpi extension: the mode (CENTRALIZED, DECENTRALIZED or
 * DECENTRALIZED_RMA) of the loop(s) last started with this handle, -1 when
 * none was started yet. */
LB4MPI_API int LB4MPI_Chunk_Calculation_Mode(infoDLS* info);

/* Collective over icomm; numProcs must equal its size on every rank.
 * requestWhen / breakAfter < 0 select LB4MPI_REQUEST_WHEN / LB4MPI_BREAK_AFTER
 * or the automatic values; minChunk <= 0 selects LB4MPI_MIN_CHUNK or 1.
 * h_overhead and sigma feed FSC. nKNL in 0..numProcs: when > 0, the last nKNL
 * ranks get the relative speed KNL_speed and ranks 0 .. numProcs-nKNL-1
 * Xeon_speed, as WF weights (as LB4MPI). */
LB4MPI_API void DLS_Parameters_Setup(MPI_Comm icomm, infoDLS* info, int numProcs, int requestWhen, int breakAfter,
                                     int minChunk, double h_overhead, double sigma, int nKNL, double Xeon_speed,
                                     double KNL_speed);

/* DLS4LB's setup calls (docs/MIGRATION.md, "DLS4LB's setup calls").
 *
 * DLS_Setup(comm, &info): DLS_Parameters_Setup with DLS4LB's defaults
 * (numProcs = the communicator's size, requestWhen, breakAfter and minChunk
 * automatic, FSC's h_overhead 0.0002 s and sigma 0.0001 s unless LB4MPI_H /
 * LB4MPI_SIGMA are set, equal weights). Collective over comm.
 *
 * get_DLS_ShortName(method): the technique's name for a method of this
 * header (e.g. "GSS", "FAC2" for FAC, "auto"), "unknown" for another number;
 * static storage, never freed.
 *
 * DLS_GroupSetup(world, coordinator, &GS, &LS): DLS4LB's two-level ("Type
 * II") loops. Collective over world. The ranks are grouped by node
 * (MPI_Get_processor_name; LB4MPI_RANKS_PER_NODE=k > 0 makes groups of k
 * consecutive ranks instead, to emulate nodes on one machine); the
 * coordinator forms a group of its own. LS schedules the inner loops inside
 * each group. GS schedules the outer loop among the coordinator and the
 * groups' foremen (rank 0 of each group); the foreman relays each outer
 * chunk to its group, so every rank of a group calls the outer loop's
 * functions (DLS_StartLoop ... DLS_EndLoop on GS) and gets the same chunks.
 * DLS_EndLoop on GS returns, on every rank, the outer iterations its group
 * ran. Errors of the outer loop's calls are agreed over world (the message
 * on every rank). DLS_Finalize releases each handle (GS and LS). */
LB4MPI_API void DLS_Setup(MPI_Comm comm, infoDLS* info);
LB4MPI_API char* get_DLS_ShortName(int method);
LB4MPI_API void DLS_GroupSetup(MPI_Comm world, int coordinator, infoDLS* GS, infoDLS* LS);

/* One loop at a time. DLS_StartLoop and DLS_EndLoop are collective. The
 * handle keeps the loop between DLS_EndLoop and the next DLS_StartLoop: with
 * the same method and mode, the next call is the loop's next time step, and
 * adaptive techniques (AWF, AWF-B..E) keep what they learned. lastIter =
 * firstIter - 1 is an empty loop; lastIter < firstIter - 1 is an error. */
LB4MPI_API void DLS_StartLoop(infoDLS* info, int firstIter, int lastIter, int method);
LB4MPI_API int DLS_Terminated(infoDLS* info);
LB4MPI_API void DLS_StartChunk(infoDLS* info, int* chunkStart, int* chunkSize);
LB4MPI_API void DLS_EndChunk(infoDLS* info);
LB4MPI_API void DLS_EndLoop(infoDLS* info, int* nIter, double* workTime);

/* `003` Listing 2.1 calls DLS_EndChunk(&info, &nIter, &workTime). That form
 * compiles too (in C through the macro below, in C++ through an overload) and
 * does what DLS_EndChunk(&info) does; nIter and workTime are left unchanged
 * (DLS_EndLoop sets them). Define LB4MPI_NO_ENDCHUNK_MACRO to keep
 * DLS_EndChunk a plain function in C. */
LB4MPI_API void LB4MPI_EndChunk3(infoDLS* info, int* nIter, double* workTime);

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
 * entry per loop. DLS_NumLoops before DLS_Parameters_Setup records n for
 * the next setup on this rank (the handle is not initialized before it);
 * after it, n applies to the handle's next DLS_StartMLoops. The handle keeps
 * the loops between DLS_EndMLoops and the next DLS_StartMLoops with the same
 * methods and mode (their next time step). */
LB4MPI_API void DLS_NumLoops(infoDLS* info, int n);
LB4MPI_API void DLS_StartMLoops(infoDLS* info, int* firstIters, int* lastIters, int* imeths);
LB4MPI_API int DLS_MTerminated(infoDLS* info);
LB4MPI_API void DLS_TargetLoop(infoDLS* info, int loop);
LB4MPI_API void DLS_EndMLoops(infoDLS* info, int* niters, double* worktime);

/* Robust mode (rDLB, `004` Algorithm 1; docs/ROBUST.md), for loops started
 * by DLS_StartLoop (not DLS_StartMLoops):
 *   DLS_Parameters_Setup(comm, &info, ...);
 *   DLS_Robust(&info, 1);                      or LB4MPI_ROBUST=1
 *   DLS_SetCommit(&info, save, &results);      the coordinator keeps each result once
 *   DLS_StartLoop(&info, 0, N - 1, method);
 *   while (!DLS_Terminated(&info)) {
 *     DLS_StartChunk(&info, &start, &size);
 *     ... compute into data ...
 *     DLS_EndChunkData(&info, data, bytes);    `004`'s DLS_endChunk(info, data)
 *   }
 *   DLS_EndLoop(&info, &n, &t);
 *   if (DLS_FailedRanks(&info) > 0) { save results; end the job (docs/ROBUST.md) }
 * DLS_Robust applies to the loops started afterwards; STATIC is refused
 * with it. Loops started by DLS_StartMLoops are robust together (a failed
 * rank is failed for each): their results go with DLS_EndChunkData too, to
 * the function of DLS_SetMCommit, which also gets the loop's number, and
 * DLS_FailedRanks after DLS_EndMLoops counts the ranks failed in any of
 * them. The commit
 * function runs on the coordinator (the rank executing the chunk in
 * DECENTRALIZED_RMA mode and for STATIC), once per piece of a chunk: its
 * start and size, the bytes given to DLS_EndChunkData, and `user`. Without a
 * DLS_EndChunkData the chunk has no result. DLS_FailedRanks: the number of
 * ranks that did not finish the last loop; after DLS_EndLoop, 0 outside
 * robust mode. With failed ranks, DLS_EndLoop (DLS_EndMLoops) does not synchronize (the
 * failed ranks cannot take part), and neither may the program: no further
 * loop, no collective call, no DLS_Finalize. */
LB4MPI_API void DLS_Robust(infoDLS* info, int enable);
typedef void (*DLS_CommitFunction)(int chunkStart, int chunkSize, const void* data, int bytes, void* user);
LB4MPI_API void DLS_SetCommit(infoDLS* info, DLS_CommitFunction commit, void* user);
typedef void (*DLS_MCommitFunction)(int loop, int chunkStart, int chunkSize, const void* data, int bytes, void* user);
LB4MPI_API void DLS_SetMCommit(infoDLS* info, DLS_MCommitFunction commit, void* user);
LB4MPI_API void DLS_EndChunkData(infoDLS* info, const void* data, int bytes);
LB4MPI_API int DLS_FailedRanks(infoDLS* info);

/* Collective: releases what the handle holds (the library's communicator
 * and, in DECENTRALIZED_RMA mode, the loop's window). */
LB4MPI_API void DLS_Finalize(infoDLS* info);

#ifdef __cplusplus
}

/* The 3-argument form of `003` Listing 2.1 (see LB4MPI_EndChunk3). */
inline void DLS_EndChunk(infoDLS* info, int* nIter, double* workTime) {
  LB4MPI_EndChunk3(info, nIter, workTime);
}
#elif !defined(LB4MPI_NO_ENDCHUNK_MACRO)
/* DLS_EndChunk(info) or DLS_EndChunk(info, &nIter, &workTime); two arguments
 * call DLS_EndChunk_takes_1_or_3_arguments, which is no function: the
 * compiler's error names it. */
extern struct lb4mpi_no_function_ DLS_EndChunk_takes_1_or_3_arguments;
#define LB4MPI_ENDCHUNK_PICK_(a1, a2, a3, name, ...) name
#define DLS_EndChunk(...)                                                   \
  LB4MPI_ENDCHUNK_PICK_(__VA_ARGS__, LB4MPI_EndChunk3,                      \
                        DLS_EndChunk_takes_1_or_3_arguments, DLS_EndChunk, \
                        unused_)(__VA_ARGS__)
#endif

#endif /* LB4MPI_LB4MPI_H */
