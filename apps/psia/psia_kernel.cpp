#include "psia_kernel.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>

#include "../common/mix.hpp"

namespace lb4mpi::apps::psia {
namespace {

constexpr double kPi = std::numbers::pi;

Vec3 operator+(Vec3 a, Vec3 b) { return {a.x + b.x, a.y + b.y, a.z + b.z}; }
Vec3 operator-(Vec3 a, Vec3 b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
Vec3 operator*(double s, Vec3 a) { return {s * a.x, s * a.y, s * a.z}; }
double dot(Vec3 a, Vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
Vec3 normalized(Vec3 a) { return (1.0 / std::sqrt(dot(a, a))) * a; }

struct Oriented {
  Vec3 p, n;
};

// A sphere of radius R(1 + a sin(k theta) cos(m phi)) around `centre`.
// Its outward normal is  r d - r_theta e_theta - (r_phi / sin theta) e_phi.
Oriented deformed_sphere(SplitMix64& rng, Vec3 centre, double R, double a, int k, int m) {
  const double theta = std::acos(1.0 - 2.0 * rng.uniform01());  // uniform on the sphere
  const double phi = 2.0 * kPi * rng.uniform01();
  const double st = std::sin(theta), ct = std::cos(theta);
  const double sp = std::sin(phi), cp = std::cos(phi);
  const double skt = std::sin(k * theta), ckt = std::cos(k * theta);
  const double smp = std::sin(m * phi), cmp = std::cos(m * phi);
  const double r = R * (1.0 + a * skt * cmp);
  const double r_theta = R * a * k * ckt * cmp;
  const double r_phi_over_st = -R * a * m * smp * (skt / st);
  const Vec3 d{st * cp, st * sp, ct};
  const Vec3 e_theta{ct * cp, ct * sp, -st};
  const Vec3 e_phi{-sp, cp, 0.0};
  return {centre + r * d, normalized(r * d - r_theta * e_theta - r_phi_over_st * e_phi)};
}

// A torus of radii R > r around `centre`, its axis tilted by `tilt` about x.
Oriented tilted_torus(SplitMix64& rng, Vec3 centre, double R, double r, double tilt) {
  const double u = 2.0 * kPi * rng.uniform01();
  const double v = 2.0 * kPi * rng.uniform01();
  const Vec3 n{std::cos(v) * std::cos(u), std::cos(v) * std::sin(u), std::sin(v)};
  const Vec3 p{(R + r * std::cos(v)) * std::cos(u), (R + r * std::cos(v)) * std::sin(u),
               r * std::sin(v)};
  const double c = std::cos(tilt), s = std::sin(tilt);
  auto rotate = [&](Vec3 w) { return Vec3{w.x, c * w.y - s * w.z, s * w.y + c * w.z}; };
  return {centre + rotate(p), rotate(n)};
}

}  // namespace

Cloud make_cloud(Index n, std::uint64_t seed) {
  if (n < 0) throw Error("psia: the cloud needs >= 0 points, got " + std::to_string(n));
  Cloud cloud;
  cloud.points.reserve(static_cast<std::size_t>(n));
  cloud.normals.reserve(static_cast<std::size_t>(n));
  for (Index j = 0; j < n; ++j) {
    auto rng = SplitMix64::stream(seed, static_cast<std::uint64_t>(j));
    const double shape = rng.uniform01();
    Oriented o;
    if (shape < 0.45)
      o = deformed_sphere(rng, {0.0, 0.0, 0.0}, 1.0, 0.15, 3, 4);
    else if (shape < 0.7)
      o = deformed_sphere(rng, {2.4, 0.6, -0.3}, 0.6, 0.25, 2, 5);
    else
      o = tilted_torus(rng, {-2.3, 0.2, 0.5}, 1.0, 0.35, 0.6);
    cloud.points.push_back(o.p);
    cloud.normals.push_back(o.n);
  }
  return cloud;
}

void Params::validate() const {
  if (image_width < 1 || image_width > 4096)
    throw Error("psia: image width must be in [1, 4096], got " + std::to_string(image_width));
  if (!(bin_size > 0.0) || !std::isfinite(bin_size))
    throw Error("psia: bin size must be > 0, got " + std::to_string(bin_size));
  if (!(support_angle_deg >= 0.0 && support_angle_deg <= 180.0))
    throw Error("psia: support angle must be in [0, 180] degrees, got " +
                std::to_string(support_angle_deg));
}

Index spin_image(const Cloud& cloud, Index i, const Params& p, std::span<std::uint32_t> image) {
  if (image.size() != p.bins()) throw Error("psia: image buffer of the wrong size");
  if (i < 0 || i >= cloud.size())
    throw Error("psia: point " + std::to_string(i) + " is not in the cloud");
  std::fill(image.begin(), image.end(), 0U);
  const Vec3 P = cloud.points[static_cast<std::size_t>(i)];
  const Vec3 n = cloud.normals[static_cast<std::size_t>(i)];
  // acos(n . n_X) <= S  <=>  n . n_X >= cos S, for S in [0, pi].
  const double cos_support = std::cos(p.support_angle_deg * kPi / 180.0);
  const double half = 0.5 * p.image_width;
  const double inv_bin = 1.0 / p.bin_size;
  const double w = p.image_width;
  const std::size_t width = static_cast<std::size_t>(p.image_width);
  const std::size_t count = cloud.points.size();
  Index in_angle = 0;
  for (std::size_t j = 0; j < count; ++j) {
    if (dot(n, cloud.normals[j]) < cos_support) continue;
    ++in_angle;
    const Vec3 d = cloud.points[j] - P;
    const double beta = dot(n, d);
    const double alpha = std::sqrt(std::max(0.0, dot(d, d) - beta * beta));
    const double k = std::floor(half - beta * inv_bin);
    const double l = std::floor(alpha * inv_bin);
    if (k >= 0.0 && k < w && l >= 0.0 && l < w)
      ++image[static_cast<std::size_t>(k) * width + static_cast<std::size_t>(l)];
  }
  return in_angle;
}

std::uint64_t image_hash(std::span<const std::uint32_t> image) {
  std::uint64_t h = 0x243f6a8885a308d3ULL ^ image.size();
  for (std::uint32_t bin : image) h = fmix64(h + bin + 0x9e3779b97f4a7c15ULL);
  return h;
}

}  // namespace lb4mpi::apps::psia
