/* The driver of the baseline comparison (issue 32): the same loop body and
 * timing for the loop written by hand (master_worker.c) and for lb4mpi's C
 * interface (DLS_StartLoop ... DLS_EndLoop, centralized). One JSON line per
 * timed repetition on rank 0:
 *   lb4mpi-baseline --impl hand|lb4mpi|both --technique STATIC|SS|GSS|TSS|FAC|all
 *                   [--kernel null|mandelbrot] [--n N] [--width W] [--threshold CT]
 *                   [--reps R] [--warmup W] [--probe-every K]
 * null: an empty body over N iterations (its only work: the sum of the
 * indices, the check); mandelbrot: z <- z^4 + c over a W x W grid, at most CT
 * steps per point (apps/mandelbrot's kernel), the check a sum of the mixed
 * results. T_par: the slowest rank's time from a barrier to the loop's end.
 * --impl both alternates the two in one launch (hand first in even
 * repetitions, lb4mpi first in odd ones) and checks that they agree on the
 * checksum. --technique all: the five one after the other. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lb4mpi/lb4mpi.h>

#include "baseline.h"

struct body_state {
  int mandelbrot;
  long long width;
  int threshold;
  uint64_t sum;
};

static uint64_t fmix64(uint64_t z) {
  z = (z ^ (z >> 30U)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27U)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31U);
}

static int escape_count(double c_re, double c_im, int threshold) {
  double zr = 0.0, zi = 0.0;
  int k = 0;
  while (k < threshold && zr * zr + zi * zi < 4.0) {
    const double sr = zr * zr - zi * zi, si = 2.0 * zr * zi;
    zr = sr * sr - si * si + c_re;
    zi = 2.0 * sr * si + c_im;
    ++k;
  }
  return k;
}

static void body(long long begin, long long size, void* user) {
  struct body_state* s = (struct body_state*)user;
  long long i;
  if (!s->mandelbrot) {
    for (i = begin; i < begin + size; ++i) s->sum += (uint64_t)i;
    return;
  }
  for (i = begin; i < begin + size; ++i) {
    const double w = (double)s->width;
    const double re = -2.0 + (double)(i / s->width) / w * 4.0,
                 im = -2.0 + (double)(i % s->width) / w * 4.0;
    const int k = escape_count(re, im, s->threshold);
    s->sum +=
        fmix64(fmix64((uint64_t)i ^ 0x5851f42d4c957f2dULL) + (uint64_t)k * 0x9e3779b97f4a7c15ULL);
  }
}

static const char* const kNames[] = {"STATIC", "SS", "GSS", "TSS", "FAC"};
static const int kMethods[] = {STATIC, SS, GSS, TSS, FAC};

static void usage(int rank, const char* what) {
  if (rank == 0) {
    fprintf(
        stderr,
        "lb4mpi-baseline: %s\nusage: lb4mpi-baseline --impl hand|lb4mpi --technique "
        "STATIC|SS|GSS|TSS|FAC|all "
        "[--kernel null|mandelbrot] [--n N] [--width W] [--threshold CT] [--reps R] [--warmup W] "
        "[--probe-every K]\n",
        what);
  }
  MPI_Finalize();
  exit(2);
}

static void lb4mpi_loop(infoDLS* info, int method, long long n, struct body_state* s) {
  int start = 0, size = 0, iterations = 0;
  double work = 0.0;
  DLS_StartLoop(info, 0, (int)(n - 1), method);
  while (!DLS_Terminated(info)) {
    DLS_StartChunk(info, &start, &size);
    body(start, size, s);
    DLS_EndChunk(info);
  }
  DLS_EndLoop(info, &iterations, &work);
}

int main(int argc, char** argv) {
  int rank = 0, p = 1, i, t = -1, lb = -1, reps = 5, warmup = 1, rep, checked = 0, tech;
  uint64_t expected = 0;
  long long n = 1000000, probe_every = 16;
  struct body_state s = {0, 256, 2000, 0};
  infoDLS info;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  for (i = 1; i + 1 < argc; i += 2) {
    const char* k = argv[i];
    const char* v = argv[i + 1];
    if (strcmp(k, "--impl") == 0) {
      lb = strcmp(v, "lb4mpi") == 0 ? 1
           : strcmp(v, "hand") == 0 ? 0
           : strcmp(v, "both") == 0 ? 2
                                    : -2;
      if (lb == -2) usage(rank, "--impl wants hand, lb4mpi or both");
    } else if (strcmp(k, "--technique") == 0) {
      int j;
      for (j = 0; j < 5; ++j) {
        if (strcmp(v, kNames[j]) == 0) t = j;
      }
      if (strcmp(v, "all") == 0) t = 5;
      if (t < 0) usage(rank, "--technique wants STATIC, SS, GSS, TSS, FAC or all");
    } else if (strcmp(k, "--kernel") == 0) {
      s.mandelbrot = strcmp(v, "mandelbrot") == 0;
      if (!s.mandelbrot && strcmp(v, "null") != 0) usage(rank, "--kernel wants null or mandelbrot");
    } else if (strcmp(k, "--n") == 0) {
      n = atoll(v);
    } else if (strcmp(k, "--width") == 0) {
      s.width = atoll(v);
    } else if (strcmp(k, "--threshold") == 0) {
      s.threshold = atoi(v);
    } else if (strcmp(k, "--reps") == 0) {
      reps = atoi(v);
    } else if (strcmp(k, "--warmup") == 0) {
      warmup = atoi(v);
    } else if (strcmp(k, "--probe-every") == 0) {
      probe_every = atoll(v);
    } else {
      usage(rank, "unknown option");
    }
  }
  if (i != argc) usage(rank, "an option without its value");
  if (lb < 0 || t < 0) usage(rank, "--impl and --technique are required");
  if (s.mandelbrot) n = s.width * s.width;
  if (n < 1 || n > 2000000000LL || s.width < 1 || s.threshold < 1 || reps < 1 || warmup < 0) {
    usage(rank, "--n (or --width^2) must be in 1..2e9, --width, --threshold and --reps >= 1");
  }
  if (lb != 0) DLS_Parameters_Setup(MPI_COMM_WORLD, &info, p, -1, -1, 1, 0.0, 0.0, 0, 1.0, 1.0);
  for (tech = t == 5 ? 0 : t; tech < (t == 5 ? 5 : t + 1); ++tech) {
    checked = 0;
    for (rep = -warmup; rep < reps; ++rep) {
      int round;
      for (round = 0; round < (lb == 2 ? 2 : 1); ++round) {
        const int use_lb = lb == 2 ? ((rep & 1) ^ round) : lb;
        double t0, mine, t_par = 0.0;
        uint64_t sum = 0;
        s.sum = 0;
        MPI_Barrier(MPI_COMM_WORLD);
        t0 = MPI_Wtime();
        if (use_lb) {
          lb4mpi_loop(&info, kMethods[tech], n, &s);
        } else {
          hand_loop(MPI_COMM_WORLD, (enum hand_technique)tech, n, probe_every, body, &s);
        }
        mine = MPI_Wtime() - t0;
        MPI_Reduce(&mine, &t_par, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        MPI_Reduce(&s.sum, &sum, 1, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
        if (rank != 0) continue;
        if ((!s.mandelbrot && sum != (uint64_t)n * (uint64_t)(n - 1) / 2) ||
            (checked && sum != expected)) {
          fprintf(stderr,
                  "lb4mpi-baseline: %s: the iterations did not run exactly once (sum 0x%016llx)\n",
                  use_lb ? "lb4mpi" : "hand", (unsigned long long)sum);
          MPI_Abort(MPI_COMM_WORLD, 1);
        }
        expected = sum;
        checked = 1;
        if (rep < 0) continue;
        printf(
            "{\"bench\":\"baseline\",\"impl\":\"%s\",\"technique\":\"%s\",\"kernel\":\"%s\","
            "\"ranks\":%d,"
            "\"n\":%lld,\"rep\":%d,\"t_par_s\":%.9g,\"ns_per_iteration\":%.6g,\"checksum\":\"0x%"
            "016llx\"}\n",
            use_lb ? "lb4mpi" : "hand", kNames[tech], s.mandelbrot ? "mandelbrot" : "null", p, n,
            rep, t_par, t_par * 1e9 / (double)n, (unsigned long long)sum);
        fflush(stdout);
      }
    }
  }
  if (lb != 0) DLS_Finalize(&info);
  MPI_Finalize();
  return 0;
}
