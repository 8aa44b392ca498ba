// The kernel of lb4mpi-seismic, `002`'s use case: seismic modelling, one
// shot per task. A shot simulates a 3-D acoustic wave (Eq. 12, the wave
// equation without density: lap u = u_tt / c^2 + s(t)) from a source near
// the surface through a layered velocity model c(x, y, z) by finite
// differences, second order in time and space, with absorbing sponge
// borders, and records the pressure at a grid of receivers on the surface
// at every time step. Its result is a checksum of the receivers' traces.
// Pure functions, no MPI: every rank computes a shot bit for bit alike.
#pragma once
#include <cstdint>
#include <utility>
#include <vector>

#include "lb4mpi/types.hpp"

namespace lb4mpi::apps::seismic {

struct Params {
  int nx = 40, ny = 40, nz = 40;  ///< grid points (x, y horizontal; z depth)
  int time_steps = 150;           ///< steps of one shot
  int receivers = 8;              ///< receivers per side of the surface grid (receivers^2 traces)
  Index shots = 96;               ///< tasks of the loop
  /// Throws lb4mpi::Error naming the flag and its valid range.
  void validate(int ranks) const;
};

/// What a rank owns of a shot: where its source is (grid indices).
struct Shot {
  std::int32_t sx = 0, sy = 0, sz = 0, pad = 0;
};

/// Shot i's source: the shots tile the surface in a square pattern, two
/// points below it.
Shot shot_of(const Params& p, Index i);

/// The velocity model and the constants of the scheme, the same on every
/// rank: c^2 dt^2 / h^2 per point, the sponge's damping, the source wavelet.
struct Model {
  Params p;
  double h = 10.0;                  ///< grid spacing [m]
  double dt = 0.0;                  ///< time step [s] (stable: c_max dt / h = 0.45 / sqrt 3)
  std::vector<float> courant2;      ///< c^2 dt^2 / h^2 per point
  std::vector<float> damping;       ///< per point, 1 inside, < 1 in the sponge
  std::vector<float> wavelet;       ///< s(t) * c_source^2 dt^2 per step (Ricker, 25 Hz)
};
Model make_model(const Params& p);
/// c(x, y, z) [m/s]: four layers from 1500 to 3500 m/s with depth and a
/// faster body in the middle.
double velocity(const Params& p, int x, int y, int z);

/// Runs shot `s` (Eq. 12 by finite differences): `traces` gets the pressure
/// at every receiver after every time step, [step][receiver] with receiver
/// ry * receivers + rx. `scratch` (the two wave fields) is reused.
void simulate(const Model& m, const Shot& s, std::vector<float>& scratch, std::vector<float>& traces);
/// Receiver r's grid position (x, y) on the surface.
std::pair<int, int> receiver_at(const Params& p, int r);
/// The checksum of a shot's traces (bit for bit).
std::uint64_t checksum(const std::vector<float>& traces);
/// simulate() and checksum(): a shot's result.
std::uint64_t run_shot(const Model& m, const Shot& s, std::vector<float>& scratch, std::vector<float>& traces);

}  // namespace lb4mpi::apps::seismic
