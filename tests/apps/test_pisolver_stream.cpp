#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numbers>
#include <vector>

#include "common/mix.hpp"
#include "pisolver_stream/pisolver_stream_kernel.hpp"

namespace ps = lb4mpi::apps::pisolver_stream;
using lb4mpi::Index;

TEST(PiSolver, OneSubstepIsTheListingsTerm) {
  // M = 1: iteration i is the single term 4 / (1 + x^2) h, x = (i + 0.5) h.
  ps::PiParams p;
  p.iterations = 1000;
  p.substeps = 1;
  for (Index i : {Index{0}, Index{1}, Index{499}, Index{999}}) {
    const double h = 1.0 / 1000.0;
    const double x = (static_cast<double>(i) + 0.5) * h;
    EXPECT_DOUBLE_EQ(ps::pi_slice(p, i), 4.0 / (1.0 + x * x) * h);
  }
}

TEST(PiSolver, SlicesAddUpToPi) {
  ps::PiParams p;
  p.iterations = 500;
  p.substeps = 40;
  std::int64_t fixed = 0;
  double plain = 0.0;
  for (Index i = 0; i < p.iterations; ++i) {
    const double v = ps::pi_slice(p, i);
    fixed += ps::to_fixed(v);
    plain += v;
  }
  // Midpoint rule with 20000 sub-steps: error ~ h^2 / 24 * |f'| ~ 1e-10.
  EXPECT_NEAR(ps::from_fixed(fixed), std::numbers::pi, 1e-9);
  EXPECT_NEAR(ps::from_fixed(fixed), plain, 1e-14);
}

TEST(PiSolver, SlicesDecreaseAndAreTheSameEverywhere) {
  // 4 / (1 + x^2) decreases on [0, 1]; a slice's value is a pure function of i.
  ps::PiParams p;
  p.iterations = 64;
  p.substeps = 100;
  double prev = ps::pi_slice(p, 0);
  EXPECT_GT(prev, 0.0);
  for (Index i = 1; i < p.iterations; ++i) {
    const double v = ps::pi_slice(p, i);
    EXPECT_LT(v, prev);
    prev = v;
  }
  EXPECT_EQ(ps::bits_of(ps::pi_slice(p, 17)), ps::bits_of(ps::pi_slice(p, 17)));
}

TEST(PiSolver, FixedPointSumsDoNotDependOnOrder) {
  ps::PiParams p;
  p.iterations = 3000;
  p.substeps = 3;
  std::int64_t forward = 0, backward = 0, strided = 0;
  for (Index i = 0; i < p.iterations; ++i) forward += ps::to_fixed(ps::pi_slice(p, i));
  for (Index i = p.iterations; i-- > 0;) backward += ps::to_fixed(ps::pi_slice(p, i));
  for (Index s = 0; s < 7; ++s)
    for (Index i = s; i < p.iterations; i += 7) strided += ps::to_fixed(ps::pi_slice(p, i));
  EXPECT_EQ(forward, backward);
  EXPECT_EQ(forward, strided);
}

TEST(PiSolver, Validate) {
  ps::PiParams p;
  EXPECT_NO_THROW(p.validate());
  p.iterations = 0;
  EXPECT_THROW(p.validate(), lb4mpi::Error);
  p.iterations = 10;
  p.substeps = 0;
  EXPECT_THROW(p.validate(), lb4mpi::Error);
  p.iterations = Index{1} << 40;
  p.substeps = Index{1} << 20;
  EXPECT_THROW(p.validate(), lb4mpi::Error);
}

TEST(Triad, IterationsAreBlocks) {
  ps::TriadParams p;
  p.elements = 10;
  p.block = 4;
  EXPECT_EQ(p.iterations(), 3);  // 4 + 4 + 2
  p.block = 5;
  EXPECT_EQ(p.iterations(), 2);
  p.block = 1;
  EXPECT_EQ(p.iterations(), 10);  // `003` Listing 5.2: one element per iteration
  p.block = 100;
  EXPECT_EQ(p.iterations(), 1);
}

TEST(Triad, BlockComputesTheTriad) {
  ps::TriadParams p;
  p.elements = 1000;
  p.block = 64;
  const auto e = static_cast<std::size_t>(p.elements);
  std::vector<double> a(e, -1.0), b(e), c(e);
  ps::triad_init(b, c);
  for (std::size_t j = 0; j < e; ++j) {
    EXPECT_EQ(b[j], ps::triad_b(static_cast<Index>(j)));
    EXPECT_EQ(c[j], ps::triad_c(static_cast<Index>(j)));
  }
  // Blocks in any order cover every element once; the last block is short.
  for (Index i = p.iterations(); i-- > 0;) {
    const double sum = ps::triad_block(p, i, a, b, c);
    double expect = 0.0;
    const Index end = std::min((i + 1) * p.block, p.elements);
    for (Index j = i * p.block; j < end; ++j) expect += b[j] + p.scalar * c[j];
    EXPECT_EQ(sum, expect) << "block " << i;
  }
  for (std::size_t j = 0; j < e; ++j) EXPECT_EQ(a[j], b[j] + p.scalar * c[j]) << j;
}

TEST(Triad, BlockTouchesOnlyItsElements) {
  ps::TriadParams p;
  p.elements = 100;
  p.block = 10;
  const auto e = static_cast<std::size_t>(p.elements);
  std::vector<double> a(e, -1.0), b(e), c(e);
  ps::triad_init(b, c);
  ps::triad_block(p, 3, a, b, c);
  for (std::size_t j = 0; j < e; ++j) {
    if (j >= 30 && j < 40)
      EXPECT_EQ(a[j], b[j] + 3.0 * c[j]);
    else
      EXPECT_EQ(a[j], -1.0) << j;
  }
}

TEST(Triad, ChecksumIsTheSameForAnySplit) {
  // The app's checksum: sum of mix_result(i, bits(block sum)) -- whoever runs
  // a block, in whatever order, with fresh or reused arrays.
  ps::TriadParams p;
  p.elements = 5000;
  p.block = 128;
  const auto e = static_cast<std::size_t>(p.elements);
  std::vector<double> a1(e, 0.0), a2(e, 7.0), b(e), c(e);
  ps::triad_init(b, c);
  std::uint64_t s1 = 0, s2 = 0;
  for (Index i = 0; i < p.iterations(); ++i)
    s1 += lb4mpi::apps::mix_result(static_cast<std::uint64_t>(i),
                                   ps::bits_of(ps::triad_block(p, i, a1, b, c)));
  for (Index i = p.iterations(); i-- > 0;)
    s2 += lb4mpi::apps::mix_result(static_cast<std::uint64_t>(i),
                                   ps::bits_of(ps::triad_block(p, i, a2, b, c)));
  EXPECT_EQ(s1, s2);
}

TEST(Triad, Validate) {
  ps::TriadParams p;
  EXPECT_NO_THROW(p.validate());
  p.block = 0;
  EXPECT_THROW(p.validate(), lb4mpi::Error);
  p.block = 4;
  p.elements = 0;
  EXPECT_THROW(p.validate(), lb4mpi::Error);
}
