#include "particles_kernel.hpp"

#include <cmath>
#include <cstring>

#include "common/mix.hpp"

namespace lb4mpi::apps::particles {

void Params::validate(int ranks) const {
  if (count < ranks) throw Error("--particles must be >= the " + std::to_string(ranks) + " ranks, got " + std::to_string(count));
  if (steps < 1) throw Error("--steps must be >= 1, got " + std::to_string(steps));
}

Particle make_particle(const Params& p, Index i) {
  SplitMix64 g = SplitMix64::stream(p.seed, static_cast<std::uint64_t>(i));
  Particle q;
  q.id = static_cast<std::uint64_t>(i);
  q.x = {(static_cast<double>(i) + g.uniform01()) / static_cast<double>(p.count), g.uniform(-1, 1), g.uniform(-1, 1)};
  q.v = {g.uniform(-0.1, 0.1), g.uniform(-0.1, 0.1), g.uniform(-0.1, 0.1)};
  const auto n = static_cast<std::size_t>(1 + g.next() % 8);
  for (std::size_t k = 0; k < n; ++k) q.charges.push_back(g.uniform(-1, 1));
  q.label = "particle-" + std::to_string(i);
  return q;
}

std::int64_t steps_of(const Params& p, const Particle& q) {
  // Mean about `steps` over x in [0, 1): 4 e^{-4x} integrates to ~1.
  return std::max<std::int64_t>(1, std::llround(static_cast<double>(p.steps) * 4.0 * std::exp(-4.0 * q.x[0])));
}

double simulate(const Params& p, const Particle& q) {
  double charge = 0.0;
  for (double c : q.charges) charge += c;
  std::array<double, 3> x = q.x, v = q.v;
  const double dt = 1e-3;
  const std::int64_t n = steps_of(p, q);
  for (std::int64_t s = 0; s < n; ++s) {
    // A harmonic well plus a charge-dependent swirl (symplectic Euler).
    const std::array<double, 3> f = {-x[0] + charge * x[1], -x[1] - charge * x[0], -0.5 * x[2]};
    for (int d = 0; d < 3; ++d) v[static_cast<std::size_t>(d)] += dt * f[static_cast<std::size_t>(d)];
    for (int d = 0; d < 3; ++d) x[static_cast<std::size_t>(d)] += dt * v[static_cast<std::size_t>(d)];
  }
  double e = 0.0;
  for (int d = 0; d < 3; ++d) {
    const auto k = static_cast<std::size_t>(d);
    e += 0.5 * v[k] * v[k] + 0.5 * x[k] * x[k];
  }
  return e + static_cast<double>(q.label.size()) * 1e-9;
}

std::uint64_t bits_of(double v) {
  std::uint64_t b = 0;
  std::memcpy(&b, &v, sizeof b);
  return b;
}

}  // namespace lb4mpi::apps::particles
