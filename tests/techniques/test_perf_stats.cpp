// PerfTable: AF's mu and sigma, the AWF weighted performance and weights, and
// the incrementally kept aggregates against a brute-force recomputation.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <random>

#include "helpers.hpp"

namespace lb4mpi::test {
namespace {

ChunkTiming timing(int rank, Index size, double work, double elapsed = -1.0) {
  return ChunkTiming{rank, size, work, elapsed < 0.0 ? work : elapsed};
}

TEST(PerfStats, MuAndSigmaFromChunkMeans) {
  PerfTable table(2);
  // Chunk means 0.1, 0.15, 0.2 over 10, 20, 10 iterations.
  table.record(timing(0, 10, 1.0), false);
  table.record(timing(0, 20, 3.0), false);
  table.record(timing(0, 10, 2.0), false);
  const RankStats& s = table.rank(0);
  EXPECT_EQ(s.chunks, 3);
  EXPECT_EQ(s.iterations, 40);
  EXPECT_DOUBLE_EQ(s.mu(), 6.0 / 40.0);
  // sigma^2 = (10 * 0.05^2 + 20 * 0 + 10 * 0.05^2) / (3 - 1) = 0.025
  EXPECT_NEAR(s.sigma(), std::sqrt(0.025), 1e-12);
  // One chunk: no spread yet.
  table.record(timing(1, 5, 1.0), false);
  EXPECT_EQ(table.rank(1).sigma(), 0.0);
  EXPECT_DOUBLE_EQ(table.rank(1).mu(), 0.2);
}

TEST(PerfStats, WeightedPerformanceFavoursLaterMeasurements) {
  PerfTable table(1);
  table.record(timing(0, 10, 10.0), false);  // ordinal 1: 1 s per iteration
  table.record(timing(0, 10, 20.0), false);  // ordinal 2: 2 s per iteration
  // wap = (1*10 + 2*20) / (1*10 + 2*10) = 50/30
  EXPECT_DOUBLE_EQ(table.rank(0).weighted_performance(), 50.0 / 30.0);
  EXPECT_EQ(table.rank(0).weighted_count, 2);
}

TEST(PerfStats, ElapsedTimeForAWFDAndE) {
  PerfTable table(1);
  table.record(timing(0, 10, 1.0, 3.0), true);
  EXPECT_DOUBLE_EQ(table.rank(0).weighted_performance(), 0.3);
  EXPECT_DOUBLE_EQ(table.rank(0).mu(), 0.1);  // mu always from work time
}

TEST(PerfStats, WeightsNormalizeToPAndFavourTheFasterRank) {
  PerfTable table(2);
  EXPECT_EQ(table.weights(), (std::vector<double>{1.0, 1.0}));  // nothing measured
  table.record(timing(0, 100, 100e-6), false);                  // 1 us per iteration
  table.record(timing(1, 100, 200e-6), false);                  // 2 us per iteration
  const std::vector<double> w = table.weights();
  EXPECT_NEAR(w[0], 4.0 / 3.0, 1e-12);
  EXPECT_NEAR(w[1], 2.0 / 3.0, 1e-12);
  EXPECT_NEAR(w[0] + w[1], 2.0, 1e-12);
  EXPECT_DOUBLE_EQ(table.weight(0), w[0]);
}

TEST(PerfStats, UnmeasuredRanksCountAsTheSlowest) {
  PerfTable table(4);
  table.record(timing(0, 100, 100e-6), false);  // 1 us
  table.record(timing(1, 100, 300e-6), false);  // 3 us (slowest measured)
  const std::vector<double> w = table.weights();
  EXPECT_NEAR(std::accumulate(w.begin(), w.end(), 0.0), 4.0, 1e-12);
  EXPECT_DOUBLE_EQ(w[2], w[1]);
  EXPECT_DOUBLE_EQ(w[3], w[1]);
  EXPECT_NEAR(w[0] / w[1], 3.0, 1e-12);
  // AF: the same rule for mu and sigma.
  EXPECT_DOUBLE_EQ(table.effective_mu(3), 3e-6);
  EXPECT_NEAR(table.sum_inv_mu(), 1e6 + 3.0 * (1.0 / 3e-6), 1e-3);
  EXPECT_FALSE(table.all_reported());
  EXPECT_TRUE(table.measured(1));
  EXPECT_FALSE(table.measured(2));
}

TEST(PerfStats, AggregatesMatchBruteForce) {
  // Many random updates (past the periodic rebuild), including slowest ranks
  // that speed up; the O(1) aggregates must equal a recomputation.
  constexpr int kP = 37;
  PerfTable table(kP);
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<int> rank_of(0, kP - 1);
  std::uniform_int_distribution<Index> size_of(1, 1000);
  std::uniform_real_distribution<double> speed(0.5e-6, 5e-6);
  for (int k = 0; k < 5000; ++k) {
    const int r = k < 20 ? k % 10 : rank_of(rng);  // first only ranks 0..9
    const Index n = size_of(rng);
    table.record(timing(r, n, static_cast<double>(n) * speed(rng)), (k % 3) == 0);
    if (k % 97 != 0 && k > 30) continue;
    double max_mu = 0.0;
    double max_wap = 0.0;
    double sigma2_of_max = 0.0;
    for (int i = 0; i < kP; ++i) {
      const RankStats& s = table.rank(i);
      if (s.iterations > 0 && s.mu() > max_mu) {
        max_mu = s.mu();
        sigma2_of_max = s.sigma() * s.sigma();
      }
      if (s.weighted_size > 0) max_wap = std::max(max_wap, s.weighted_performance());
    }
    double inv_mu = 0.0;
    double s2m = 0.0;
    double inv_wap = 0.0;
    for (int i = 0; i < kP; ++i) {
      const RankStats& s = table.rank(i);
      const double mu = s.iterations > 0 ? s.mu() : max_mu;
      const double sigma2 = s.iterations > 0 ? s.sigma() * s.sigma() : sigma2_of_max;
      inv_mu += 1.0 / mu;
      s2m += sigma2 / mu;
      inv_wap += 1.0 / (s.weighted_size > 0 ? s.weighted_performance() : max_wap);
    }
    EXPECT_NEAR(table.sum_inv_mu(), inv_mu, 1e-9 * inv_mu) << k;
    EXPECT_NEAR(table.sum_sigma2_over_mu(), s2m, 1e-9 * s2m + 1e-300) << k;
    for (int i = 0; i < kP; ++i) {
      const RankStats& s = table.rank(i);
      const double wap = s.weighted_size > 0 ? s.weighted_performance() : max_wap;
      EXPECT_NEAR(table.weight(i), kP * (1.0 / wap) / inv_wap, 1e-9) << k << " rank " << i;
    }
  }
  EXPECT_TRUE(table.all_reported());
}

TEST(PerfStats, NewExecutionKeepsTheWeightedHistoryOnly) {
  PerfTable table(2);
  table.record(timing(0, 10, 1.0), false);
  table.record(timing(1, 10, 2.0), false);
  const std::vector<double> before = table.weights();
  table.start_new_execution();
  EXPECT_EQ(table.rank(0).chunks, 0);
  EXPECT_EQ(table.rank(0).mu(), 0.0);
  EXPECT_FALSE(table.measured(0));
  EXPECT_EQ(table.sum_inv_mu(), 0.0);
  EXPECT_EQ(table.weights(), before);
  table.reset();
  EXPECT_EQ(table.weights(), (std::vector<double>{1.0, 1.0}));
}

TEST(PerfStats, TimeStepsWeighByTheirOrdinal) {
  PerfTable table(2);
  table.record_time_step(0, 100, 100.0);  // step 1: 1 s per iteration
  table.record_time_step(0, 100, 300.0);  // step 2: 3 s per iteration
  // (1*100 + 2*300) / (1*100 + 2*100) = 700/300
  EXPECT_DOUBLE_EQ(table.rank(0).weighted_performance(), 7.0 / 3.0);
  EXPECT_TRUE(table.rank(0).time_step_recorded);
}

TEST(PerfStats, BadInputIsHandled) {
  PerfTable table(2);
  EXPECT_THROW(table.record(timing(2, 10, 1.0), false), Error);
  EXPECT_THROW(table.record(timing(-1, 10, 1.0), false), Error);
  table.record(timing(0, 0, 1.0), false);  // empty chunk: nothing measured
  EXPECT_FALSE(table.measured(0));
  table.record(timing(0, 10, 0.0), false);  // zero time: clamped, no division by zero
  EXPECT_TRUE(std::isfinite(table.sum_inv_mu()));
  EXPECT_TRUE(std::isfinite(table.weight(0)));
  table.record(timing(1, 10, std::nan("")), false);
  EXPECT_TRUE(std::isfinite(table.weight(1)));
}

}  // namespace
}  // namespace lb4mpi::test
