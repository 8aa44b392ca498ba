// How close any self-scheduler can come to the lower bound on a synthetic
// loop: for each seed, the greedy list schedule (the iterations in order,
// each to the rank free first, at no cost: what a dynamic technique with a
// free hand-out would do) against max(sum t_i / P, max t_i), from the same
// iteration times as apps/synthetic (synthetic_kernel.hpp). No MPI.
//
//   synthetic_bounds --ranks 1024 --iterations 262144 --distribution gamma
//                    --mean-us 100 --cov 1 --seeds 1 20 [--target 1.02]
//
// One line per seed, then a summary: the mean, the smallest and largest
// greedy / bound, how many seeds reach --target, and for exponential times
// (gamma or exponential, c.o.v. 1) the estimate 1 + (H_P - 1) M / (N M / P)
// (the loop waits for the slowest of P residual iterations; docs/EXPERIMENTS.md).
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <string>

#include "synthetic/synthetic_kernel.hpp"

namespace syn = lb4mpi::apps::synthetic;

int main(int argc, char** argv) {
  CLI::App app("greedy list schedule against the lower bound of a synthetic loop, per seed");
  int ranks = 1024;
  lb4mpi::Index n = 262144;
  std::string distribution = "gamma";
  syn::Params params;
  params.cov = 1.0;
  std::vector<int> seeds{1, 20};
  double target = 0.0;
  app.add_option("--ranks", ranks, "P")->check(CLI::PositiveNumber);
  app.add_option("--iterations", n, "N")->check(CLI::PositiveNumber);
  app.add_option("--distribution", distribution, "constant|uniform|normal|exponential|gamma");
  app.add_option("--mean-us", params.mean_us, "M [us]");
  app.add_option("--cov", params.cov, "C");
  app.add_option("--seeds", seeds, "first and last seed")->expected(2);
  app.add_option("--target", target, "count the seeds whose greedy / bound is at most this");
  CLI11_PARSE(app, argc, argv);
  try {
    params.distribution = syn::parse_distribution(distribution);
    params.validate();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "synthetic_bounds: %s\n", e.what());
    return 2;
  }
  if (seeds[0] > seeds[1]) {
    std::fprintf(stderr, "synthetic_bounds: --seeds: the first must not exceed the last\n");
    return 2;
  }
  double sum = 0.0, lo = 1e300, hi = 0.0;
  int count = 0, reached = 0;
  for (int seed = seeds[0]; seed <= seeds[1]; ++seed) {
    params.seed = static_cast<std::uint64_t>(seed);
    const syn::Bound b = syn::lower_bound(params, n, ranks);
    const double ratio = syn::greedy_makespan_s(params, n, ranks) / b.lower_bound_s;
    std::printf("seed %d: greedy / bound %.4f\n", seed, ratio);
    sum += ratio;
    lo = std::min(lo, ratio);
    hi = std::max(hi, ratio);
    ++count;
    if (target > 0.0 && ratio <= target) ++reached;
  }
  std::printf("P %d, N %lld, %d seeds: greedy / bound mean %.4f, min %.4f, max %.4f", ranks,
              static_cast<long long>(n), count, sum / count, lo, hi);
  if (target > 0.0) std::printf("; %d of %d at most %.4f", reached, count, target);
  std::printf("\n");
  const bool exponential = (params.distribution == syn::Distribution::Gamma ||
                            params.distribution == syn::Distribution::Exponential) &&
                           params.cov == 1.0;
  if (exponential) {
    double harmonic = 0.0;
    for (int k = 1; k <= ranks; ++k) harmonic += 1.0 / k;
    std::printf("estimate for exponential times: 1 + (H_P - 1) P / N = %.4f\n",
                1.0 + (harmonic - 1.0) * ranks / static_cast<double>(n));
  }
  return 0;
}
