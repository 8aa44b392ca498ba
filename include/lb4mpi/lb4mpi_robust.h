/** \file
 * \brief The C interface's robust mode (rDLB, `004`): what lb4mpi.h adds to
 * LB4MPI for loops that survive failed ranks. Included by lb4mpi.h, which
 * declares infoDLS; include lb4mpi.h, not this header.
 */
#ifndef LB4MPI_LB4MPI_ROBUST_H
#define LB4MPI_LB4MPI_ROBUST_H

#include "lb4mpi/lb4mpi.h"

#ifdef __cplusplus
extern "C" {
#endif

/** \name Robust mode (rDLB, `004` Algorithm 1; docs/ROBUST.md)
 * For loops started by DLS_StartLoop (not DLS_StartMLoops):
 *
 * \code{.c}
 * DLS_Parameters_Setup(comm, &info, ...);
 * DLS_Robust(&info, 1);                      // or LB4MPI_ROBUST=1
 * DLS_SetCommit(&info, save, &results);      // the coordinator keeps each result once
 * DLS_StartLoop(&info, 0, N - 1, method);
 * while (!DLS_Terminated(&info)) {
 *   DLS_StartChunk(&info, &start, &size);
 *   ... compute into data ...
 *   DLS_EndChunkData(&info, data, bytes);    // `004`'s DLS_endChunk(info, data)
 * }
 * DLS_EndLoop(&info, &n, &t);
 * if (DLS_FailedRanks(&info) > 0) { save results; end the job (docs/ROBUST.md) }
 * \endcode
 *
 * Loops started by DLS_StartMLoops are robust together (docs/ROBUST.md,
 * *Several loops in flight*): DLS_Robust before DLS_StartMLoops, results by
 * DLS_EndChunkData for the chunk of the loop DLS_TargetLoop chose, committed
 * by DLS_SetMCommit's function (which also gets the loop's number); a rank
 * failed in one loop is failed in all.
 *
 * With failed ranks, DLS_EndLoop (DLS_EndMLoops) does not synchronize (the
 * failed ranks cannot take part), and neither may the program: no further
 * loop, no collective call, no DLS_Finalize.
 * @{ */

/** Turns robust mode on or off for the loops started afterwards with this
 * handle. Not collective: call it alike on every rank. Robust mode refuses
 * STATIC and the HIERARCHICAL mode: the loop's start then ends the job with
 * the message. Loops of DLS_StartMLoops are robust together.
 * \param info the handle.
 * \param enable nonzero: on; 0: off. */
LB4MPI_API void DLS_Robust(infoDLS* info, int enable);

/** Receives a committed piece of a chunk and its result (DLS_SetCommit).
 * \param chunkStart the piece's first iteration.
 * \param chunkSize the piece's number of iterations.
 * \param data the bytes given to DLS_EndChunkData for it (none without a
 *   DLS_EndChunkData).
 * \param bytes the number of bytes at `data`.
 * \param user DLS_SetCommit's `user`. */
typedef void (*DLS_CommitFunction)(int chunkStart, int chunkSize, const void* data, int bytes, void* user);

/** Sets the function that receives each chunk's result, for the loops started
 * afterwards. Set it on every rank. It runs once per piece of a chunk: on the
 * coordinator in robust mode and in the CENTRALIZED and DECENTRALIZED modes;
 * on the rank that executed the chunk in DECENTRALIZED_RMA mode without
 * robust mode, and for STATIC.
 * \param info the handle.
 * \param commit the function; NULL: none.
 * \param user passed to every call of `commit`. */
LB4MPI_API void DLS_SetCommit(infoDLS* info, DLS_CommitFunction commit, void* user);

/** Receives a committed piece of a chunk of a loop started by
 * DLS_StartMLoops, and its result (DLS_SetMCommit).
 * \param loop the loop's number (0 .. DLS_NumLoops - 1).
 * \param chunkStart the piece's first iteration.
 * \param chunkSize the piece's number of iterations.
 * \param data the bytes given to DLS_EndChunkData for it.
 * \param bytes the number of bytes at `data`.
 * \param user DLS_SetMCommit's `user`. */
typedef void (*DLS_MCommitFunction)(int loop, int chunkStart, int chunkSize, const void* data, int bytes, void* user);

/** DLS_SetCommit for the loops started afterwards by DLS_StartMLoops: the
 * function also gets the loop's number. Set it on every rank.
 * \param info the handle.
 * \param commit the function; NULL: none.
 * \param user passed to every call of `commit`. */
LB4MPI_API void DLS_SetMCommit(infoDLS* info, DLS_MCommitFunction commit, void* user);

/** Ends the chunk of the last DLS_StartChunk, as DLS_EndChunk, with its
 * result; the bytes travel to where DLS_SetCommit's function runs
 * (DLS_SetMCommit's for loops of DLS_StartMLoops). Without a
 * DLS_EndChunkData the chunk has no result. It ends the job (MPI_Abort)
 * outside DLS_StartLoop ... DLS_EndLoop and DLS_StartMLoops ...
 * DLS_EndMLoops, or with bytes < 0 or a NULL `data` of bytes > 0.
 * \param info the handle.
 * \param data the result's bytes (copied).
 * \param bytes their number, >= 0. */
LB4MPI_API void DLS_EndChunkData(infoDLS* info, const void* data, int bytes);

/** The number of ranks that did not finish the last loop.
 * \param info the handle.
 * \return after DLS_EndLoop, the failed ranks' number (after DLS_EndMLoops,
 *   of the ranks failed in any loop of the set); 0 outside robust mode and
 *   before the first DLS_EndLoop. */
LB4MPI_API int DLS_FailedRanks(infoDLS* info);
/** @} */

#ifdef __cplusplus
}
#endif

#endif /* LB4MPI_LB4MPI_ROBUST_H */
