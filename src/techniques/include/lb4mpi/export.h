/* lb4mpi/export.h — marks the declarations that make up lb4mpi's public API.
 *
 * The libraries are compiled with -fvisibility=hidden: a symbol leaves
 * liblb4mpi.so / liblb4mpi_techniques.so only when its declaration carries
 * LB4MPI_API. Everything else (the runtime, tracing and C-API internals) stays
 * private to the library, so it cannot clash with a user's symbols and can
 * change without breaking the ABI.
 *
 * Classes whose objects cross the library boundary as exceptions or through
 * dynamic_cast (lb4mpi::Error, OutputError, InvalidParameter, ChunkRule, ...)
 * are marked as a whole: their type information must be the library's single
 * copy, or a program could not catch what the library throws (with hidden
 * type information, GCC's and clang's runtimes compare type_info by address).
 *
 * On ELF the same attribute serves building and using the library, and is
 * harmless in the static archives, so there is one macro for both libraries.
 * This header is C as well as C++ (lb4mpi.h includes it). */
#ifndef LB4MPI_EXPORT_H
#define LB4MPI_EXPORT_H

#if defined(__GNUC__) || defined(__clang__)
#define LB4MPI_API __attribute__((visibility("default")))
#else
#define LB4MPI_API
#endif

#endif /* LB4MPI_EXPORT_H */
