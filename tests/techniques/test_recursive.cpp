// The recursive forms (what a coordinator computes, one step after the other)
// and the non-Table-2 facts of each technique.
#include <gtest/gtest.h>

#include <cmath>
#include <utility>

#include "helpers.hpp"

namespace lb4mpi::test {
namespace {

TEST(Recursive, GSSIsCeilOfRemainingOverP) {
  for (const LoopShape shape :
       {LoopShape{1000, 4}, LoopShape{10007, 7}, LoopShape{5, 1}, LoopShape{3, 16}}) {
    ChunkCalculator calc(Technique::GSS, shape, TechniqueParams{});
    Index steps = 0;
    while (true) {
      const Index before = calc.remaining();
      const auto c = calc.next(static_cast<int>(steps % shape.p));
      if (!c) break;
      EXPECT_EQ(c->size, (before + shape.p - 1) / shape.p)
          << "N=" << shape.n << " P=" << shape.p << " step " << steps;
      ++steps;
    }
    EXPECT_EQ(calc.scheduled(), shape.n);
  }
}

TEST(Recursive, FAC2IsEquation7) {
  EXPECT_EQ(recursive_sizes(Technique::FAC2, {1000, 4}, TechniqueParams{}),
            concat({repeat(125, 4), repeat(63, 4), repeat(31, 4), repeat(16, 4), repeat(8, 4),
                    repeat(4, 4), repeat(2, 4), repeat(1, 4)}));
}

TEST(Recursive, FAC2BatchStartsUseTheRemainingIterations) {
  // At i mod P = 0 the chunk is ceil(R_i / 2P); in between it repeats.
  const LoopShape shape{10007, 7};
  ChunkCalculator calc(Technique::FAC2, shape, TechniqueParams{});
  Index previous = 0;
  for (Index i = 0;; ++i) {
    const Index before = calc.remaining();
    const auto c = calc.next(0);
    if (!c) break;
    const Index expected = i % shape.p == 0 ? (before + 2 * shape.p - 1) / (2 * shape.p) : previous;
    EXPECT_EQ(c->size, std::min(expected, before)) << "step " << i;
    previous = expected;
  }
}

TEST(Recursive, TSSIsEquation6) {
  // N = 10007, P = 7, Eq. 6 evaluated here: K_0 = ceil(N / 2P) = 715,
  // K_{S-1} = 1, S = ceil(2N / (K_0 + K_{S-1})) = 28, C = floor((K_0 - 1) /
  // (S - 1)) = 26. The sequence 715 - 26 i covers N in 25 chunks (the last
  // one clipped), within the S = 28 steps of Eq. 6; the original LB4MPI's
  // truncated S gave 206 chunks ending in a long run of 1s.
  const Index n = 10007;
  const Index p = 7;
  const Index k0 = (n + 2 * p - 1) / (2 * p);
  const Index s = (2 * n + k0) / (k0 + 1);  // ceil(2N / (K_0 + 1))
  const Index c = (k0 - 1) / (s - 1);
  ASSERT_EQ(k0, 715);
  ASSERT_EQ(s, 28);
  ASSERT_EQ(c, 26);
  const std::vector<Index> sizes = recursive_sizes(Technique::TSS, {n, 7}, TechniqueParams{});
  ASSERT_FALSE(sizes.empty());
  EXPECT_LE(static_cast<Index>(sizes.size()), s);  // at most S chunks
  EXPECT_EQ(sizes.size(), 25U);
  Index before_last = 0;
  for (std::size_t i = 0; i + 1 < sizes.size(); ++i) {
    EXPECT_EQ(sizes[i], k0 - c * static_cast<Index>(i)) << "step " << i;  // 715 - 26 i
    before_last += sizes[i];
  }
  EXPECT_EQ(sizes.back(), n - before_last);  // the rest: 10007 - (24 * 715 - 26 * 276) = 23
  EXPECT_EQ(sizes.back(), 23);
  EXPECT_LE(sizes.back(), k0 - c * static_cast<Index>(sizes.size() - 1));
  // No run of 1-iteration chunks (at most one 1, and never two in a row).
  Index ones = 0;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    ones += sizes[i] == 1 ? 1 : 0;
    if (i > 0) {
      EXPECT_FALSE(sizes[i] == 1 && sizes[i - 1] == 1) << "step " << i;
    }
  }
  EXPECT_LE(ones, 1);
  // The closed form (Eq. 17) is the same sequence.
  EXPECT_EQ(closed_sizes(Technique::TSS, {n, 7}, TechniqueParams{}), sizes);
}

TEST(Recursive, TSSEqualsClosedForm) {
  for (const LoopShape shape : {LoopShape{1000, 4}, LoopShape{1, 1}, LoopShape{3, 1},
                                LoopShape{100, 256}, LoopShape{123457, 16}}) {
    EXPECT_EQ(recursive_sizes(Technique::TSS, shape, TechniqueParams{}),
              closed_sizes(Technique::TSS, shape, TechniqueParams{}))
        << "N=" << shape.n << " P=" << shape.p;
  }
}

TEST(Recursive, FormsAgreeWhereTheChunkDependsOnTheStepOnly) {
  for (const Technique t : {Technique::STATIC, Technique::SS, Technique::FSC, Technique::mFSC,
                            Technique::TFSS, Technique::RND, Technique::FAC}) {
    for (const LoopShape shape : {LoopShape{1000, 4}, LoopShape{10007, 7}, LoopShape{5, 16}}) {
      EXPECT_EQ(recursive_sizes(t, shape, TechniqueParams{}),
                closed_sizes(t, shape, TechniqueParams{}))
          << name(t) << " N=" << shape.n << " P=" << shape.p;
    }
  }
}

TEST(Recursive, FISSIsEquation9Literally) {
  // K_0 = floor(1000/20) = 50, increment ceil(33.3) = 34: 50, 84, 118.
  TechniqueParams params;
  params.fiss_batches = 3;
  EXPECT_EQ(recursive_sizes(Technique::FISS, {1000, 4}, params),
            concat({repeat(50, 4), repeat(84, 4), repeat(118, 3), {110}}));
}

TEST(Recursive, VISSIsEquation10Literally) {
  // K_0 = floor(1000/16) = 62, then K + floor(K/2): 93, 139.
  EXPECT_EQ(recursive_sizes(Technique::VISS, {1000, 4}, TechniqueParams{}),
            concat({repeat(62, 4), repeat(93, 4), {139, 139, 102}}));
}

TEST(Recursive, PLSIsStaticThenGSS) {
  for (const LoopShape shape : {LoopShape{1000, 4}, LoopShape{1000, 3}, LoopShape{10007, 7}}) {
    TechniqueParams params;
    params.pls_swr = 0.7;
    const Index ks = static_cast<Index>(std::floor(static_cast<double>(shape.n) * 0.7 / shape.p));
    ChunkCalculator calc(Technique::PLS, shape, params);
    for (Index i = 0;; ++i) {
      const Index before = calc.remaining();
      const auto c = calc.next(0);
      if (!c) break;
      // Exactly P static chunks (also when N * SWR is not a multiple of P),
      // then GSS Eq. 4 on what is left.
      const Index expected = i < shape.p ? ks : (before + shape.p - 1) / shape.p;
      EXPECT_EQ(c->size, expected) << "N=" << shape.n << " P=" << shape.p << " step " << i;
    }
  }
}

TEST(Recursive, PLSWithoutStaticPartIsGSS) {
  TechniqueParams params;
  params.pls_swr = 0.0;
  EXPECT_EQ(recursive_sizes(Technique::PLS, {1000, 4}, params),
            recursive_sizes(Technique::GSS, {1000, 4}, params));
  EXPECT_EQ(closed_sizes(Technique::PLS, {1000, 4}, params),
            closed_sizes(Technique::GSS, {1000, 4}, params));
}

TEST(Recursive, TAPWithLargeVarianceTapersGSS) {
  TechniqueParams params;
  params.alpha = 1.0;
  params.sigma = 1.0;
  params.mu = 0.1;  // v = 10
  const std::vector<Index> tap = recursive_sizes(Technique::TAP, {1000, 4}, params);
  // First chunk: 250 + 50 - 10 sqrt(500 + 25) = 70.87 -> 71.
  ASSERT_FALSE(tap.empty());
  EXPECT_EQ(tap.front(), 71);
  // Default v = 0.0003025 leaves GSS unchanged.
  EXPECT_EQ(recursive_sizes(Technique::TAP, {10007, 7}, TechniqueParams{}),
            recursive_sizes(Technique::GSS, {10007, 7}, TechniqueParams{}));
}

TEST(Recursive, FACFirstBatchIsFlynnHummelsRule) {
  // b = P/(2 sqrt(N)) sigma/mu, x_0 = 1 + b^2 + b sqrt(b^2 + 2), K = ceil(N/(x_0 P)).
  const LoopShape shape{1000, 4};
  const TechniqueParams params;  // sigma/mu = 0.605
  const double b = 4.0 / (2.0 * std::sqrt(1000.0)) * (params.sigma / params.mu);
  const double x0 = 1.0 + b * b + b * std::sqrt(b * b + 2.0);
  const auto first = static_cast<Index>(std::ceil(1000.0 / (x0 * 4.0)));
  const std::vector<Index> sizes = recursive_sizes(Technique::FAC, shape, params);
  ASSERT_GE(sizes.size(), 5U);
  EXPECT_EQ(first, 237);
  EXPECT_EQ(sizes[0], first);
  EXPECT_EQ(sizes[3], first);
  // Second batch: R = 52, x_1 = 2 + b^2 + b sqrt(b^2 + 4).
  const double r1 = 1000.0 - 4.0 * static_cast<double>(first);
  const double b1 = 4.0 / (2.0 * std::sqrt(r1)) * 0.605;
  const double x1 = 2.0 + b1 * b1 + b1 * std::sqrt(b1 * b1 + 4.0);
  EXPECT_EQ(sizes[4], static_cast<Index>(std::ceil(r1 / (x1 * 4.0))));
  for (std::size_t i = 1; i < sizes.size(); ++i) EXPECT_LE(sizes[i], sizes[i - 1]);
}

TEST(Recursive, FACWithoutVarianceIsStatic) {
  TechniqueParams params;
  params.sigma = 0.0;
  EXPECT_EQ(recursive_sizes(Technique::FAC, {1000, 4}, params), repeat(250, 4));
  EXPECT_EQ(closed_sizes(Technique::FAC, {1001, 4}, params),
            (std::vector<Index>{251, 251, 251, 248}));
}

TEST(Recursive, FACWithExtremeVarianceStaysCorrect) {
  // sigma/mu = 10^4: thousands of batches, past the replay table.
  TechniqueParams params;
  params.sigma = 1000.0;
  params.mu = 0.1;
  const LoopShape shape{Index{1} << 40, 4};
  const ChunkCalculator calc(Technique::FAC, shape, params);
  Index previous = calc.closed_size(0);
  for (Index i = 4; i < 200000; i += 997) {
    const Index s = calc.closed_size(i);
    EXPECT_LE(s, previous) << i;
    EXPECT_GE(s, 1);
    previous = s;
  }
}

TEST(Recursive, StaticSpreadsTheRemainder) {
  EXPECT_EQ(closed_sizes(Technique::STATIC, {10, 3}, TechniqueParams{}),
            (std::vector<Index>{4, 3, 3}));
  EXPECT_EQ(closed_sizes(Technique::STATIC, {2, 4}, TechniqueParams{}), (std::vector<Index>{1, 1}));
}

TEST(Recursive, MFSCIsAppendixB) {
  // T = 250: trunc(0.55 + 250 ln 2 / ln 250) = 31.
  const std::vector<Index> sizes = closed_sizes(Technique::mFSC, {1000, 4}, TechniqueParams{});
  ASSERT_FALSE(sizes.empty());
  EXPECT_EQ(sizes.front(), 31);
  EXPECT_EQ(sizes.size(), 33U);  // 32 x 31 + 8
  EXPECT_EQ(closed_sizes(Technique::mFSC, {4, 4}, TechniqueParams{}), repeat(1, 4));
}

TEST(Recursive, FSCWithOneRankIsOneChunk) {
  EXPECT_EQ(closed_sizes(Technique::FSC, {1000, 1}, TechniqueParams{}), (std::vector<Index>{1000}));
}

TEST(Recursive, RNDStaysInItsBounds) {
  for (const RndBounds bounds : {RndBounds::Unit, RndBounds::Paper004}) {
    TechniqueParams params;
    params.rnd_bounds = bounds;
    const LoopShape shape{1'000'000, 8};
    const Index lo = bounds == RndBounds::Unit ? 1 : 1'000'000 / 800;
    const Index hi = bounds == RndBounds::Unit ? 1'000'000 / 8 : 1'000'000 / 16;
    const ChunkCalculator calc(Technique::RND, shape, params);
    Index seen_lo = hi;
    Index seen_hi = lo;
    double mean = 0.0;
    constexpr int kDraws = 20000;
    for (Index i = 0; i < kDraws; ++i) {
      const Index s = calc.closed_size(i);
      ASSERT_GE(s, lo);
      ASSERT_LE(s, hi);
      seen_lo = std::min(seen_lo, s);
      seen_hi = std::max(seen_hi, s);
      mean += static_cast<double>(s) / kDraws;
    }
    // Uniform: the extremes are approached and the mean is the middle.
    EXPECT_LT(seen_lo, lo + (hi - lo) / 100);
    EXPECT_GT(seen_hi, hi - (hi - lo) / 100);
    EXPECT_NEAR(mean, (static_cast<double>(lo) + static_cast<double>(hi)) / 2.0,
                0.02 * static_cast<double>(hi));
  }
}

TEST(Recursive, RestartReplaysTheSameSequence) {
  for (const auto& ti : all_techniques()) {
    if (ti.adaptive) continue;
    TechniqueParams params;
    ChunkCalculator calc(ti.technique, {10007, 7}, params);
    std::vector<Index> first;
    while (auto c = calc.next(static_cast<int>(first.size() % 7))) first.push_back(c->size);
    calc.restart();
    std::vector<Index> second;
    while (auto c = calc.next(static_cast<int>(second.size() % 7))) second.push_back(c->size);
    EXPECT_EQ(first, second) << ti.name;
  }
}

TEST(Recursive, MaxChunkCapsEveryChunk) {
  TechniqueParams params;
  params.max_chunk = 40;
  params.min_chunk = 3;
  for (const auto& ti : all_techniques()) {
    if (ti.technique == Technique::STATIC) continue;  // StaticIgnoresMinAndMaxChunk
    const auto chunks = simulate_chunks(ti.technique, {1000, 4}, params, Form::Recursive);
    Index total = 0;
    for (std::size_t i = 0; i < chunks.size(); ++i) {
      EXPECT_LE(chunks[i].size, 40) << ti.name;
      if (i + 1 < chunks.size()) {
        EXPECT_GE(chunks[i].size, 3) << ti.name;
      }
      total += chunks[i].size;
    }
    EXPECT_EQ(total, 1000) << ti.name;
  }
}

// STATIC is one balanced block per rank in both forms, whatever the minimum
// and maximum chunk: every execution model hands rank r block r unasked.
TEST(Recursive, StaticIgnoresMinAndMaxChunk) {
  for (const auto& [min_chunk, max_chunk] : {std::pair<Index, Index>{1, 40}, {300, 0}, {5, 7}}) {
    TechniqueParams params;
    params.min_chunk = min_chunk;
    params.max_chunk = max_chunk;
    for (const Form form : {Form::Recursive, Form::Closed}) {
      const auto chunks = simulate_chunks(Technique::STATIC, {1003, 4}, params, form);
      ASSERT_EQ(chunks.size(), 4u) << min_chunk << "/" << max_chunk;
      EXPECT_EQ(chunks[0].size, 251);
      EXPECT_EQ(chunks[1].size, 251);
      EXPECT_EQ(chunks[2].size, 251);
      EXPECT_EQ(chunks[3].size, 250);
    }
  }
}

TEST(Recursive, AFCapsAtHalfTheStaticChunkByDefault) {
  const auto chunks =
      simulate_chunks(Technique::AF, {100000, 4}, TechniqueParams{}, Form::Recursive);
  Index largest = 0;
  for (const Chunk& c : chunks) largest = std::max(largest, c.size);
  EXPECT_EQ(largest, 12500);  // ceil(N / 2P): the estimates say R/P, the cap wins early on
}

TEST(Recursive, ClosedFormOfAdaptiveTechniquesThrows) {
  for (const Technique t : {Technique::WF, Technique::AWF, Technique::AWF_B, Technique::AWF_C,
                            Technique::AWF_D, Technique::AWF_E, Technique::AF}) {
    const ChunkCalculator calc(t, {100, 4}, TechniqueParams{});
    EXPECT_THROW((void)calc.closed_size(0), Error) << name(t);
    EXPECT_FALSE(info(t).has_closed_form);
  }
}

}  // namespace
}  // namespace lb4mpi::test
