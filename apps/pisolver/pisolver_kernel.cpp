#include "pisolver_kernel.hpp"

#include <cmath>
#include <string>

#include "common/mix.hpp"
#include "pisolver_stream/pisolver_stream_kernel.hpp"

namespace lb4mpi::apps::pisolver {

void Params::validate(int ranks) const {
  if (iterations < 1) throw Error("--iterations must be >= 1, got " + std::to_string(iterations));
  if (iterations < ranks) {
    throw Error("--iterations " + std::to_string(iterations) + " is fewer than the " + std::to_string(ranks) +
                " ranks (each owns a block)");
  }
  if (work < 1) throw Error("--work must be >= 1, got " + std::to_string(work));
  if (!(imbalance >= 0.0 && imbalance <= 40.0)) {
    throw Error("--imbalance must be in [0, 40] percent, got " + std::to_string(imbalance));
  }
  if (ranks > 1 && imbalance / 100.0 > 1.0 - 1.0 / ranks) {
    throw Error("--imbalance " + std::to_string(imbalance) + " gives rank 0 more than all the work on " +
                std::to_string(ranks) + " ranks (at most " + std::to_string(100.0 * (1.0 - 1.0 / ranks)) + ")");
  }
}

double work_share(const Params& p, int ranks, int r) {
  if (ranks <= 1) return 1.0;
  const double heavy = 1.0 / ranks + p.imbalance / 100.0;
  return r == 0 ? heavy : (1.0 - heavy) / (ranks - 1);
}

std::int64_t workload(const Params& p, int ranks, int owner, Index i) {
  // Every rank owns N/P iterations (give or take one): the mean workload of
  // the owner's iterations makes its share of the total.
  const double mean = static_cast<double>(p.work) * ranks * work_share(p, ranks, owner);
  SplitMix64 g = SplitMix64::stream(p.seed, static_cast<std::uint64_t>(i));
  const double w = mean * (0.5 + g.uniform01());
  return std::max<std::int64_t>(1, std::llround(w));
}

std::int64_t solve(const Params& p, Index i, std::int64_t substeps) {
  // Slice i of [0, 1] with `substeps` midpoints: the slices of all
  // iterations sum to pi whatever their workloads.
  const double n = static_cast<double>(p.iterations);
  const double h = 1.0 / (n * static_cast<double>(substeps));
  const double first = static_cast<double>(i) / n;
  double sum = 0.0;
  for (std::int64_t k = 0; k < substeps; ++k) {
    const double x = first + (static_cast<double>(k) + 0.5) * h;
    sum += 4.0 / (1.0 + x * x);
  }
  return pisolver_stream::to_fixed(sum * h);
}

}  // namespace lb4mpi::apps::pisolver
