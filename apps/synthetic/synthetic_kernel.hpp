// Synthetic loop iterations with known execution times. Pure functions, no MPI.
//
// The time of iteration i is drawn from a distribution with mean M and
// coefficient of variation C by a generator seeded with (seed, i) alone, so it
// is a pure function of (seed, i): every rank knows every iteration's time
// without communicating, and so does the lower bound of any schedule,
// max(sum_i t_i / P, max_i t_i).
//
//   constant     t = M                                   (C is ignored)
//   uniform      U[M - sqrt(3) C M, M + sqrt(3) C M]     (needs C <= 1/sqrt(3))
//   normal       M + C M Z, Z ~ N(0,1); negative draws are redrawn, so for
//                C > 0.3 the mean drifts above M
//   exponential  M (1 - C) + Exp(mean C M): a shifted exponential (C <= 1;
//                C = 1 is the plain exponential)
//   gamma        Gamma(shape 1/C^2, scale M C^2)          (C = 0: constant)
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

#include "lb4mpi/types.hpp"

namespace lb4mpi::apps::synthetic {

enum class Distribution : std::uint8_t { Constant, Uniform, Normal, Exponential, Gamma };
std::string_view name(Distribution d);
/// Case-insensitive; throws lb4mpi::Error naming the valid choices.
Distribution parse_distribution(std::string_view text);
std::string valid_distribution_names();

/// How an iteration spends its time.
enum class Exec : std::uint8_t {
  Spin,   ///< busy-wait on the steady clock until the time has passed
  Sleep,  ///< sleep for the time
};
std::string_view name(Exec e);
Exec parse_exec(std::string_view text);

struct Params {
  Distribution distribution = Distribution::Constant;
  double mean_us = 100.0;  ///< M [microseconds]
  double cov = 0.5;        ///< C = stddev / mean
  std::uint64_t seed = 1;

  /// Throws lb4mpi::Error naming the bad parameter and its valid range.
  void validate() const;
};

/// The time of iteration i [nanoseconds], >= 0: a pure function of (p, i).
std::int64_t iteration_time_ns(const Params& p, Index i);

/// Runs iteration i: spends iteration_time_ns(p, i) as `exec` says; returns that time.
std::int64_t run_iteration(const Params& p, Index i, Exec exec);

struct Bound {
  double total_s = 0;        ///< sum of the iterations' times
  double max_s = 0;          ///< the longest iteration
  double lower_bound_s = 0;  ///< max(total / P, max): no schedule on P ranks is faster
};
/// The lower bound of any schedule of iterations [0, n) on `ranks` ranks.
Bound lower_bound(const Params& p, Index n, int ranks);

/// The run time of the best a self-scheduler can do without knowing the
/// iterations' times [s]: iterations handed out one at a time, in order, to
/// the rank that is free first, at no cost (a greedy list schedule: SS with
/// free scheduling). Above lower_bound by about (H_P - 1) x the time a rank
/// still needs for its last iteration when the loop runs out (H_P: the P-th
/// harmonic number; for exponential times, the mean time): the reference a
/// dynamic technique is measured against when the bound itself cannot be met.
double greedy_makespan_s(const Params& p, Index n, int ranks);

}  // namespace lb4mpi::apps::synthetic
