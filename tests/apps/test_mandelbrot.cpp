#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "common/mix.hpp"
#include "mandelbrot/mandelbrot_kernel.hpp"

namespace mb = lb4mpi::apps::mandelbrot;

TEST(Mandelbrot, OriginIsInTheSet) {
  EXPECT_EQ(mb::escape_count(0.0, 0.0, 1000), 1000);
  EXPECT_EQ(mb::escape_count(0.0, 0.0, 7), 7);
}

TEST(Mandelbrot, FarPointEscapesAtOnce) {
  // z1 = c = 2 + 2i has |z1| = 2.83 >= 2: one step.
  EXPECT_EQ(mb::escape_count(2.0, 2.0, 1000), 1);
  EXPECT_EQ(mb::escape_count(-2.0, -2.0, 1000), 1);
}

TEST(Mandelbrot, KnownPoints) {
  // c = -1: z = -1, 0, -1, 0, ... bounded.
  EXPECT_EQ(mb::escape_count(-1.0, 0.0, 500), 500);
  // c = 1: z = 1, 2 -> |z| >= 2 after the 2nd step.
  EXPECT_EQ(mb::escape_count(1.0, 0.0, 500), 2);
  // c = 1.5: z1 = 1.5 < 2, z2 = 1.5^4 + 1.5 = 6.56: two steps.
  EXPECT_EQ(mb::escape_count(1.5, 0.0, 500), 2);
}

TEST(Mandelbrot, GridMapsIndexToPoint) {
  mb::Params p;
  p.width = 8;
  // i = x * W + y; the grid starts at (x_min, y_min) with step (max-min)/W.
  auto c = mb::point_of(p, 0);
  EXPECT_DOUBLE_EQ(c.re, -2.0);
  EXPECT_DOUBLE_EQ(c.im, -2.0);
  c = mb::point_of(p, 4 * 8 + 4);
  EXPECT_DOUBLE_EQ(c.re, 0.0);
  EXPECT_DOUBLE_EQ(c.im, 0.0);
  c = mb::point_of(p, 1);
  EXPECT_DOUBLE_EQ(c.re, -2.0);
  EXPECT_DOUBLE_EQ(c.im, -1.5);
  EXPECT_EQ(mb::iteration(p, 0), 1);                    // -2-2i escapes at once
  EXPECT_EQ(mb::iteration(p, 4 * 8 + 4), p.threshold);  // the origin
}

TEST(Mandelbrot, HalvesEqualTheWhole) {
  mb::Params p;
  p.width = 64;
  p.threshold = 200;
  const auto n = static_cast<std::size_t>(p.iterations());
  std::vector<std::int32_t> whole(n), halves(n);
  mb::compute_range(p, 0, whole);
  const std::size_t h = n / 2 + 3;
  mb::compute_range(p, 0, std::span(halves).first(h));
  mb::compute_range(p, static_cast<lb4mpi::Index>(h), std::span(halves).subspan(h));
  EXPECT_EQ(whole, halves);

  // The order-independent checksum agrees too, whatever the split.
  std::uint64_t a = 0, b = 0;
  for (std::size_t i = 0; i < n; ++i)
    a += lb4mpi::apps::mix_result(i, static_cast<std::uint64_t>(whole[i]));
  for (std::size_t i = n; i-- > 0;)
    b += lb4mpi::apps::mix_result(i, static_cast<std::uint64_t>(halves[i]));
  EXPECT_EQ(a, b);
}

TEST(Mandelbrot, ImbalancedWork) {
  // The loop is imbalanced: some points take the full threshold, most escape fast.
  mb::Params p;
  p.width = 64;
  p.threshold = 100;
  std::vector<std::int32_t> r(static_cast<std::size_t>(p.iterations()));
  mb::compute_range(p, 0, r);
  int inside = 0, fast = 0;
  for (auto k : r) {
    inside += k == p.threshold;
    fast += k <= 3;
  }
  EXPECT_GT(inside, 100);
  EXPECT_GT(fast, 1000);
}

TEST(Mandelbrot, ColourImage) {
  mb::Params p;
  p.width = 16;
  std::vector<std::int32_t> r(static_cast<std::size_t>(p.iterations()));
  mb::compute_range(p, 0, r);
  std::vector<std::uint8_t> rgb(3 * r.size());
  mb::colour_image(p, r, rgb);
  // The origin (x = 8, y = 8) is black; picture row = W - 1 - y = 7, column 8.
  const std::size_t at = 3 * (7 * 16 + 8);
  EXPECT_EQ(rgb[at], 0);
  EXPECT_EQ(rgb[at + 1], 0);
  EXPECT_EQ(rgb[at + 2], 0);
  // The corner -2-2i (x = 0, y = 0: bottom-left) is not.
  const std::size_t corner = 3 * (15 * 16 + 0);
  EXPECT_GT(rgb[corner + 2], 0);
}

TEST(Mandelbrot, Validate) {
  mb::Params p;
  EXPECT_NO_THROW(p.validate());
  p.width = 0;
  EXPECT_THROW(p.validate(), lb4mpi::Error);
  p.width = 4;
  p.threshold = 0;
  EXPECT_THROW(p.validate(), lb4mpi::Error);
}
