// The kernel of lb4mpi-cube: a 3-D field over a cube of NX x NY x NZ cells,
// distributed in slabs along x, whose cells cost very different amounts of
// work. Cell (x, y, z) iterates z_{k+1} = z_k^2 + c from z_0 = (v, 0), where
// c depends on x and y (a Mandelbrot plane) and v, the cell's value in the
// input field, on z; its result is the iteration count at escape (|z| > 2)
// or max_iter. Cells inside the set cost max_iter iterations, those far out
// one or two: the slabs in the middle of x carry most of the work. Pure
// functions, no MPI.
#pragma once
#include <cstdint>

#include "lb4mpi/types.hpp"

namespace lb4mpi::apps::cube {

struct Params {
  int nx = 96;
  int ny = 48;
  int nz = 48;
  int max_iter = 500;
  /// Throws lb4mpi::Error naming the flag and its valid range.
  void validate(int ranks) const;
};

/// The input field's value at cell (x, y, z).
double field(const Params& p, Index x, int y, int z);
/// The cell's result from its position and its field value.
std::int32_t escape(const Params& p, Index x, int y, double v);
/// A global number of the cell (for the checksum).
inline std::uint64_t cell_id(const Params& p, Index x, int y, int z) {
  return (static_cast<std::uint64_t>(x) * static_cast<std::uint64_t>(p.ny) + static_cast<std::uint64_t>(y)) *
             static_cast<std::uint64_t>(p.nz) + static_cast<std::uint64_t>(z);
}

}  // namespace lb4mpi::apps::cube
