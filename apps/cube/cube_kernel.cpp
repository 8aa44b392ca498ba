#include "cube_kernel.hpp"

#include <string>

namespace lb4mpi::apps::cube {

void Params::validate(int ranks) const {
  if (nx < ranks) throw Error("--nx must be >= the " + std::to_string(ranks) + " ranks (slabs along x), got " + std::to_string(nx));
  if (ny < 1) throw Error("--ny must be >= 1, got " + std::to_string(ny));
  if (nz < 1) throw Error("--nz must be >= 1, got " + std::to_string(nz));
  if (max_iter < 1) throw Error("--max-iter must be >= 1, got " + std::to_string(max_iter));
}

double field(const Params& p, Index /*x*/, int /*y*/, int z) {
  return 0.6 * ((static_cast<double>(z) + 0.5) / p.nz - 0.5);
}

std::int32_t escape(const Params& p, Index x, int y, double v) {
  const double cr = -2.0 + 2.6 * (static_cast<double>(x) + 0.5) / p.nx;
  const double ci = -1.3 + 2.6 * (static_cast<double>(y) + 0.5) / p.ny;
  double zr = v, zi = 0.0;
  std::int32_t k = 0;
  while (k < p.max_iter && zr * zr + zi * zi <= 4.0) {
    const double t = zr * zr - zi * zi + cr;
    zi = 2.0 * zr * zi + ci;
    zr = t;
    ++k;
  }
  return k;
}

}  // namespace lb4mpi::apps::cube
