#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ostream>
#include <string>
#include <tuple>
#include <vector>

#include "synthetic/synthetic_kernel.hpp"

namespace syn = lb4mpi::apps::synthetic;

namespace lb4mpi::apps::synthetic {
// Test names and messages show the distribution's name.
void PrintTo(Distribution d, std::ostream* os) { *os << name(d); }
}  // namespace lb4mpi::apps::synthetic

namespace {

struct Moments {
  double mean, cov, min;
};

Moments moments(const syn::Params& p, lb4mpi::Index n) {
  double sum = 0, sum2 = 0, mn = 1e300;
  for (lb4mpi::Index i = 0; i < n; ++i) {
    const double t = static_cast<double>(syn::iteration_time_ns(p, i)) / 1000.0;
    sum += t;
    sum2 += t * t;
    mn = std::min(mn, t);
  }
  const double mean = sum / static_cast<double>(n);
  const double var = sum2 / static_cast<double>(n) - mean * mean;
  return {mean, std::sqrt(std::max(var, 0.0)) / mean, mn};
}

}  // namespace

class SyntheticMoments : public ::testing::TestWithParam<std::tuple<syn::Distribution, double>> {};

TEST_P(SyntheticMoments, MeanAndCovAsRequested) {
  const auto [dist, cov] = GetParam();
  syn::Params p;
  p.distribution = dist;
  p.mean_us = 250.0;
  p.cov = cov;
  p.seed = 42;
  p.validate();
  const auto m = moments(p, 200000);
  EXPECT_NEAR(m.mean, 250.0, 250.0 * 0.01) << syn::name(dist);
  const double want_cov = dist == syn::Distribution::Constant ? 0.0 : cov;
  EXPECT_NEAR(m.cov, want_cov, 0.02 * std::max(want_cov, 0.05) + 0.002) << syn::name(dist);
  EXPECT_GE(m.min, 0.0);
}

INSTANTIATE_TEST_SUITE_P(Distributions, SyntheticMoments,
                         ::testing::Values(std::tuple{syn::Distribution::Constant, 0.5},
                                           std::tuple{syn::Distribution::Uniform, 0.3},
                                           std::tuple{syn::Distribution::Uniform, 0.55},
                                           std::tuple{syn::Distribution::Normal, 0.2},
                                           std::tuple{syn::Distribution::Exponential, 1.0},
                                           std::tuple{syn::Distribution::Exponential, 0.4},
                                           std::tuple{syn::Distribution::Gamma, 0.5},
                                           std::tuple{syn::Distribution::Gamma, 1.8},
                                           std::tuple{syn::Distribution::Gamma, 0.05}),
                         [](const auto& param_info) {
                           return std::string(syn::name(std::get<0>(param_info.param))) + "_cov" +
                                  std::to_string(
                                      static_cast<int>(std::get<1>(param_info.param) * 100 + 0.5));
                         });

TEST(Synthetic, PureFunctionOfSeedAndIndex) {
  syn::Params p;
  p.distribution = syn::Distribution::Gamma;
  p.cov = 0.8;
  p.seed = 9;
  std::vector<std::int64_t> forward, backward(1000);
  for (lb4mpi::Index i = 0; i < 1000; ++i) forward.push_back(syn::iteration_time_ns(p, i));
  for (lb4mpi::Index i = 1000; i-- > 0;)
    backward[static_cast<std::size_t>(i)] = syn::iteration_time_ns(p, i);
  EXPECT_EQ(forward, backward);
  // Another seed gives other times.
  p.seed = 10;
  int same = 0;
  for (lb4mpi::Index i = 0; i < 1000; ++i)
    same += syn::iteration_time_ns(p, i) == forward[static_cast<std::size_t>(i)];
  EXPECT_LT(same, 10);
}

TEST(Synthetic, GreedyMakespan) {
  syn::Params p;  // constant 100 us: 10 iterations on 4 ranks end after 3
  EXPECT_NEAR(syn::greedy_makespan_s(p, 10, 4), 3e-4, 1e-12);
  EXPECT_NEAR(syn::greedy_makespan_s(p, 8, 4), 2e-4, 1e-12);
  // Gamma times on 3 ranks against a list schedule written here (the next
  // iteration to the rank free first).
  p.distribution = syn::Distribution::Gamma;
  p.cov = 1.0;
  std::vector<std::int64_t> t;
  for (lb4mpi::Index i = 0; i < 2000; ++i) t.push_back(syn::iteration_time_ns(p, i));
  std::vector<std::int64_t> free_at(3, 0);
  for (std::int64_t x : t) *std::min_element(free_at.begin(), free_at.end()) += x;
  const double expect = 1e-9 * static_cast<double>(*std::max_element(free_at.begin(), free_at.end()));
  EXPECT_NEAR(syn::greedy_makespan_s(p, 2000, 3), expect, 1e-12);
  // Exponential times on many ranks: above the bound by about (H_P - 1) means.
  const auto b = syn::lower_bound(p, 2000, 3);
  EXPECT_GE(syn::greedy_makespan_s(p, 2000, 3), b.lower_bound_s);
}

TEST(Synthetic, LowerBound) {
  syn::Params p;  // constant 100 us
  auto b = syn::lower_bound(p, 1000, 4);
  EXPECT_NEAR(b.total_s, 0.1, 1e-12);
  EXPECT_NEAR(b.max_s, 1e-4, 1e-15);
  EXPECT_NEAR(b.lower_bound_s, 0.025, 1e-12);
  b = syn::lower_bound(p, 3, 4);  // fewer iterations than ranks: the longest one bounds
  EXPECT_NEAR(b.lower_bound_s, 1e-4, 1e-15);
}

TEST(Synthetic, SpinTakesTheTime) {
  syn::Params p;
  p.mean_us = 2000;
  const auto t0 = std::chrono::steady_clock::now();
  const auto ns = syn::run_iteration(p, 0, syn::Exec::Spin);
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(ns, 2000000);
  EXPECT_GE(elapsed, 0.002);
  EXPECT_LT(elapsed, 0.5);
}

TEST(Synthetic, Parsing) {
  EXPECT_EQ(syn::parse_distribution("Gamma"), syn::Distribution::Gamma);
  EXPECT_EQ(syn::parse_distribution("EXPONENTIAL"), syn::Distribution::Exponential);
  EXPECT_EQ(syn::parse_exec("sleep"), syn::Exec::Sleep);
  try {
    syn::parse_distribution("poisson");
    FAIL();
  } catch (const lb4mpi::Error& e) {
    EXPECT_NE(std::string(e.what()).find("constant, uniform, normal, exponential, gamma"),
              std::string::npos);
  }
  EXPECT_THROW(syn::parse_exec("walk"), lb4mpi::Error);
}

TEST(Synthetic, Validate) {
  syn::Params p;
  p.distribution = syn::Distribution::Uniform;
  p.cov = 0.6;
  EXPECT_THROW(p.validate(), lb4mpi::Error);
  p.distribution = syn::Distribution::Exponential;
  p.cov = 1.2;
  EXPECT_THROW(p.validate(), lb4mpi::Error);
  p.distribution = syn::Distribution::Gamma;
  EXPECT_NO_THROW(p.validate());
  p.mean_us = 0;
  EXPECT_THROW(p.validate(), lb4mpi::Error);
  p.mean_us = 1;
  p.cov = -1;
  EXPECT_THROW(p.validate(), lb4mpi::Error);
}
