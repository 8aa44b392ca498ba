#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
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

TEST(Mandelbrot, ThreeLoopWindows) {
  mb::Params base;
  base.width = 32;
  const int steps = 5;
  const double h_min = 0.5;
  double prev_up = 0.0, prev_down = 10.0;
  for (int s = 0; s < steps; ++s) {
    // Loop 0: the base window in every step.
    const mb::Params c = mb::three_loop_params(base, h_min, 0, s, steps);
    EXPECT_EQ(c.x_min, base.x_min);
    EXPECT_EQ(c.y_max, base.y_max);
    // Loop 1 zooms out, loop 2 zooms in; loop 2 is loop 1 backwards.
    const mb::Params up = mb::three_loop_params(base, h_min, 1, s, steps);
    const mb::Params down = mb::three_loop_params(base, h_min, 2, s, steps);
    const double hu = 0.5 * (up.x_max - up.x_min);
    const double hd = 0.5 * (down.x_max - down.x_min);
    EXPECT_GT(hu, prev_up);
    EXPECT_LT(hd, prev_down);
    EXPECT_GT(hu, h_min);
    EXPECT_LT(hu, 2.0);
    EXPECT_DOUBLE_EQ(hu + hd, h_min + 2.0);  // mid-step points: symmetric
    const mb::Params mirror = mb::three_loop_params(base, h_min, 2, steps - 1 - s, steps);
    EXPECT_DOUBLE_EQ(mirror.x_min, up.x_min);
    EXPECT_DOUBLE_EQ(mirror.y_max, up.y_max);
    EXPECT_DOUBLE_EQ(up.x_min, -up.x_max);  // centred on the base window's centre
    EXPECT_EQ(up.width, base.width);
    EXPECT_EQ(up.threshold, base.threshold);
    prev_up = hu;
    prev_down = hd;
  }
  // One step: both moving loops sit half-way.
  const mb::Params one = mb::three_loop_params(base, h_min, 1, 0, 1);
  EXPECT_DOUBLE_EQ(0.5 * (one.x_max - one.x_min), 0.5 * (h_min + 2.0));
  EXPECT_THROW(mb::three_loop_params(base, 0.0, 1, 0, 1), lb4mpi::Error);
  EXPECT_THROW(mb::three_loop_params(base, 3.0, 1, 0, 1), lb4mpi::Error);
  EXPECT_THROW(mb::three_loop_params(base, 0.5, 3, 0, 1), lb4mpi::Error);
  EXPECT_THROW(mb::three_loop_params(base, 0.5, 1, 2, 2), lb4mpi::Error);
}

TEST(Mandelbrot, ThreeLoopImbalanceGrowsWhenZoomingOut) {
  // The c.o.v. of the per-iteration cost (escape counts) of loop 1 rises over
  // the steps; loop 2's falls.
  mb::Params base;
  base.width = 48;
  base.threshold = 300;
  const int steps = 4;
  auto cov = [](const mb::Params& p) {
    std::vector<std::int32_t> r(static_cast<std::size_t>(p.iterations()));
    mb::compute_range(p, 0, r);
    double s = 0, s2 = 0;
    for (auto k : r) {
      s += k;
      s2 += static_cast<double>(k) * k;
    }
    const double n = static_cast<double>(r.size()), m = s / n;
    return std::sqrt(std::max(0.0, s2 / n - m * m)) / m;
  };
  double prev_up = -1.0, prev_down = 1e9;
  for (int s = 0; s < steps; ++s) {
    const double up = cov(mb::three_loop_params(base, 0.5, 1, s, steps));
    const double down = cov(mb::three_loop_params(base, 0.5, 2, s, steps));
    EXPECT_GT(up, prev_up) << s;
    EXPECT_LT(down, prev_down) << s;
    prev_up = up;
    prev_down = down;
  }
}
