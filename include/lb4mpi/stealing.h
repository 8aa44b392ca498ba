/* lb4mpi/stealing.h — owned loops from C: loops over distributed data,
 * balanced by work stealing (docs/STEALING.md; the C++ API is
 * <lb4mpi/stealing.hpp>).
 *
 * Every rank owns the iterations [first, last) and one item of data per
 * iteration, described by an LB4MPI_Items: contiguous items of any MPI
 * datatype (`000` §4.1.5.1), x-slices of a cube moved as MPI sub-arrays
 * (§4.1.5.2), or objects moved with your serialize / deserialize callbacks
 * (§4.1.6). The body gets the chunk's first global index, its iteration
 * count and views of its items and results, wherever it runs; results come
 * back into the owner's result storage. The options come from the
 * environment (LB4MPI_BALANCER, LB4MPI_STEAL_RATIO, LB4MPI_WS_SCHEDULING,
 * LB4MPI_LAWS, LB4MPI_nLAWS, ...: docs/OPTIONS.md).
 *
 *   LB4MPI_Items* in = LB4MPI_Items_array(work, last - first, MPI_LONG, 1);
 *   LB4MPI_Items* out = LB4MPI_Items_array(result, last - first, MPI_DOUBLE, 1);
 *   LB4MPI_StealSummary s;
 *   if (LB4MPI_Owned_for(MPI_COMM_WORLD, first, last, in, out, body, NULL, &s) != 0)
 *     fprintf(stderr, "%s\n", LB4MPI_Owned_error());   // the same on every rank
 *   LB4MPI_Items_free(in); LB4MPI_Items_free(out);
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

/* A rank's items (one per iteration it owns), or its result storage. */
typedef struct LB4MPI_Items LB4MPI_Items;

/* `items` contiguous items of `per_item` elements of `element` each, at `base`. */
LB4MPI_API LB4MPI_Items* LB4MPI_Items_array(void* base, int64_t items, MPI_Datatype element, int per_item);

/* A C-order 3-D array of dims[0] x dims[1] x dims[2] elements of `element`
 * at `base`, of which the box [lo, lo + size) is the rank's: item i is the
 * x-slice lo[0] + i (size[0] items). Slices travel as MPI sub-arrays. */
LB4MPI_API LB4MPI_Items* LB4MPI_Items_cube(void* base, const int dims[3], const int lo[3], const int size[3],
                                           MPI_Datatype element);

/** Objects moved serialized (input only): `items` objects of `item_size`
 * bytes each at `base`. */
typedef struct {
  void* state;  /**< passed to every callback */
  /** The bytes of the `count` objects at `first`: a buffer from malloc (the
   * library frees it) and its size. Returns 0, or nonzero on failure. */
  int (*serialize)(void* state, const void* first, int64_t count, void** bytes, int64_t* size);
  /** `count` objects from `size` bytes, in memory of your own (count *
   * item_size bytes, objects as the body reads them); NULL on failure. */
  void* (*deserialize)(void* state, const void* bytes, int64_t size, int64_t count);
  /** Releases what deserialize returned. */
  void (*release)(void* state, void* objects, int64_t count);
} LB4MPI_Serializer;
LB4MPI_API LB4MPI_Items* LB4MPI_Items_serialized(void* base, int64_t items, size_t item_size,
                                                 LB4MPI_Serializer serializer);

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

/* Runs iterations [begin, begin + count) (global indices). */
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

/* Collective: runs the owned loop over [first, last) on this rank with its
 * items `in` (may be NULL: no items) and result storage `out` (may be NULL),
 * options from the environment. Returns 0, or nonzero on bad input (the
 * same on every rank, before any iteration ran; LB4MPI_Owned_error() says
 * what). `summary` may be NULL. */
LB4MPI_API int LB4MPI_Owned_for(MPI_Comm comm, int64_t first, int64_t last, LB4MPI_Items* in, LB4MPI_Items* out,
                                LB4MPI_Body body, void* state, LB4MPI_StealSummary* summary);

/* The message of the last failed LB4MPI_Owned_for on this thread ("" if none). */
LB4MPI_API const char* LB4MPI_Owned_error(void);

#ifdef __cplusplus
}
#endif

#endif /* LB4MPI_STEALING_H */
