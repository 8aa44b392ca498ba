// Spin images of a 3-D point cloud (the PSIA kernel of `001` Listing 2). Pure
// functions, no MPI.
//
// Loop iteration i computes the spin image of point i of the cloud: a W x W
// histogram of the cloud's points X, seen from the oriented point (P, n):
//   beta  = n . (X - P)                       signed distance along the normal
//   alpha = sqrt(|X - P|^2 - beta^2)          distance from the normal's line
//   bin (k, l) = (floor(W/2 - beta/B), floor(alpha/B))
// counting only the points whose normal is within the support angle S of n
// (acos(n . n_X) <= S). `001` Listing 2 writes the row as ceil((W/2 - beta)/B),
// which mixes bins and lengths; here W/2 is in bins (the image is centred on
// the tangent plane, as in Johnson's spin images) and bins are floored.
#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "lb4mpi/types.hpp"

namespace lb4mpi::apps::psia {

struct Vec3 {
  double x = 0, y = 0, z = 0;
};

/// An oriented point cloud: points[j] with unit normal normals[j].
struct Cloud {
  std::vector<Vec3> points;
  std::vector<Vec3> normals;
  [[nodiscard]] Index size() const { return static_cast<Index>(points.size()); }
};

/// A deterministic synthetic cloud of n oriented points on two deformed
/// spheres and a tilted torus. Point j is a pure function of (seed, j): the
/// cloud of n + 1 points extends the cloud of n points.
Cloud make_cloud(Index n, std::uint64_t seed);

struct Params {
  int image_width = 8;              ///< W: images are W x W bins
  double bin_size = 0.1;            ///< B: side of a bin, in the cloud's length unit
  double support_angle_deg = 60.0;  ///< S: the largest angle between the normals [degrees]

  /// Throws lb4mpi::Error naming the bad parameter.
  void validate() const;
  [[nodiscard]] std::size_t bins() const {
    return static_cast<std::size_t>(image_width) * static_cast<std::size_t>(image_width);
  }
};

/// The spin image of point i of `cloud` against all its points, row-major
/// (bin (k, l) at k * W + l), into `image` (size W^2; overwritten).
/// Returns how many points were within the support angle (the ones whose
/// bin was computed: the part of the work that varies from image to image).
Index spin_image(const Cloud& cloud, Index i, const Params& p, std::span<std::uint32_t> image);

/// The work model of an image in the simulation build (apps/common/work.hpp,
/// docs/EXPERIMENTS.md "Work models"): its time on the machine the constants
/// were measured on, from the cloud's size and the points within the support
/// angle (spin_image's result). bench/bench_kernels.cpp measures them.
inline constexpr double kSecondsPerPoint = 0.9e-9;     ///< every point: the normals' dot product
inline constexpr double kSecondsPerInAngle = 14.9e-9;  ///< a point within the support angle: its bin
inline double modelled_seconds(Index points, Index in_angle) {
  return kSecondsPerPoint * static_cast<double>(points) + kSecondsPerInAngle * static_cast<double>(in_angle);
}

/// An order-sensitive 64-bit hash of an image: the result of an iteration.
std::uint64_t image_hash(std::span<const std::uint32_t> image);

}  // namespace lb4mpi::apps::psia
