/* Helpers of the C API tests: run a loop (or several loops in flight) through
 * the LB4MPI C interface and check that every iteration ran exactly once,
 * with a bitmap of per-iteration counts summed over MPI_COMM_WORLD.
 *
 * Every helper is collective and never returns early, so a rank that finds a
 * failure still takes part in every reduction: a failure makes the test exit
 * non-zero, never hang. */
#ifndef LB4MPI_TESTS_CAPI_CHECK_H
#define LB4MPI_TESTS_CAPI_CHECK_H

#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#endif
#include <lb4mpi/lb4mpi.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* Simulated work per iteration on this rank [microseconds]; 0: none. */
static double capi_us_per_iteration = 0.0;

/* The work of a chunk of `size` iterations: one sleep of size x
 * capi_us_per_iteration. A sleep, not a spin: on a shared, oversubscribed
 * machine a spinning rank's time also counts the time it waits for a core,
 * which blurs the speeds a test sets; a sleep costs one wake-up per chunk. */
static inline void capi_work_chunk(int size) {
  if (capi_us_per_iteration <= 0.0 || size <= 0) return;
  const double us = capi_us_per_iteration * size;
  struct timespec t;
  t.tv_sec = (time_t)(us / 1e6);
  t.tv_nsec = (long)((us - (double)t.tv_sec * 1e6) * 1e3);
  while (nanosleep(&t, &t) != 0) {
  }
}

/* Sums marks[0..n) over all ranks and reports every iteration that did not
 * run exactly once. Returns the number of such iterations (the same on every
 * rank). */
static inline long capi_exactly_once(const int* marks, int n, int first, const char* what) {
  if (n <= 0) return 0;
  int* global = (int*)calloc((size_t)n, sizeof(int));
  MPI_Allreduce(marks, global, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  long bad = 0;
  for (int i = 0; i < n; ++i) {
    if (global[i] != 1) {
      if (bad < 3) fprintf(stderr, "%s: iteration %d ran %d times\n", what, first + i, global[i]);
      ++bad;
    }
  }
  free(global);
  return bad;
}

/* One loop [first, last] (inclusive) with `method`. endchunk3 != 0 uses the
 * 3-argument DLS_EndChunk of `003` Listing 2.1. *first_piece (if not NULL)
 * receives the size of this rank's first non-empty piece (0: none). Returns
 * the number of failures seen by this rank. */
static inline int capi_run_loop(infoDLS* info, int first, int last, int method, int endchunk3,
                                int* first_piece) {
  const int n = last - first + 1;
  int* marks = (int*)calloc((size_t)(n > 0 ? n : 1), sizeof(int));
  int failures = 0;
  int start = 0, size = 0, nIter = -1;
  double workTime = -1.0;
  long mine = 0;
  if (first_piece != NULL) *first_piece = 0;
  DLS_StartLoop(info, first, last, method);
  while (!DLS_Terminated(info)) {
    DLS_StartChunk(info, &start, &size);
    if (size <= 0) {
      fprintf(stderr, "method %d: DLS_StartChunk gave an empty chunk before the end of the loop\n",
              method);
      failures = 1;
    }
    if (first_piece != NULL && *first_piece == 0) *first_piece = size;
    for (int i = start; i < start + size; ++i) {
      if (i < first || i > last) {
        fprintf(stderr, "method %d: iteration %d outside [%d, %d]\n", method, i, first, last);
        failures = 1;
      } else {
        marks[i - first] += 1;
      }
    }
    capi_work_chunk(size);
    mine += size;
    if (endchunk3) {
      DLS_EndChunk(info, &nIter, &workTime);
    } else {
      DLS_EndChunk(info);
    }
  }
  DLS_EndLoop(info, &nIter, &workTime);
  if (nIter != mine) {
    fprintf(stderr, "method %d: DLS_EndLoop reports %d iterations, this rank executed %ld\n",
            method, nIter, mine);
    failures = 1;
  }
  if (!(workTime >= 0.0)) {
    fprintf(stderr, "method %d: DLS_EndLoop reports work time %g\n", method, workTime);
    failures = 1;
  }
  char what[64];
  snprintf(what, sizeof what, "method %d", method);
  if (capi_exactly_once(marks, n, first, what) != 0) failures = 1;
  free(marks);
  return failures;
}

enum { CAPI_MAX_LOOPS = 8 };

/* nloops loops in flight together (DLS_NumLoops(nloops) must have preceded
 * DLS_Parameters_Setup), in the style of `003` Listing 4.3. first_piece (if
 * not NULL) receives this rank's first non-empty piece of each loop. */
static inline int capi_run_mloops(infoDLS* info, int nloops, int* firsts, int* lasts, int* methods,
                                  int* first_piece) {
  int* marks[CAPI_MAX_LOOPS];
  long mine[CAPI_MAX_LOOPS];
  int failures = 0;
  for (int l = 0; l < nloops; ++l) {
    const int n = lasts[l] - firsts[l] + 1;
    marks[l] = (int*)calloc((size_t)(n > 0 ? n : 1), sizeof(int));
    mine[l] = 0;
    if (first_piece != NULL) first_piece[l] = 0;
  }
  int start = 0, size = 0;
  DLS_StartMLoops(info, firsts, lasts, methods);
  while (!DLS_MTerminated(info)) {
    for (int l = 0; l < nloops; ++l) {
      DLS_TargetLoop(info, l);
      DLS_StartChunk(info, &start, &size); /* size 0: nothing for loop l right now */
      if (first_piece != NULL && first_piece[l] == 0) first_piece[l] = size;
      for (int i = start; i < start + size; ++i) {
        if (i < firsts[l] || i > lasts[l]) {
          fprintf(stderr, "loop %d: iteration %d outside [%d, %d]\n", l, i, firsts[l], lasts[l]);
          failures = 1;
        } else {
          marks[l][i - firsts[l]] += 1;
        }
      }
      capi_work_chunk(size);
      mine[l] += size;
      DLS_EndChunk(info);
    }
  }
  int nIters[CAPI_MAX_LOOPS];
  double workTimes[CAPI_MAX_LOOPS];
  DLS_EndMLoops(info, nIters, workTimes);
  for (int l = 0; l < nloops; ++l) {
    if (nIters[l] != mine[l]) {
      fprintf(stderr, "loop %d: DLS_EndMLoops reports %d iterations, this rank executed %ld\n", l,
              nIters[l], mine[l]);
      failures = 1;
    }
    char what[64];
    snprintf(what, sizeof what, "loop %d (method %d)", l, methods[l]);
    if (capi_exactly_once(marks[l], lasts[l] - firsts[l] + 1, firsts[l], what) != 0) failures = 1;
    free(marks[l]);
  }
  return failures;
}

/* The job's verdict: non-zero on every rank when any rank failed. */
static inline int capi_any(int failures) {
  int any = 0;
  MPI_Allreduce(&failures, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return any;
}

#endif /* LB4MPI_TESTS_CAPI_CHECK_H */
