#include "synthetic_kernel.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <functional>
#include <numbers>
#include <queue>
#include <vector>

#include "../common/mix.hpp"
#include "../common/timing.hpp"

namespace lb4mpi::apps::synthetic {
namespace {

constexpr std::array<std::pair<std::string_view, Distribution>, 5> kDistributions{{
    {"constant", Distribution::Constant},
    {"uniform", Distribution::Uniform},
    {"normal", Distribution::Normal},
    {"exponential", Distribution::Exponential},
    {"gamma", Distribution::Gamma},
}};

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

// Standard normal by the Box-Muller transform.
double standard_normal(SplitMix64& rng) {
  const double u1 = rng.uniform01();
  const double u2 = rng.uniform01();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

// Gamma(shape, 1) by Marsaglia and Tsang (2000); shape < 1 via the boost
// Gamma(shape) = Gamma(shape + 1) U^(1/shape).
double standard_gamma(SplitMix64& rng, double shape) {
  if (shape < 1.0) return standard_gamma(rng, shape + 1.0) * std::pow(rng.uniform01(), 1.0 / shape);
  const double d = shape - 1.0 / 3.0;
  const double c = 1.0 / std::sqrt(9.0 * d);
  for (;;) {
    const double x = standard_normal(rng);
    double v = 1.0 + c * x;
    if (v <= 0.0) continue;
    v = v * v * v;
    const double u = rng.uniform01();
    if (std::log(u) < 0.5 * x * x + d - d * v + d * std::log(v)) return d * v;
  }
}

// One draw in microseconds.
double draw_us(const Params& p, SplitMix64& rng) {
  const double m = p.mean_us;
  const double c = p.cov;
  switch (p.distribution) {
    case Distribution::Constant:
      return m;
    case Distribution::Uniform: {
      const double half = std::sqrt(3.0) * c * m;
      return rng.uniform(m - half, m + half);
    }
    case Distribution::Normal:
      for (int attempt = 0; attempt < 1000; ++attempt) {
        const double t = m + c * m * standard_normal(rng);
        if (t >= 0.0) return t;
      }
      return m;  // not reached for any sane C; keeps the draw finite
    case Distribution::Exponential:
      return m * (1.0 - c) - c * m * std::log(rng.uniform01());
    case Distribution::Gamma:
      if (c == 0.0) return m;
      return m * c * c * standard_gamma(rng, 1.0 / (c * c));
  }
  return m;
}

}  // namespace

std::string_view name(Distribution d) {
  for (const auto& [n, v] : kDistributions)
    if (v == d) return n;
  return "?";
}

std::string valid_distribution_names() {
  std::string s;
  for (const auto& [n, v] : kDistributions) {
    if (!s.empty()) s += ", ";
    s += n;
  }
  return s;
}

Distribution parse_distribution(std::string_view text) {
  for (const auto& [n, v] : kDistributions)
    if (iequals(text, n)) return v;
  throw Error("unknown distribution '" + std::string(text) +
              "'; valid: " + valid_distribution_names());
}

std::string_view name(Exec e) { return e == Exec::Spin ? "spin" : "sleep"; }

Exec parse_exec(std::string_view text) {
  if (iequals(text, "spin")) return Exec::Spin;
  if (iequals(text, "sleep")) return Exec::Sleep;
  throw Error("unknown execution '" + std::string(text) + "'; valid: spin, sleep");
}

void Params::validate() const {
  if (!(mean_us > 0.0) || !std::isfinite(mean_us))
    throw Error("synthetic: mean must be > 0 microseconds, got " + std::to_string(mean_us));
  if (!(cov >= 0.0) || !std::isfinite(cov))
    throw Error("synthetic: coefficient of variation must be >= 0, got " + std::to_string(cov));
  if (distribution == Distribution::Uniform && cov > 1.0 / std::sqrt(3.0))
    throw Error(
        "synthetic: uniform needs a coefficient of variation <= 1/sqrt(3) = 0.577 (times >= 0), "
        "got " +
        std::to_string(cov));
  if (distribution == Distribution::Exponential && cov > 1.0)
    throw Error("synthetic: exponential needs a coefficient of variation <= 1, got " +
                std::to_string(cov));
}

std::int64_t iteration_time_ns(const Params& p, Index i) {
  auto rng = SplitMix64::stream(p.seed, static_cast<std::uint64_t>(i));
  const double us = draw_us(p, rng);
  return std::max<std::int64_t>(0, std::llround(us * 1000.0));
}

std::int64_t run_iteration(const Params& p, Index i, Exec exec) {
  const std::int64_t ns = iteration_time_ns(p, i);
  if (exec == Exec::Spin)
    spin_for_ns(ns);
  else
    sleep_for_ns(ns);
  return ns;
}

Bound lower_bound(const Params& p, Index n, int ranks) {
  Bound b;
  std::int64_t total_ns = 0;
  std::int64_t max_ns = 0;
  for (Index i = 0; i < n; ++i) {
    const std::int64_t t = iteration_time_ns(p, i);
    total_ns += t;
    max_ns = std::max(max_ns, t);
  }
  b.total_s = static_cast<double>(total_ns) * 1e-9;
  b.max_s = static_cast<double>(max_ns) * 1e-9;
  b.lower_bound_s = std::max(b.total_s / std::max(ranks, 1), b.max_s);
  return b;
}

double greedy_makespan_s(const Params& p, Index n, int ranks) {
  // The ranks' finish times in a min-heap: the next iteration goes to the
  // rank free first.
  std::priority_queue<std::int64_t, std::vector<std::int64_t>, std::greater<>> free_at;
  for (int r = 0; r < std::max(ranks, 1); ++r) free_at.push(0);
  std::int64_t end = 0;
  for (Index i = 0; i < n; ++i) {
    const std::int64_t t = free_at.top() + iteration_time_ns(p, i);
    free_at.pop();
    free_at.push(t);
    end = std::max(end, t);
  }
  return static_cast<double>(end) * 1e-9;
}

}  // namespace lb4mpi::apps::synthetic
