// The kernel of lb4mpi-pisolver, the Pi-solver over distributed data of
// `000` §5.2: every rank owns a block of the loop's iterations and their
// workloads (a long per iteration: the midpoint sub-steps of its slice of
// the integral of 4/(1+x^2) over [0, 1], which sums to pi). Pure functions,
// no MPI.
//
// Workloads and imbalance. Iteration i's workload is W_r (0.5 + u_i), u_i
// uniform in (0, 1) from (seed, i), where W_r is the mean workload on its
// owner r. With --imbalance PCT, rank 0 owns 1/P + PCT/100 of the loop's
// total work and the others equal parts of the rest (PCT = 0: all equal),
// although every rank owns the same number of iterations: the data is
// distributed evenly, the work is not (`000` Fig. 4.1). Without balancing,
// T_par is rank 0's load: P (1/P + PCT/100) times the mean.
#pragma once
#include <cstdint>

#include "lb4mpi/types.hpp"

namespace lb4mpi::apps::pisolver {

struct Params {
  Index iterations = 40000;   ///< N
  std::int64_t work = 2000;   ///< mean sub-steps per iteration over the loop
  double imbalance = 0.0;     ///< PCT, in [0, 40] and at most 100 (1 - 1/P)
  std::uint64_t seed = 1;
  /// Throws lb4mpi::Error naming the flag and its valid range.
  void validate(int ranks) const;
};

/// The share of the loop's total work that rank r owns.
double work_share(const Params& p, int ranks, int r);
/// The workload (sub-steps, >= 1) of iteration i owned by rank `owner`.
std::int64_t workload(const Params& p, int ranks, int owner, Index i);
/// Iteration i's result: its slice of pi with `substeps` sub-steps, in
/// fixed point (pisolver_stream::to_fixed), so that sums are exact.
std::int64_t solve(const Params& p, Index i, std::int64_t substeps);

}  // namespace lb4mpi::apps::pisolver
