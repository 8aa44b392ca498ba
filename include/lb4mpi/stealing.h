/** \file
 * \brief Owned loops from C: loops over distributed data, balanced by work
 * stealing (docs/STEALING.md; the C++ API is lb4mpi/stealing.hpp).
 *
 * It mirrors the work stealing of LB4MPI over distributed data (`000`
 * §4.1–4.2: coordinator-relayed stealing; its data kinds §4.1.5–4.1.6); the
 * decentralized balancers of `002` (A2WS) run the same loops
 * (LB4MPI_BALANCER).
 *
 * Every rank owns the iterations [first, last) and one item of data per
 * iteration, described by an LB4MPI_Items: contiguous items of any MPI
 * datatype (`000` §4.1.5.1, LB4MPI_Items_array), x-slices of a cube moved as
 * MPI sub-arrays (§4.1.5.2, LB4MPI_Items_cube), or objects moved with your
 * serialize / deserialize callbacks (§4.1.6, LB4MPI_Items_serialized). The
 * body gets the chunk's first global index, its iteration count and views of
 * its items and results, wherever it runs; results come back into the
 * owner's result storage. The options come from the environment
 * (LB4MPI_BALANCER, LB4MPI_STEAL_RATIO, LB4MPI_WS_SCHEDULING, LB4MPI_LAWS,
 * LB4MPI_nLAWS, ...: docs/OPTIONS.md).
 *
 * \code{.c}
 * LB4MPI_Items* in = LB4MPI_Items_array(work, last - first, MPI_LONG, 1);
 * LB4MPI_Items* out = LB4MPI_Items_array(result, last - first, MPI_DOUBLE, 1);
 * LB4MPI_StealSummary s;
 * if (LB4MPI_Owned_for(MPI_COMM_WORLD, first, last, in, out, body, NULL, &s) != 0)
 *   fprintf(stderr, "%s\n", LB4MPI_Owned_error());   // the same on every rank
 * LB4MPI_Items_free(in); LB4MPI_Items_free(out);
 * \endcode
 *
 * **Errors** are returned, not fatal: LB4MPI_Owned_for returns nonzero and
 * LB4MPI_Owned_error() says what (nothing is printed, nothing exits). The
 * LB4MPI_Items_* constructors do not check their arguments; LB4MPI_Owned_for
 * does, on every rank, before any iteration runs.
 */
#ifndef LB4MPI_STEALING_H
#define LB4MPI_STEALING_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "lb4mpi/export.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A rank's items (one per iteration it owns), or its result storage:
 * opaque, made by LB4MPI_Items_array, LB4MPI_Items_cube or
 * LB4MPI_Items_serialized, released by LB4MPI_Items_free. */
typedef struct LB4MPI_Items LB4MPI_Items;

/** Contiguous items (`000` §4.1.5.1): item i is the `per_item` elements
 * from `base` + i * per_item * (the extent of `element`). Input or results.
 * The arguments are checked by LB4MPI_Owned_for (a datatype, per_item >= 1,
 * items >= 0, a `base` when items > 0, items = the owned iterations).
 * \param base the first item (not copied: it must outlive the loop).
 * \param items the number of items, one per owned iteration.
 * \param element the MPI datatype of one element.
 * \param per_item the number of elements of one item.
 * \return the description; release it with LB4MPI_Items_free. */
LB4MPI_API LB4MPI_Items* LB4MPI_Items_array(void* base, int64_t items, MPI_Datatype element, int per_item);

/** A cube (`000` §4.1.5.2): a C-order 3-D array of dims[0] x dims[1] x
 * dims[2] elements of `element` at `base`, of which the box [lo, lo + size)
 * is the rank's: item i is the x-slice lo[0] + i (size[0] items, one per
 * owned iteration). Slices travel as MPI sub-arrays. Input or results. The
 * arguments are checked by LB4MPI_Owned_for.
 * \param base the array (not copied: it must outlive the loop).
 * \param dims the array's extent along x, y, z (copied).
 * \param lo the first element of the rank's box along x, y, z (copied).
 * \param size the box's extent along x, y, z (copied).
 * \param element the MPI datatype of one element.
 * \return the description; release it with LB4MPI_Items_free. */
LB4MPI_API LB4MPI_Items* LB4MPI_Items_cube(void* base, const int dims[3], const int lo[3], const int size[3],
                                           MPI_Datatype element);

/** The callbacks of LB4MPI_Items_serialized: how objects (of a fixed C
 * size, with pointers inside) travel as bytes (`000` §4.1.6). All three are
 * required (LB4MPI_Owned_for reports a missing one). */
typedef struct {
  void* state;  /**< passed to every callback */
  /** Serializes the `count` objects at `first` into `*bytes`, a buffer from
   * malloc (the library frees it), of `*size` bytes; returns 0, or nonzero
   * on failure. */
  int (*serialize)(void* state, const void* first, int64_t count, void** bytes, int64_t* size);
  /** Rebuilds `count` objects from the `size` bytes at `bytes`, in memory of
   * your own (count * item_size bytes, objects as the body reads them), and
   * returns it; NULL on failure. */
  void* (*deserialize)(void* state, const void* bytes, int64_t size, int64_t count);
  /** Releases the `count` objects `objects` that deserialize returned. */
  void (*release)(void* state, void* objects, int64_t count);
} LB4MPI_Serializer;
/** Objects moved serialized (input only, `000` §4.1.6): `items` objects of
 * `item_size` bytes each at `base`; a thief gets them through the
 * serializer's callbacks. The arguments are checked by LB4MPI_Owned_for (the
 * three callbacks, item_size > 0, items >= 0, a `base` when items > 0; not as
 * results).
 * \param base the first object (not copied: it must outlive the loop).
 * \param items the number of objects, one per owned iteration.
 * \param item_size the size of one object [bytes].
 * \param serializer the callbacks (copied).
 * \return the description; release it with LB4MPI_Items_free. */
LB4MPI_API LB4MPI_Items* LB4MPI_Items_serialized(void* base, int64_t items, size_t item_size,
                                                 LB4MPI_Serializer serializer);

/** Releases a description (not the data it describes).
 * \param items what LB4MPI_Items_array, LB4MPI_Items_cube or
 *   LB4MPI_Items_serialized returned; NULL: nothing. */
LB4MPI_API void LB4MPI_Items_free(LB4MPI_Items* items);

/** What the body sees of a chunk's items (or results): `first` points at its
 * first item; item x starts x_stride bytes after the previous. Cubes: the
 * element (x, y, z) is at first + x * x_stride + y * y_stride + z *
 * element_size, for y < ny, z < nz. `first` is NULL without items. */
typedef struct {
  void* first;           /**< the first item, NULL without items */
  int64_t count;         /**< items (x-slices of a cube) */
  int64_t x_stride;      /**< bytes from one item to the next */
  int64_t y_stride;      /**< cubes: bytes from one y to the next */
  int64_t element_size;  /**< cubes: bytes of one element */
  int ny;                /**< cubes: elements along y */
  int nz;                /**< cubes: elements along z */
} LB4MPI_View;

/** The loop's body: runs the iterations [begin, begin + count) (global
 * indices), on the owner or on a thief.
 * \param state LB4MPI_Owned_for's `state`.
 * \param begin the chunk's first iteration.
 * \param count the chunk's number of iterations.
 * \param in the chunk's items (`first` NULL without input items).
 * \param out the chunk's result storage (`first` NULL without results). */
typedef void (*LB4MPI_Body)(void* state, int64_t begin, int64_t count, const LB4MPI_View* in,
                            const LB4MPI_View* out);

/** The report of one owned loop (the same on every rank). */
typedef struct {
  double t_par;                /**< parallel time [s]: the latest finish */
  int64_t iterations;          /**< executed in all */
  int64_t steal_attempts;      /**< steal requests sent */
  int64_t successful_steals;   /**< steals that moved work */
  int64_t iterations_stolen;   /**< iterations moved by steals */
  double cov_finish;           /**< c.o.v. of the ranks' finish times */
  double send_time_per_steal;  /**< a victim's time to send a steal [s] */
  double recv_time_per_steal;  /**< a thief's time to receive a steal [s] */
} LB4MPI_StealSummary;

/** Runs the owned loop: every rank executes its own iterations and the
 * balancer moves not yet begun ones, with their items, to idle ranks.
 * Collective over `comm`; the options come from the environment
 * (docs/OPTIONS.md).
 *
 * Bad input (an invalid LB4MPI_* variable, first > last, items that do not
 * describe one item per owned iteration or fail their checks, serialized
 * results, no body, owned ranges of two ranks that overlap, another loop in
 * flight on `comm`) is found before any iteration runs and returned on every
 * rank alike. A serialize or deserialize callback that fails during the loop
 * makes the call return nonzero on the rank where it failed; the other ranks
 * are not told (they may wait for it): the callbacks should not fail.
 * \param comm the communicator.
 * \param first this rank's first owned iteration.
 * \param last the end of this rank's owned iterations (exclusive); first ==
 *   last: the rank owns none.
 * \param in the items of the owned iterations; NULL: no items.
 * \param out the result storage of the owned iterations; NULL: none.
 * \param body called for each chunk, wherever it runs.
 * \param state passed to every call of `body`.
 * \param[out] summary the loop's report, the same on every rank (may be
 *   NULL).
 * \return 0 when the loop ran; nonzero (2) on an error, whose message
 *   LB4MPI_Owned_error() returns. */
LB4MPI_API int LB4MPI_Owned_for(MPI_Comm comm, int64_t first, int64_t last, LB4MPI_Items* in, LB4MPI_Items* out,
                                LB4MPI_Body body, void* state, LB4MPI_StealSummary* summary);

/** The message of the last failed LB4MPI_Owned_for on this thread.
 * \return the message; "" when the last call succeeded or none failed yet.
 *   Valid until the next LB4MPI_Owned_for on this thread. */
LB4MPI_API const char* LB4MPI_Owned_error(void);

#ifdef __cplusplus
}
#endif

#endif /* LB4MPI_STEALING_H */
