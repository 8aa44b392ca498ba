#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <numeric>
#include <set>
#include <vector>

#include "psia/psia_kernel.hpp"

namespace psia = lb4mpi::apps::psia;

TEST(Psia, CloudIsDeterministicAndPrefixStable) {
  const auto a = psia::make_cloud(500, 7);
  const auto b = psia::make_cloud(500, 7);
  const auto c = psia::make_cloud(800, 7);
  const auto d = psia::make_cloud(500, 8);
  ASSERT_EQ(a.size(), 500);
  bool differs = false;
  for (std::size_t j = 0; j < 500; ++j) {
    EXPECT_EQ(a.points[j].x, b.points[j].x);
    EXPECT_EQ(a.normals[j].z, b.normals[j].z);
    EXPECT_EQ(a.points[j].y, c.points[j].y);  // point j depends on (seed, j) only
    differs = differs || a.points[j].x != d.points[j].x;
  }
  EXPECT_TRUE(differs);
}

TEST(Psia, NormalsAreUnit) {
  const auto cloud = psia::make_cloud(2000, 1);
  for (const auto& n : cloud.normals)
    EXPECT_NEAR(std::sqrt(n.x * n.x + n.y * n.y + n.z * n.z), 1.0, 1e-9);
}

TEST(Psia, NormalsPointOutward) {
  // On the deformed sphere around the origin (the only shape with |x| < 0.9), the normal
  // is close to the radial direction: n . p > 0.
  const auto cloud = psia::make_cloud(3000, 3);
  int checked = 0;
  for (std::size_t j = 0; j < cloud.points.size(); ++j) {
    const auto& p = cloud.points[j];
    const double r = std::sqrt(p.x * p.x + p.y * p.y + p.z * p.z);
    if (r > 1.3 || p.x < -0.9 || p.x > 0.9) continue;
    const auto& n = cloud.normals[j];
    EXPECT_GT((n.x * p.x + n.y * p.y + n.z * p.z) / r, 0.3) << "point " << j;
    ++checked;
  }
  EXPECT_GT(checked, 500);
}

TEST(Psia, ImagesAreDeterministicAndNonTrivial) {
  const auto cloud = psia::make_cloud(3000, 1);
  psia::Params p;
  std::vector<std::uint32_t> img(p.bins()), again(p.bins());
  std::set<std::uint64_t> hashes;
  for (lb4mpi::Index i = 0; i < 20; ++i) {
    psia::spin_image(cloud, i, p, img);
    psia::spin_image(cloud, i, p, again);
    EXPECT_EQ(img, again);
    const auto total = std::accumulate(img.begin(), img.end(), std::uint64_t{0});
    EXPECT_GE(total, 5U) << "image " << i;  // the point itself and its neighbours
    EXPECT_LT(total, 3000U);
    const auto nonzero =
        std::count_if(img.begin(), img.end(), [](std::uint32_t v) { return v > 0; });
    EXPECT_GE(nonzero, 3) << "image " << i;
    hashes.insert(psia::image_hash(img));
  }
  EXPECT_GE(hashes.size(), 19U);  // images differ from point to point
}

TEST(Psia, PointCountsItselfAtTheCentreRow) {
  // A cloud of one point: beta = alpha = 0 -> bin (floor(W/2), 0).
  const auto cloud = psia::make_cloud(1, 5);
  psia::Params p;
  p.image_width = 5;
  std::vector<std::uint32_t> img(p.bins());
  psia::spin_image(cloud, 0, p, img);
  EXPECT_EQ(img[2 * 5 + 0], 1U);
  EXPECT_EQ(std::accumulate(img.begin(), img.end(), 0U), 1U);
}

TEST(Psia, SupportAngleFilters) {
  const auto cloud = psia::make_cloud(2000, 2);
  psia::Params narrow, wide;
  narrow.support_angle_deg = 10;
  wide.support_angle_deg = 180;
  wide.image_width = narrow.image_width = 40;
  std::vector<std::uint32_t> a(narrow.bins()), b(wide.bins());
  psia::spin_image(cloud, 11, narrow, a);
  psia::spin_image(cloud, 11, wide, b);
  const auto sa = std::accumulate(a.begin(), a.end(), 0U);
  const auto sb = std::accumulate(b.begin(), b.end(), 0U);
  EXPECT_LT(sa, sb);
  for (std::size_t k = 0; k < a.size(); ++k) EXPECT_LE(a[k], b[k]);
}

TEST(Psia, Validate) {
  psia::Params p;
  EXPECT_NO_THROW(p.validate());
  p.bin_size = 0;
  EXPECT_THROW(p.validate(), lb4mpi::Error);
  p = {};
  p.image_width = 0;
  EXPECT_THROW(p.validate(), lb4mpi::Error);
  p = {};
  p.support_angle_deg = 181;
  EXPECT_THROW(p.validate(), lb4mpi::Error);
  EXPECT_THROW(psia::make_cloud(-1, 1), lb4mpi::Error);
}
