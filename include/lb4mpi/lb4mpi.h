/** \file
 * \brief The LB4MPI-compatible C interface (`DLS_*`): one loop, several loops
 * in flight, robust mode, DLS4LB's setup calls.
 *
 * It mirrors the C interface of the original LB4MPI and of DLS4LB: `001`
 * Listing 1, `003` Section 2.4 and Listings 2.1 (one loop at a time) and 4.3
 * (several loops in flight). A program written for it compiles against
 * lb4mpi by changing its include line to `#include <lb4mpi/lb4mpi.h>` and
 * linking `-llb4mpi -llb4mpi_techniques` (or `pkg-config --libs lb4mpi`);
 * docs/MIGRATION.md lists the differences (technique numbers, the opaque
 * infoDLS, the default minimum chunk).
 *
 * \code{.c}
 * infoDLS info;
 * DLS_Parameters_Setup(MPI_COMM_WORLD, &info, P, -1, -1, 0, h, sigma, 0, 1.0, 1.0);
 * DLS_StartLoop(&info, 0, N - 1, GSS);
 * while (!DLS_Terminated(&info)) {
 *   DLS_StartChunk(&info, &start, &size);
 *   for (int i = start; i < start + size; ++i) work(i);
 *   DLS_EndChunk(&info);
 * }
 * DLS_EndLoop(&info, &nIter, &workTime);
 * DLS_Finalize(&info);
 * \endcode
 *
 * Iteration bounds are inclusive as in LB4MPI: DLS_StartLoop(info, first,
 * last, method) schedules last - first + 1 iterations.
 *
 * **Errors.** The functions return void, as in LB4MPI, so an error (unknown
 * technique, invalid parameter, ranks that disagree, misuse) ends the job
 * with status 2, never a hang:
 * - The collective calls (DLS_Parameters_Setup, DLS_Setup, DLS_GroupSetup,
 *   DLS_StartLoop, DLS_EndLoop, DLS_StartMLoops, DLS_EndMLoops) first agree
 *   over the communicator on their arguments and on each rank's checks: every
 *   rank prints the same "lb4mpi: ..." line on stderr and exits 2 after
 *   MPI_Finalize (MPI_Abort when the communicator is only a part of the job).
 *   A STATIC loop's agreement comes later (see DLS_EndLoop).
 * - The errors of Configure_Chunk_Calculation_Mode and of DLS_NumLoops(n < 1)
 *   are kept and reported that way by the next of DLS_Parameters_Setup,
 *   DLS_Setup, DLS_GroupSetup, DLS_StartLoop and DLS_StartMLoops.
 * - Misuse only one rank can see (a chunk call outside a loop, a bad
 *   DLS_TargetLoop, a NULL pointer argument, a handle that
 *   DLS_Parameters_Setup did not initialize, a failure of MPI or of the
 *   runtime inside a loop) prints the message on that rank and calls
 *   MPI_Abort(comm, 2).
 */
#ifndef LB4MPI_LB4MPI_H
#define LB4MPI_LB4MPI_H

#include <mpi.h>

#include "lb4mpi/export.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The technique constants, the `method` of DLS_StartLoop and DLS_StartMLoops:
 * the ids of `000` Table 4.1 (so LB4MPI_SCHEDULING values keep their
 * meaning). FAC is LB4MPI's practical factoring (FAC2). DLS4LB's DLS.h
 * numbers FAC = 6 ... AF = 13: a program that passes its own integers instead
 * of these names must shift them (docs/MIGRATION.md). docs/TECHNIQUES.md has
 * each technique's formula and parameters. */
enum {
  STATIC = 0,  /**< static chunking: one chunk of about N/P per rank (`001` Eq. 1) */
  SS = 1,      /**< self-scheduling: chunks of one iteration (Eq. 2) */
  FSC = 2,     /**< fixed size chunking from h_overhead and sigma (Eq. 3) */
  mFSC = 3,    /**< modified fixed size chunking (`003` Appendix B) */
  GSS = 4,     /**< guided self-scheduling (Eq. 4) */
  TSS = 5,     /**< trapezoid self-scheduling (Eq. 6) */
  FAC = 7,     /**< practical factoring, FAC2: batches of P chunks of R/(2P) (Eq. 7) */
  WF = 8,      /**< weighted factoring: FAC2 batches scaled by each rank's weight (`003` §2.2.2.1) */
  AWF = 9,     /**< adaptive weighted factoring: weights updated between time steps (`003` §2.2.2.2) */
  AWF_B = 10,  /**< AWF-B: weights from work time, updated at each batch */
  AWF_C = 11,  /**< AWF-C: weights from work time, updated at each chunk */
  AWF_D = 12,  /**< AWF-D: weights from elapsed time, updated at each batch */
  AWF_E = 13,  /**< AWF-E: weights from elapsed time, updated at each chunk */
  AF = 14,     /**< adaptive factoring from the measured iteration times (`001` Eq. 11) */
  /* lb4mpi's further techniques (no LB4MPI id). */
  LB4MPI_TAP = 100,       /**< taper (`001` Eq. 5; needs mu, sigma, alpha); lb4mpi, no LB4MPI id */
  LB4MPI_FAC_PROB = 101,  /**< probabilistic factoring (`000` Eq. 2.2; needs mu and sigma); lb4mpi, no LB4MPI id */
  LB4MPI_TFSS = 102,      /**< trapezoid factoring self-scheduling (`001` Eq. 8); lb4mpi, no LB4MPI id */
  LB4MPI_FISS = 103,      /**< fixed increase self-scheduling (`001` Eq. 9); lb4mpi, no LB4MPI id */
  LB4MPI_VISS = 104,      /**< variable increase self-scheduling (`001` Eq. 10); lb4mpi, no LB4MPI id */
  LB4MPI_RND = 105,       /**< random chunk sizes (`001` Eq. 12); lb4mpi, no LB4MPI id */
  LB4MPI_PLS = 106,       /**< performance-based loop scheduling (`001` Eq. 13); lb4mpi, no LB4MPI id */
  /** Automatic selection (lb4mpi extension, docs/SELECTION.md): each time
   * step of the loop (DLS_StartLoop with the same method and mode) runs the
   * technique a policy picks from what the earlier steps measured;
   * LB4MPI_AUTO_POLICY and LB4MPI_AUTO_CANDIDATES tune it. */
  LB4MPI_AUTO = 107
};

/** The chunk-calculation modes of Configure_Chunk_Calculation_Mode (`001`),
 * also what LB4MPI_Chunk_Calculation_Mode returns. docs/RUNTIME.md. */
enum {
  CENTRALIZED = 0,       /**< centralized chunk calculation (CCA): a coordinator computes every chunk */
  DECENTRALIZED = 1,     /**< distributed chunk calculation (DCA): each rank computes its own chunks */
  DECENTRALIZED_RMA = 2  /**< DCA over MPI-3 one-sided communication (lb4mpi) */
};
/** lb4mpi extension of the modes (docs/RUNTIME.md). */
enum {
  /** Two-level scheduling, nodes between them and ranks inside a node;
   * LB4MPI_NODE_SCHEDULING, LB4MPI_GLOBAL_MODE and LB4MPI_RANKS_PER_NODE
   * choose its levels. */
  HIERARCHICAL = 3
};

/** The per-rank scheduling handle. The application declares one (`infoDLS
 * iInfo;`) and passes its address; DLS_Parameters_Setup initializes it and
 * DLS_Finalize releases what it holds. It is opaque: the fields of the
 * original struct (myRank, commSize, ...) do not exist. Before
 * DLS_Parameters_Setup it may hold garbage: lb4mpi compares it with the
 * handles it set up, never follows it. */
typedef struct infoDLS {
  void* state; /**< owned by lb4mpi */
} infoDLS;

/** Selects the chunk-calculation mode of the loops started afterwards
 * (DLS_StartLoop / DLS_StartMLoops), on every handle, also on handles set up
 * before the call. When it was never called, the environment variable
 * LB4MPI_MODE (read by DLS_Parameters_Setup) decides, else CENTRALIZED.
 * Not collective.
 * \param mode CENTRALIZED, DECENTRALIZED, DECENTRALIZED_RMA or HIERARCHICAL.
 *   Another value leaves the mode unchanged and is reported (naming the valid
 *   modes) by the next collective call: DLS_Parameters_Setup, DLS_Setup,
 *   DLS_GroupSetup, DLS_StartLoop or DLS_StartMLoops. */
LB4MPI_API void Configure_Chunk_Calculation_Mode(int mode);

/** lb4mpi extension: the mode of the loop(s) last started with a handle.
 * Never ends the job.
 * \param info the handle.
 * \return CENTRALIZED, DECENTRALIZED, DECENTRALIZED_RMA or HIERARCHICAL; -1
 *   when no loop was started with the handle yet, or when `info` is NULL or
 *   not a handle that DLS_Parameters_Setup set up. */
LB4MPI_API int LB4MPI_Chunk_Calculation_Mode(infoDLS* info);

/** Sets up a handle: the 11 arguments of LB4MPI. Collective over `icomm`
 * (the library works on its own duplicate of it). The options start from the
 * environment (the LB4MPI_* variables of docs/OPTIONS.md; LB4MPI_SCHEDULING
 * is not read: the method is DLS_StartLoop's). Setting up a handle again
 * without DLS_Finalize releases what it held first.
 *
 * Errors: a NULL `info` or an MPI_COMM_NULL `icomm` ends the job at once
 * (MPI_Abort). A `numProcs` other than the communicator's size, an `nKNL`
 * outside 0..numProcs, a speed that is not a positive number where it is used,
 * an invalid LB4MPI_* variable, an error kept from
 * Configure_Chunk_Calculation_Mode or DLS_NumLoops, and ranks that pass
 * different values are reported on every rank (exit status 2).
 * The values of h_overhead and sigma are checked by the DLS_StartLoop of a
 * technique that uses them.
 *
 * \param icomm the communicator whose ranks run the loops.
 * \param info the handle to initialize.
 * \param numProcs the size of `icomm`, on every rank.
 * \param requestWhen a worker asks for its next chunk when this many
 *   iterations of its chunk are left; < 0: LB4MPI_REQUEST_WHEN or automatic
 *   (15 % of the chunk).
 * \param breakAfter the coordinator checks for requests after this many of
 *   its own iterations; < 0: LB4MPI_BREAK_AFTER or automatic.
 * \param minChunk the smallest chunk (the last one may be smaller); <= 0:
 *   LB4MPI_MIN_CHUNK or 1.
 * \param h_overhead FSC's overhead of one scheduling step [s] (replaces
 *   LB4MPI_H).
 * \param sigma the standard deviation of an iteration's time [s], for FSC,
 *   LB4MPI_TAP and LB4MPI_FAC_PROB (replaces LB4MPI_SIGMA).
 * \param nKNL 0: equal weights; 1..numProcs: the last nKNL ranks get the
 *   relative speed KNL_speed and ranks 0 .. numProcs-nKNL-1 Xeon_speed, as
 *   WF's weights (as LB4MPI).
 * \param Xeon_speed the weight of the first numProcs-nKNL ranks (nKNL > 0).
 * \param KNL_speed the weight of the last nKNL ranks (nKNL > 0). */
LB4MPI_API void DLS_Parameters_Setup(MPI_Comm icomm, infoDLS* info, int numProcs, int requestWhen, int breakAfter,
                                     int minChunk, double h_overhead, double sigma, int nKNL, double Xeon_speed,
                                     double KNL_speed);

/** DLS4LB's setup: DLS_Parameters_Setup with DLS4LB's defaults (numProcs =
 * the communicator's size, requestWhen, breakAfter and minChunk automatic,
 * FSC's h_overhead 0.0002 s and sigma 0.0001 s unless LB4MPI_H /
 * LB4MPI_SIGMA are set, equal weights). Collective over `comm`; errors as
 * DLS_Parameters_Setup's (docs/MIGRATION.md, "DLS4LB's setup calls").
 * \param comm the communicator whose ranks run the loops; MPI_COMM_NULL ends
 *   the job (MPI_Abort).
 * \param info the handle to initialize. */
LB4MPI_API void DLS_Setup(MPI_Comm comm, infoDLS* info);

/** The name of a technique constant, as DLS4LB's get_DLS_ShortName. Never
 * ends the job.
 * \param method a technique constant of this header.
 * \return the technique's name (e.g. "GSS", "FAC2" for FAC, "AWF-B",
 *   "auto" for LB4MPI_AUTO), "unknown" for another number: static storage,
 *   never freed; do not modify it. */
LB4MPI_API char* get_DLS_ShortName(int method);

/** DLS4LB's two-level ("Type II", nested) loops: sets up a handle for the
 * outer loop and one for the inner loops. Collective over `world`.
 *
 * The ranks are grouped by node (MPI_Get_processor_name;
 * LB4MPI_RANKS_PER_NODE=k > 0 makes groups of k consecutive ranks instead, to
 * emulate nodes on one machine); the coordinator forms a group of its own.
 * `LS` schedules the inner loops inside each group. `GS` schedules the outer
 * loop among the coordinator and the groups' foremen (rank 0 of each group);
 * the foreman relays each outer chunk to its group, so every rank of a group
 * calls the outer loop's functions (DLS_StartLoop ... DLS_EndLoop on GS, not
 * DLS_StartMLoops, which ends the job) and gets the same chunks. DLS_EndLoop
 * on GS returns, on every rank, the outer iterations its group ran. Errors of
 * the outer loop's collective calls are agreed over `world` (the message on
 * every rank). DLS_Finalize releases each handle (GS and LS).
 *
 * Errors: MPI_COMM_NULL or a NULL `GS` or `LS` ends the job at once
 * (MPI_Abort); a coordinator outside 0..size-1, an invalid
 * LB4MPI_RANKS_PER_NODE, an error kept from Configure_Chunk_Calculation_Mode
 * or DLS_NumLoops, and ranks that disagree are reported on every rank (exit
 * status 2).
 * \param world the communicator of all ranks.
 * \param coordinator the rank of `world` that schedules the outer loop.
 * \param GS the handle of the outer loop, to initialize.
 * \param LS the handle of the inner loops (inside this rank's group), to
 *   initialize. */
LB4MPI_API void DLS_GroupSetup(MPI_Comm world, int coordinator, infoDLS* GS, infoDLS* LS);

/** Starts a loop: one loop at a time on a handle. Collective over the
 * handle's communicator.
 *
 * The handle keeps the loop between DLS_EndLoop and the next DLS_StartLoop:
 * with the same method and mode, the next call is the loop's next time step,
 * and adaptive techniques (AWF, AWF-B..E) keep what they learned. The mode is
 * Configure_Chunk_Calculation_Mode's, else LB4MPI_MODE's, else CENTRALIZED.
 *
 * Errors, reported on every rank (exit status 2): an unknown method (the
 * message lists the valid ones), lastIter < firstIter - 1, more iterations
 * than an int holds, a parameter the technique refuses, a loop of this
 * handle still in flight, an error kept from Configure_Chunk_Calculation_Mode
 * or DLS_NumLoops, ranks that pass different arguments. Options the runtime
 * refuses at the start (e.g. robust mode with STATIC) end the job with the
 * message (MPI_Abort). A handle that DLS_Parameters_Setup did not initialize
 * ends the job at once, as for every function below that takes one.
 * \param info the handle.
 * \param firstIter the first iteration.
 * \param lastIter the last iteration (inclusive); firstIter - 1: an empty
 *   loop.
 * \param method a technique constant (STATIC ... AF, LB4MPI_TAP ...
 *   LB4MPI_PLS, LB4MPI_AUTO). */
LB4MPI_API void DLS_StartLoop(infoDLS* info, int firstIter, int lastIter, int method);

/** Whether this rank's part of the loop is over. It may fetch the next chunk
 * (which DLS_StartChunk then returns). Outside DLS_StartLoop ... DLS_EndLoop
 * it ends the job (MPI_Abort).
 * \param info the handle.
 * \return 1 when the loop has no chunk left for this rank, else 0. */
LB4MPI_API int DLS_Terminated(infoDLS* info);

/** The next chunk of this rank: of the loop started by DLS_StartLoop, or of
 * the loop DLS_TargetLoop chose among those started by DLS_StartMLoops.
 * Outside a loop, or with a NULL pointer, it ends the job (MPI_Abort).
 * \param info the handle.
 * \param[out] chunkStart the chunk's first iteration.
 * \param[out] chunkSize the chunk's number of iterations; 0 when there is
 *   none: after the end of a DLS_StartLoop loop (chunkStart is then lastIter
 *   + 1), or for now for the targeted loop of DLS_StartMLoops (chunkStart 0;
 *   move on to another loop). */
LB4MPI_API void DLS_StartChunk(infoDLS* info, int* chunkStart, int* chunkSize);

/** Ends the chunk of the last DLS_StartChunk (its time counts as work time).
 * Outside a loop it ends the job (MPI_Abort). In C, DLS_EndChunk(info,
 * &nIter, &workTime) compiles too: see LB4MPI_EndChunk3.
 * \param info the handle. */
LB4MPI_API void DLS_EndChunk(infoDLS* info);

/** Ends the loop of DLS_StartLoop. Collective over the handle's
 * communicator; it synchronizes the ranks (not when ranks failed in robust
 * mode: see DLS_Robust).
 *
 * A STATIC loop (not robust, not hierarchical, not traced) does not
 * synchronize: each rank's block is its own, so DLS_StartLoop and
 * DLS_EndLoop return without waiting for the other ranks (like OpenMP's
 * nowait). Its checks still hold: they are voted without waiting, 16 loops
 * at a time, and concluded by the handle's next other loop, DLS_StartMLoops
 * or DLS_Finalize at the latest, with the same message on every rank
 * (docs/RUNTIME.md, "STATIC without waiting").
 *
 * Errors: without a loop in flight it ends the job (MPI_Abort). A rank that
 * calls it before DLS_Terminated returned 1 still takes part in the loop (the
 * others do not hang); then every rank reports how many iterations handed to
 * it were not executed (exit status 2). A trace file that cannot be written
 * is reported on every rank, and the figures are still returned.
 * \param info the handle.
 * \param[out] nIter this rank's number of executed iterations (may be NULL).
 * \param[out] workTime this rank's time in its chunks [s] (may be NULL). */
LB4MPI_API void DLS_EndLoop(infoDLS* info, int* nIter, double* workTime);

/** The 3-argument DLS_EndChunk of `003` Listing 2.1,
 * DLS_EndChunk(&info, &nIter, &workTime): it compiles too (in C through a
 * macro DLS_EndChunk of 1 or 3 arguments, in C++ through an overload) and
 * does what DLS_EndChunk(&info) does. Define LB4MPI_NO_ENDCHUNK_MACRO to keep
 * DLS_EndChunk a plain function in C.
 * \param info the handle.
 * \param nIter left unchanged (DLS_EndLoop sets it).
 * \param workTime left unchanged (DLS_EndLoop sets it). */
LB4MPI_API void LB4MPI_EndChunk3(infoDLS* info, int* nIter, double* workTime);

/** \name Several loops in flight (`003` §4.1, Listing 4.3)
 *
 * \code{.c}
 * DLS_NumLoops(&info, n);                 // before DLS_Parameters_Setup
 * DLS_StartMLoops(&info, firsts, lasts, methods);
 * while (!DLS_MTerminated(&info)) {
 *   DLS_TargetLoop(&info, l);             // for each loop l
 *   DLS_StartChunk(&info, &start, &size); // size 0: nothing for loop l right now
 *   ... DLS_EndChunk(&info);
 * }
 * DLS_EndMLoops(&info, nIters, workTimes); // one synchronization for all loops
 * \endcode
 *
 * A rank with no chunk of the targeted loop gets size 0 at once and moves on
 * (no idle probing). Bounds are inclusive. The handle keeps the loops between
 * DLS_EndMLoops and the next DLS_StartMLoops with the same methods and mode
 * (their next time step). Robust mode does not apply to them.
 * @{ */

/** Sets the number of loops of DLS_StartMLoops. Not collective. Before
 * DLS_Parameters_Setup (the handle is not initialized yet) it records `n` for
 * the next setup on this rank; after it, `n` applies to the handle's next
 * DLS_StartMLoops. Errors: n < 1 is reported by the next collective call
 * (see Configure_Chunk_Calculation_Mode); a call while the handle's loops are
 * in flight ends the job (MPI_Abort).
 * \param info the handle (set up or not yet).
 * \param n the number of loops, >= 1. */
LB4MPI_API void DLS_NumLoops(infoDLS* info, int n);

/** Starts the handle's loops (DLS_NumLoops of them, 1 by default), all in
 * flight together. Collective over the handle's communicator.
 *
 * Errors, reported on every rank (exit status 2): a NULL array, any loop's
 * error as in DLS_StartLoop (the message names the loop), loops of this
 * handle still in flight, an error kept from Configure_Chunk_Calculation_Mode
 * or DLS_NumLoops, ranks that disagree. The outer handle of DLS_GroupSetup
 * ends the job (MPI_Abort); so does robust mode (it runs one loop at a time).
 * \param info the handle.
 * \param firstIters the first iteration of each loop.
 * \param lastIters the last iteration (inclusive) of each loop.
 * \param imeths the technique constant of each loop. */
LB4MPI_API void DLS_StartMLoops(infoDLS* info, int* firstIters, int* lastIters, int* imeths);

/** Whether every loop of DLS_StartMLoops is over for this rank. During a
 * loop of DLS_StartLoop it is DLS_Terminated (as LB4MPI); outside both it ends
 * the job (MPI_Abort).
 * \param info the handle.
 * \return 1 when no loop has a chunk left, else 0. */
LB4MPI_API int DLS_MTerminated(infoDLS* info);

/** Chooses the loop that the next DLS_StartChunk and DLS_EndChunk refer to.
 * Not collective. A loop outside 0 .. n-1 ends the job (MPI_Abort).
 * \param info the handle.
 * \param loop the loop's index, 0 .. n-1 (n of DLS_NumLoops). */
LB4MPI_API void DLS_TargetLoop(infoDLS* info, int loop);

/** Ends the loops of DLS_StartMLoops: one synchronization for all of them.
 * Collective over the handle's communicator. Errors: without loops in flight
 * it ends the job (MPI_Abort); a rank that calls it before DLS_MTerminated
 * returned 1 makes every rank report the iterations it did not execute (exit
 * status 2).
 * \param info the handle.
 * \param[out] niters this rank's executed iterations, one entry per loop
 *   (may be NULL).
 * \param[out] worktime this rank's time in each loop's chunks [s], one entry
 *   per loop (may be NULL). */
LB4MPI_API void DLS_EndMLoops(infoDLS* info, int* niters, double* worktime);
/** @} */

#include "lb4mpi/lb4mpi_robust.h" /* DLS_Robust, DLS_SetCommit, DLS_EndChunkData, ... */

/** Releases what the handle holds (the library's communicator and, in
 * DECENTRALIZED_RMA mode, the loop's window) and clears it. Collective over
 * the handle's communicator. A NULL handle, or one not set up or already
 * released, is left as it is.
 * \param info the handle. */
LB4MPI_API void DLS_Finalize(infoDLS* info);

#ifdef __cplusplus
}

/** The 3-argument form of `003` Listing 2.1 in C++: LB4MPI_EndChunk3.
 * \param info the handle.
 * \param nIter left unchanged (DLS_EndLoop sets it).
 * \param workTime left unchanged (DLS_EndLoop sets it). */
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
