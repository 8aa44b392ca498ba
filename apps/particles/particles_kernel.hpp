// The kernel of lb4mpi-particles: particles as objects that are not
// trivially copyable (a label, a variable number of charges), each advanced
// for its own number of time steps in a static field. Particles near x = 0
// take many steps, those far out few, so the first ranks' blocks carry most
// of the work. Pure functions, no MPI.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "lb4mpi/types.hpp"

namespace lb4mpi::apps::particles {

struct Params {
  Index count = 4000;      ///< N particles
  std::int64_t steps = 400;  ///< mean time steps of a particle
  std::uint64_t seed = 1;
  /// Throws lb4mpi::Error naming the flag and its valid range.
  void validate(int ranks) const;
};

struct Particle {
  std::uint64_t id = 0;
  std::array<double, 3> x{};
  std::array<double, 3> v{};
  std::vector<double> charges;  ///< 1 to 8 of them
  std::string label;
};

/// Particle i, as its owner creates it.
Particle make_particle(const Params& p, Index i);
/// The time steps particle `q` takes (depends on its position).
std::int64_t steps_of(const Params& p, const Particle& q);
/// Advances a copy of `q` for steps_of(q) steps; returns its final energy.
double simulate(const Params& p, const Particle& q);
/// The bit pattern of a double (what the checksum mixes).
std::uint64_t bits_of(double v);

}  // namespace lb4mpi::apps::particles
