// The kernel of lb4mpi-seismic: see seismic_kernel.hpp.
#include "seismic_kernel.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <numbers>
#include <string>

#include "common/mix.hpp"

namespace lb4mpi::apps::seismic {

namespace {

constexpr double kCourant = 0.45;     // c_max dt / h * sqrt(3): below the 3-D limit 1
constexpr double kPeakHz = 25.0;      // the Ricker wavelet's peak frequency
constexpr int kSourceDepth = 2;       // sources and receivers: grid points below the surface
constexpr double kMaxVelocity = 4000.0;

int sponge_width(const Params& p) { return std::max(2, std::min({8, p.nx / 5, p.ny / 5, p.nz / 5})); }

std::size_t at(const Params& p, int x, int y, int z) {
  return (static_cast<std::size_t>(z) * static_cast<std::size_t>(p.ny) + static_cast<std::size_t>(y)) *
             static_cast<std::size_t>(p.nx) +
         static_cast<std::size_t>(x);
}

}  // namespace

void Params::validate(int /*ranks*/) const {
  const auto dim = [](const char* flag, int v) {
    if (v < 12 || v > 512) throw Error(std::string(flag) + " must be in [12, 512] grid points, got " + std::to_string(v));
  };
  dim("--nx", nx);
  dim("--ny", ny);
  dim("--nz", nz);
  if (time_steps < 1) throw Error("--time-steps must be >= 1, got " + std::to_string(time_steps));
  const int room = std::min(nx, ny) - 2 * sponge_width(*this);
  if (receivers < 1 || receivers > room) {
    throw Error("--receivers must be in [1, " + std::to_string(room) + "] (per side, inside the sponge of a " +
                std::to_string(nx) + " x " + std::to_string(ny) + " surface), got " + std::to_string(receivers));
  }
  if (shots < 1) throw Error("--shots must be >= 1, got " + std::to_string(shots));
}

Shot shot_of(const Params& p, Index i) {
  const int w = sponge_width(p);
  const auto side = static_cast<Index>(std::ceil(std::sqrt(static_cast<double>(p.shots))));
  const auto place = [&](Index k, int n) {
    const int room = n - 2 * w - 2;
    return w + 1 + static_cast<int>((2 * k + 1) * room / (2 * side));
  };
  Shot s;
  s.sx = place(i % side, p.nx);
  s.sy = place((i / side) % side, p.ny);
  s.sz = kSourceDepth;
  return s;
}

double velocity(const Params& p, int x, int y, int z) {
  const double depth = static_cast<double>(z) / (p.nz - 1);
  double c = depth < 0.25 ? 1500.0 : depth < 0.5 ? 2200.0 : depth < 0.75 ? 2900.0 : 3500.0;
  // A faster body (a salt dome, say) in the middle.
  const double dx = (x - 0.5 * (p.nx - 1)) / p.nx, dy = (y - 0.5 * (p.ny - 1)) / p.ny,
               dz = (z - 0.6 * (p.nz - 1)) / p.nz;
  if (dx * dx + dy * dy + dz * dz < 0.02) c = kMaxVelocity;
  return c;
}

Model make_model(const Params& p) {
  Model m;
  m.p = p;
  m.dt = kCourant * m.h / (kMaxVelocity * std::sqrt(3.0));
  const std::size_t n = at(p, 0, 0, p.nz);
  m.courant2.resize(n);
  m.damping.resize(n);
  const int w = sponge_width(p);
  for (int z = 0; z < p.nz; ++z)
    for (int y = 0; y < p.ny; ++y)
      for (int x = 0; x < p.nx; ++x) {
        const double c = velocity(p, x, y, z);
        m.courant2[at(p, x, y, z)] = static_cast<float>(c * c * m.dt * m.dt / (m.h * m.h));
        // Distance to the nearest absorbing side (the surface z = 0 reflects: a free surface).
        const int d = std::min({x, y, p.nx - 1 - x, p.ny - 1 - y, p.nz - 1 - z});
        const double k = d < w ? 0.04 * (w - d) : 0.0;
        m.damping[at(p, x, y, z)] = static_cast<float>(std::exp(-k * k));
      }
  // s(t): a Ricker wavelet, scaled by the source point's c^2 dt^2 (Eq. 12:
  // u_tt = c^2 (lap u - s)), so that u is of order one.
  m.wavelet.resize(static_cast<std::size_t>(p.time_steps));
  const double t0 = 1.0 / kPeakHz;
  for (int t = 0; t < p.time_steps; ++t) {
    const double a = std::numbers::pi * kPeakHz * (t * m.dt - t0);
    m.wavelet[static_cast<std::size_t>(t)] = static_cast<float>((1.0 - 2.0 * a * a) * std::exp(-a * a));
  }
  return m;
}

std::pair<int, int> receiver_at(const Params& p, int r) {
  const int w = sponge_width(p);
  const int rx = r % p.receivers, ry = r / p.receivers;
  return {w + (2 * rx + 1) * (p.nx - 2 * w) / (2 * p.receivers), w + (2 * ry + 1) * (p.ny - 2 * w) / (2 * p.receivers)};
}

void simulate(const Model& m, const Shot& s, std::vector<float>& scratch, std::vector<float>& traces) {
  const Params& p = m.p;
  const std::size_t n = m.courant2.size();
  scratch.assign(2 * n, 0.0f);
  float* prev = scratch.data();
  float* cur = scratch.data() + n;
  // Signed strides: c[x - sy] must not wrap around (x - sy < 0 near the borders of a row).
  const std::ptrdiff_t sx = 1, sy = p.nx, sz = sy * p.ny;
  const std::size_t src = at(p, s.sx, s.sy, s.sz);
  const float source_scale = m.courant2[src];
  const int receivers = p.receivers * p.receivers;
  std::vector<std::size_t> rec(static_cast<std::size_t>(receivers));
  for (int r = 0; r < receivers; ++r) {
    const auto [x, y] = receiver_at(p, r);
    rec[static_cast<std::size_t>(r)] = at(p, x, y, kSourceDepth);
  }
  traces.resize(static_cast<std::size_t>(p.time_steps) * rec.size());
  float* trace = traces.data();
  for (int t = 0; t < p.time_steps; ++t) {
    // u(t+1) = 2 u(t) - u(t-1) + c^2 dt^2 lap u(t) - c^2 dt^2 s(t), damped in the sponge;
    // written over u(t-1).
    for (int z = 1; z < p.nz - 1; ++z)
      for (int y = 1; y < p.ny - 1; ++y) {
        const std::size_t row = at(p, 0, y, z);
        const float* c = cur + row;
        float* o = prev + row;
        const float* k = m.courant2.data() + row;
        const float* d = m.damping.data() + row;
        for (std::ptrdiff_t x = 1; x < p.nx - 1; ++x) {
          const float lap = c[x - sx] + c[x + sx] + c[x - sy] + c[x + sy] + c[x - sz] + c[x + sz] - 6.0f * c[x];
          o[x] = d[x] * (2.0f * c[x] - d[x] * o[x] + k[x] * lap);
        }
      }
    prev[src] -= source_scale * m.wavelet[static_cast<std::size_t>(t)];
    std::swap(prev, cur);
    for (std::size_t r : rec) *trace++ = cur[r];  // the receivers record u(t+1)
  }
}

std::uint64_t checksum(const std::vector<float>& traces) {
  std::uint64_t h = fmix64(traces.size() + 0x5E15u);
  for (float v : traces) h = fmix64(h ^ std::bit_cast<std::uint32_t>(v));
  return h;
}

std::uint64_t run_shot(const Model& m, const Shot& s, std::vector<float>& scratch, std::vector<float>& traces) {
  simulate(m, s, scratch, traces);
  return checksum(traces);
}

}  // namespace lb4mpi::apps::seismic
