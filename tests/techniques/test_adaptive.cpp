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
