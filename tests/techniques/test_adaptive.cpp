// Adaptive behaviour: a small event-driven driver with one rank twice as
// slow as the other, feeding every finished chunk back to the calculator.
#include <gtest/gtest.h>

#include <cmath>
#include <queue>
#include <utility>

#include "helpers.hpp"

namespace lb4mpi::test {
namespace {

struct Issued {
  int rank;
  Index size;
  Index remaining_before;  // R_i when the chunk was computed
};

// Runs one execution of `calc`'s loop; rank r needs seconds_per_iteration[r]
// per iteration. The rank that is free first asks next (ties: lowest rank).
std::vector<Issued> drive(ChunkCalculator& calc, const std::vector<double>& seconds_per_iteration) {
  const int p = calc.shape().p;
  using Event = std::pair<double, int>;
  std::priority_queue<Event, std::vector<Event>, std::greater<>> free_at;
  for (int r = 0; r < p; ++r) free_at.emplace(0.0, r);
  std::vector<Index> running(static_cast<std::size_t>(p), 0);
  std::vector<Issued> issued;
  while (!free_at.empty()) {
    const auto [now, r] = free_at.top();
    free_at.pop();
    const auto ri = static_cast<std::size_t>(r);
    if (running[ri] > 0) {
      const double t = static_cast<double>(running[ri]) * seconds_per_iteration[ri];
      calc.record(ChunkTiming{r, running[ri], t, t * 1.01});
      running[ri] = 0;
    }
    const Index before = calc.remaining();
    const auto c = calc.next(r);
    if (!c) continue;
    issued.push_back({r, c->size, before});
    running[ri] = c->size;
    free_at.emplace(now + static_cast<double>(c->size) * seconds_per_iteration[ri], r);
  }
  return issued;
}

// Mean chunk size of rank 0 and of rank 1 relative to the base the rule
// scales: for per-chunk rules (AWF-C/E, AF) the R_i the chunk was computed
// from; for batched rules (WF, AWF, AWF-B/D) the FAC2 batch chunk
// c = ceil(R_b / 2P), with the batches replayed here as an oracle (a batch
// of min(P c, R_b) iterations opens when the previous one is used up).
// Skips the first `skip` chunks (learning) and the tail (clipped chunks).
std::pair<double, double> mean_relative_size(const std::vector<Issued>& issued, std::size_t skip,
                                             bool batched, int p) {
  double sum[2] = {0.0, 0.0};
  int count[2] = {0, 0};
  Index batch_left = 0;
  Index batch_chunk = 0;
  for (std::size_t i = 0; i < issued.size(); ++i) {
    const Issued& c = issued[i];
    if (batched && c.size > 1) {  // min_chunk chunks of unmeasured ranks do not touch the batch
      if (batch_left == 0) {
        batch_chunk = (c.remaining_before + 2 * p - 1) / (2 * p);
        batch_left = std::min(batch_chunk * p, c.remaining_before);
      }
      batch_left = std::max<Index>(0, batch_left - c.size);
    }
    if (i < skip || c.remaining_before < 2000 || c.rank > 1) continue;
    const double base =
        batched ? static_cast<double>(batch_chunk) : static_cast<double>(c.remaining_before);
    sum[c.rank] += static_cast<double>(c.size) / base;
    ++count[c.rank];
  }
  EXPECT_GT(count[0], 0);
  EXPECT_GT(count[1], 0);
  return {sum[0] / std::max(count[0], 1), sum[1] / std::max(count[1], 1)};
}

const std::vector<double> kSpeeds{1e-6, 2e-6};  // rank 1 is 2x slower

TEST(Adaptive, WFWeightsScaleTheBatchChunk) {
  TechniqueParams params;
  params.weights = {2.0, 1.0};
  ChunkCalculator calc(Technique::WF, {100000, 2}, params);
  const std::vector<Issued> issued = drive(calc, kSpeeds);
  ASSERT_GE(issued.size(), 2U);
  // First batch: c = ceil(100000 / 4) = 25000; weights 4/3 and 2/3.
  EXPECT_EQ(issued[0].rank, 0);
  EXPECT_EQ(issued[0].size, 33333);
  EXPECT_EQ(issued[1].rank, 1);
  EXPECT_EQ(issued[1].size, 16667);
  // Every batch: rank 0 gets about twice rank 1's chunk.
  const auto [s0, s1] = mean_relative_size(issued, 0, true, 2);
  EXPECT_NEAR(s0 / s1, 2.0, 0.01);
}

TEST(Adaptive, WFWithoutWeightsIsFAC2Batching) {
  ChunkCalculator wf(Technique::WF, {10007, 7}, TechniqueParams{});
  std::vector<Index> sizes;
  for (int r = 0;; r = (r + 1) % 7) {
    const auto c = wf.next(r);
    if (!c) break;
    sizes.push_back(c->size);
  }
  EXPECT_EQ(sizes, recursive_sizes(Technique::FAC2, {10007, 7}, TechniqueParams{}));
}

class LearnsTheFasterRank : public ::testing::TestWithParam<Technique> {};

TEST_P(LearnsTheFasterRank, GivesItLargerChunks) {
  const Technique t = GetParam();
  ChunkCalculator calc(t, {1'000'000, 2}, TechniqueParams{});
  const std::vector<Issued> issued = drive(calc, kSpeeds);
  ASSERT_GT(issued.size(), 10U);
  // Before any measurement the ranks get min_chunk.
  EXPECT_EQ(issued[0].size, 1);
  EXPECT_EQ(issued[1].size, 1);
  const bool batched = info(t).batched;
  const auto [s0, s1] = mean_relative_size(issued, 4, batched, 2);
  EXPECT_NEAR(s0 / s1, 2.0, 0.15) << name(t) << ": relative sizes " << s0 << " vs " << s1;
  // And the weights it learned say so.
  if (t != Technique::AF) {
    EXPECT_NEAR(calc.perf().weight(0), 4.0 / 3.0, 0.03) << name(t);
  } else {
    EXPECT_NEAR(calc.perf().effective_mu(1) / calc.perf().effective_mu(0), 2.0, 1e-9);
  }
}

INSTANTIATE_TEST_SUITE_P(Adaptive, LearnsTheFasterRank,
                         ::testing::Values(Technique::AWF_B, Technique::AWF_C, Technique::AWF_D,
                                           Technique::AWF_E, Technique::AF),
                         [](const ::testing::TestParamInfo<Technique>& param) {
                           std::string n(name(param.param));
                           for (char& c : n) c = c == '-' ? '_' : c;
                           return n;
                         });

TEST(Adaptive, AWFLearnsBetweenTimeSteps) {
  ChunkCalculator calc(Technique::AWF, {100000, 2}, TechniqueParams{});
  // Time step 1: equal weights, FAC2 batches.
  const std::vector<Issued> first = drive(calc, kSpeeds);
  ASSERT_GE(first.size(), 2U);
  EXPECT_EQ(first[0].size, 25000);
  EXPECT_EQ(first[1].size, 25000);
  calc.restart();
  // Time step 2: weights from step 1, about 4/3 and 2/3.
  const std::vector<Issued> second = drive(calc, kSpeeds);
  ASSERT_GE(second.size(), 2U);
  EXPECT_EQ(second[0].rank, 0);
  EXPECT_NEAR(static_cast<double>(second[0].size), 33333.0, 300.0);
  EXPECT_NEAR(static_cast<double>(second[1].size), 16667.0, 300.0);
  const auto [s0, s1] = mean_relative_size(second, 0, true, 2);
  EXPECT_NEAR(s0 / s1, 2.0, 0.05);
}

TEST(Adaptive, AWFUsesExplicitTimeSteps) {
  ChunkCalculator calc(Technique::AWF, {100000, 2}, TechniqueParams{});
  (void)drive(calc, {1e-6, 1e-6});
  // The runtime reports rank 1 three times slower for the whole step.
  calc.record_time_step(0, 50000, 0.05);
  calc.record_time_step(1, 50000, 0.15);
  calc.restart();
  const auto c0 = calc.next(0);
  const auto c1 = calc.next(1);
  ASSERT_TRUE(c0 && c1);
  EXPECT_EQ(c0->size, 37500);  // 25000 * 1.5
  EXPECT_EQ(c1->size, 12500);  // 25000 * 0.5
}

TEST(Adaptive, AWFKeepsItsWeightsWhenTheLoopChangesLength) {
  ChunkCalculator calc(Technique::AWF, {100000, 2}, TechniqueParams{});
  (void)drive(calc, {1e-6, 1e-6});
  calc.record_time_step(0, 50000, 0.05);
  calc.record_time_step(1, 50000, 0.15);  // rank 1 three times slower
  calc.restart(40000);                     // the next time step is shorter
  EXPECT_EQ(calc.shape().n, 40000);
  const auto c0 = calc.next(0);
  const auto c1 = calc.next(1);
  ASSERT_TRUE(c0 && c1);
  EXPECT_EQ(c0->size, 15000);  // ceil(40000 / 4) * 1.5
  EXPECT_EQ(c1->size, 5000);   // ceil(40000 / 4) * 0.5
  // And the new length is covered exactly.
  Index total = c0->size + c1->size;
  while (const auto c = calc.next(0)) total += c->size;
  EXPECT_EQ(total, 40000);
}

TEST(Adaptive, RestartWithInvalidLengthThrows) {
  TechniqueParams params;
  params.min_chunk = 1;
  ChunkCalculator calc(Technique::GSS, {1000, 4}, params);
  EXPECT_THROW(calc.restart(-1), Error);
  EXPECT_EQ(calc.shape().n, 1000);  // unchanged
}

TEST(Adaptive, TimeStepsAreForAWFOnly) {
  ChunkCalculator calc(Technique::AWF_B, {1000, 2}, TechniqueParams{});
  calc.record_time_step(0, 500, 1.0);
  EXPECT_FALSE(calc.perf().has_weighted_performance(0));
  EXPECT_THROW(calc.record_time_step(2, 500, 1.0), Error);
}

TEST(Adaptive, AWFKeepsStartWeightsUntilItHasMeasurements) {
  TechniqueParams params;
  params.weights = {1.0, 3.0};
  ChunkCalculator calc(Technique::AWF, {1000, 2}, params);
  calc.restart();  // nothing recorded: the start weights stay
  const auto c0 = calc.next(0);
  ASSERT_TRUE(c0);
  EXPECT_EQ(c0->size, 125);  // 250 * 0.5
}

TEST(Adaptive, AFWithEqualRanksIsGuidedByTheRemainder) {
  // No spread (sigma = 0): K = E R / mu_r = R / P, capped at ceil(N / 2P).
  ChunkCalculator calc(Technique::AF, {1'000'000, 4}, TechniqueParams{});
  const std::vector<Issued> issued = drive(calc, {1e-6, 1e-6, 1e-6, 1e-6});
  for (std::size_t i = 4; i < issued.size(); ++i) {
    const Index r = issued[i].remaining_before;
    const Index expected = std::min<Index>(
        125000, static_cast<Index>(std::floor(static_cast<double>(r) / 4.0 + 0.55)));
    EXPECT_NEAR(static_cast<double>(issued[i].size), static_cast<double>(std::min(expected, r)),
                1.0)
        << i;
  }
}

// AF with per-rank timings of non-zero variance, against `001` Eq. 11
// evaluated here from the raw timings: per rank mu_p = sum t / sum n and
// sigma_p^2 = sum_c n_c (t_c / n_c - mu_p)^2 / (k - 1) (two passes, not the
// library's incremental update), D = sum sigma_p^2 / mu_p, E = (sum 1 /
// mu_p)^-1, K = (D + 2 E R - sqrt(D^2 + 4 D E R)) / (2 mu_r) as printed (not
// the library's rationalized form), chunk floor(K + 0.55).
struct TimedChunk {
  Index size;
  double time;
};

struct AfInputs {
  double d = 0.0;
  double e = 0.0;
  std::vector<double> mu;
};

AfInputs af_inputs(const std::vector<std::vector<TimedChunk>>& per_rank, bool sigma_not_squared,
                   bool arithmetic_e) {
  AfInputs in;
  double sum_inv_mu = 0.0;
  double sum_mu = 0.0;
  for (const auto& chunks : per_rank) {
    double t = 0.0;
    double n = 0.0;
    for (const TimedChunk& c : chunks) {
      t += c.time;
      n += static_cast<double>(c.size);
    }
    const double mu = t / n;
    double ss = 0.0;
    for (const TimedChunk& c : chunks) {
      const double dev = c.time / static_cast<double>(c.size) - mu;
      ss += static_cast<double>(c.size) * dev * dev;
    }
    const double sigma2 = ss / static_cast<double>(chunks.size() - 1);
    in.d += (sigma_not_squared ? std::sqrt(sigma2) : sigma2) / mu;
    sum_inv_mu += 1.0 / mu;
    sum_mu += mu;
    in.mu.push_back(mu);
  }
  // The right E is the inverse of sum 1/mu; the wrong one tried here is the
  // mean mu over P (what "E = mean time per iteration over all ranks" would give).
  in.e = arithmetic_e ? sum_mu / static_cast<double>(per_rank.size() * per_rank.size())
                      : 1.0 / sum_inv_mu;
  return in;
}

double af_k(const AfInputs& in, int rank, Index remaining) {
  const double r = static_cast<double>(remaining);
  const double mu = in.mu[static_cast<std::size_t>(rank)];
  return (in.d + 2.0 * in.e * r - std::sqrt(in.d * in.d + 4.0 * in.d * in.e * r)) / (2.0 * mu);
}

TEST(Adaptive, AFUsesTheVarianceTermOfEquation11) {
  // Seconds per iteration around 6-13 with large spreads, so that D (about
  // 43) matters against E R (about 600): sigma^2/mu and sigma/mu differ by a
  // factor of 3-10 per rank.
  const std::vector<std::vector<TimedChunk>> timings = {
      {{10, 80.0}, {20, 260.0}, {10, 130.0}},            // chunk means 8, 13, 13
      {{5, 100.0}, {15, 150.0}},                         // 20, 10
      {{8, 40.0}, {8, 72.0}, {16, 96.0}, {4, 30.0}},     // 5, 9, 6, 7.5
  };
  const LoopShape shape{200, 3};
  TechniqueParams params;
  params.max_chunk = shape.n;  // no default cap of ceil(N / 2P)
  ChunkCalculator calc(Technique::AF, shape, params);
  ChunkCalculator coordinator(Technique::AF, shape, params);  // the DCA split
  for (int r = 0; r < shape.p; ++r) {
    for (const TimedChunk& c : timings[static_cast<std::size_t>(r)]) {
      calc.record(ChunkTiming{r, c.size, c.time, c.time});
      coordinator.record(ChunkTiming{r, c.size, c.time, c.time});
    }
  }
  const AfInputs right = af_inputs(timings, false, false);
  const AfInputs sigma_not_squared = af_inputs(timings, true, false);
  const AfInputs wrong_e = af_inputs(timings, false, true);
  const AfInputs no_d = [&] {
    AfInputs copy = right;
    copy.d = 0.0;
    return copy;
  }();
  EXPECT_NEAR(calc.perf().sum_sigma2_over_mu(), right.d, 1e-9 * right.d);
  EXPECT_NEAR(1.0 / calc.perf().sum_inv_mu(), right.e, 1e-12 * right.e);

  // Rank 1 (the slowest on average) asks first, then 2, then 0; nothing is
  // fed back in between, so only R changes.
  for (const int rank : {1, 2, 0}) {
    const Index remaining = calc.remaining();
    const double k = af_k(right, rank, remaining);
    // Keep clear of a rounding boundary, so that the comparison is exact.
    const double frac = k + 0.55 - std::floor(k + 0.55);
    ASSERT_GT(frac, 1e-6);
    ASSERT_LT(frac, 1.0 - 1e-6);
    const auto expected = static_cast<Index>(std::floor(k + 0.55));
    ASSERT_GE(expected, 2);
    // The test tells the wrong readings apart.
    for (const AfInputs* wrong : {&sigma_not_squared, &wrong_e, &no_d}) {
      EXPECT_NE(static_cast<Index>(std::floor(af_k(*wrong, rank, remaining) + 0.55)), expected)
          << "rank " << rank;
    }
    const auto c = calc.next(rank);
    ASSERT_TRUE(c);
    EXPECT_EQ(c->size, expected) << "rank " << rank << ", R = " << remaining << ", K = " << k;
    const auto g = coordinator.grant(rank);
    ASSERT_TRUE(g);
    const Chunk got = coordinator.evaluate(*g);
    EXPECT_EQ(got.size, expected) << "DCA, rank " << rank;
    coordinator.commit(*g, got.size);
  }
}

TEST(Adaptive, AFIsAccurateFromTinyToHugeVariance) {
  // The executing rank's half of AF (DCA split) from given D, s = 1/E and
  // mu_r, against Eq. 11 in its rationalized form 2 E^2 R^2 / (mu_r (D + 2 E R
  // + sqrt(D^2 + 4 D E R))) in long double, over u = s D from 0 to 10^22 times R:
  // the library's evaluation in double must give the same chunk (up to the
  // 16 digits of a double for chunks beyond 10^14).
  const LoopShape shape{Index{1} << 62, 256};
  TechniqueParams params;
  params.max_chunk = shape.n;  // AF's own cap off
  const ChunkCalculator calc(Technique::AF, shape, params);
  int checked = 0;
  for (const double mu : {1e-9, 1e-6, 1e-3, 2.0}) {
    for (const double s_mu : {1.0, 3.7, 256.0}) {  // s mu_r >= 1: s includes 1/mu_r
      for (const double d : {0.0, 1e-12, 1e-6, 1e-3, 1.0, 1e3, 1e6, 1e9}) {
        for (const Index r : {Index{1}, Index{2}, Index{7}, Index{1000}, Index{123457},
                              Index{1} << 40, Index{1} << 62}) {
          const long double s = static_cast<long double>(s_mu) / mu;
          const long double e = 1.0L / s;
          const long double rr = static_cast<long double>(r);
          const long double dd = d;
          const long double k = 2.0L * e * e * rr * rr /
                                (mu * (dd + 2.0L * e * rr + std::sqrt(dd * dd + 4.0L * dd * e * rr)));
          const long double shifted = k + 0.55L;
          const long double frac = shifted - std::floor(shifted);
          if (frac < 1e-6L || frac > 1.0L - 1e-6L) continue;  // too close to call
          const long double whole = std::floor(shifted);
          const long double largest = static_cast<long double>(shape.n);
          const Index want = std::min<Index>(
              r, std::max<Index>(1, whole >= largest ? shape.n : static_cast<Index>(whole)));
          ChunkCalculator::Grant g;
          g.inputs.measured = true;
          g.inputs.remaining = r;
          g.inputs.a = d;
          g.inputs.b = static_cast<double>(s);
          g.inputs.c = mu;
          const Index got = calc.evaluate(g).size;
          // Doubles carry 16 digits: for K beyond 10^14 the last unit may differ.
          const Index slack = whole > 1e14L ? static_cast<Index>(whole * 1e-14L) + 1 : 0;
          EXPECT_NEAR(static_cast<double>(got), static_cast<double>(want), static_cast<double>(slack))
              << "mu " << mu << " s mu " << s_mu << " D " << d << " R " << r;
          ++checked;
        }
      }
    }
  }
  EXPECT_GT(checked, 500);
}

TEST(Adaptive, SimulationWithSlowdownFeedsTheRules) {
  SimulationSetup setup;
  setup.slowdown = {1.0, 2.0};
  Index rank0 = 0;
  Index rank1 = 0;
  for_each_simulated_chunk(Technique::AWF_C, {1'000'000, 2}, TechniqueParams{}, Form::Recursive,
                           setup,
                           [&](const Chunk& c, int r) { (r == 0 ? rank0 : rank1) += c.size; });
  EXPECT_EQ(rank0 + rank1, 1'000'000);
  EXPECT_NEAR(static_cast<double>(rank0) / static_cast<double>(rank1), 2.0, 0.2);
  setup.slowdown = {1.0};
  EXPECT_THROW(for_each_simulated_chunk(Technique::AWF_C, {10, 2}, TechniqueParams{},
                                        Form::Recursive, setup, [](const Chunk&, int) {}),
               Error);
}

}  // namespace
}  // namespace lb4mpi::test
