// lb4mpi::Report's derived statistics against hand-computed values, for
// reports built by hand (no MPI): totals, load imbalance, coefficient of
// variation of the finish times, idle time, the one-line summary.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "lb4mpi/report.hpp"

namespace lb4mpi {
namespace {

RankReport rank(Index iterations, Index chunks, double work, double overhead, double finish) {
  RankReport r;
  r.iterations = iterations;
  r.chunks = chunks;
  r.work_time = work;
  r.overhead = overhead;
  r.finish_time = finish;
  return r;
}

// Four ranks finishing at 1, 2, 3 and 6 s; T_par 6.5 s (the last rank's exit,
// after its final wait for work).
Report four_ranks() {
  Report r;
  r.technique = Technique::GSS;
  r.mode = Mode::Distributed;
  r.first = 100;
  r.last = 1100;
  r.t_par = 6.5;
  r.ranks = {rank(100, 3, 0.75, 0.25, 1.0), rank(200, 4, 1.5, 0.25, 2.0), rank(300, 5, 2.5, 0.5, 3.0),
             rank(400, 7, 5.0, 1.0, 6.0)};
  return r;
}

TEST(Report, Totals) {
  const Report r = four_ranks();
  EXPECT_EQ(r.iterations(), 1000);
  EXPECT_EQ(r.chunks(), 19);
}

TEST(Report, LoadImbalanceIsMaxOverMeanMinusOneInPercent) {
  // mean = (1 + 2 + 3 + 6) / 4 = 3, max = 6: (6 / 3 - 1) * 100 = 100 %.
  EXPECT_NEAR(four_ranks().load_imbalance_percent(), 100.0, 1e-12);
  Report r = four_ranks();
  // 2, 2, 2, 4: mean 2.5, max 4: (4 / 2.5 - 1) * 100 = 60 %.
  const double fin[] = {2.0, 2.0, 2.0, 4.0};
  for (std::size_t k = 0; k < 4; ++k) r.ranks[k].finish_time = fin[k];
  EXPECT_NEAR(r.load_imbalance_percent(), 60.0, 1e-12);
  // Perfect balance: 0.
  for (auto& x : r.ranks) x.finish_time = 1.25;
  EXPECT_NEAR(r.load_imbalance_percent(), 0.0, 1e-12);
}

TEST(Report, CovIsPopulationStddevOverMean) {
  // Deviations from the mean 3: -2, -1, 0, 3; squares sum to 14; population
  // variance 14 / 4 = 3.5; c.o.v. = sqrt(3.5) / 3.
  EXPECT_NEAR(four_ranks().finish_cov(), std::sqrt(3.5) / 3.0, 1e-12);
  EXPECT_NEAR(four_ranks().finish_cov(), 0.6236095644623235, 1e-12);
  Report two;
  two.ranks = {rank(1, 1, 1.0, 0.0, 1.0), rank(1, 1, 3.0, 0.0, 3.0)};
  // mean 2, deviations -1, 1: variance 1, c.o.v. 1 / 2.
  EXPECT_NEAR(two.finish_cov(), 0.5, 1e-12);
}

TEST(Report, IdleTimeIsTparMinusWorkMinusOverhead) {
  const Report r = four_ranks();
  const double want[] = {6.5 - 0.75 - 0.25, 6.5 - 1.5 - 0.25, 6.5 - 2.5 - 0.5, 6.5 - 5.0 - 1.0};
  for (std::size_t k = 0; k < 4; ++k) {
    EXPECT_NEAR(r.ranks[k].idle_time(r.t_par), want[k], 1e-12) << "rank " << k;
  }
  // Never negative (clock skew, a T_par smaller than work + overhead).
  EXPECT_EQ(rank(1, 1, 2.0, 1.0, 3.0).idle_time(2.5), 0.0);
  EXPECT_NEAR(rank(1, 1, 2.0, 1.0, 3.0).idle_time(3.0), 0.0, 1e-12);
}

TEST(Report, DegenerateReports) {
  const Report empty;
  EXPECT_EQ(empty.iterations(), 0);
  EXPECT_EQ(empty.chunks(), 0);
  EXPECT_EQ(empty.load_imbalance_percent(), 0.0);
  EXPECT_EQ(empty.finish_cov(), 0.0);
  Report one;
  one.ranks = {rank(10, 2, 1.0, 0.1, 1.1)};
  EXPECT_NEAR(one.load_imbalance_percent(), 0.0, 1e-12);
  EXPECT_EQ(one.finish_cov(), 0.0);
  Report idle;  // no rank did anything: no division by zero
  idle.ranks = {rank(0, 0, 0.0, 0.0, 0.0), rank(0, 0, 0.0, 0.0, 0.0)};
  EXPECT_EQ(idle.load_imbalance_percent(), 0.0);
  EXPECT_EQ(idle.finish_cov(), 0.0);
}

TEST(Report, Summary) {
  const std::string s = four_ranks().summary();
  EXPECT_EQ(s,
            "GSS/distributed: 1000 iterations in 19 chunks on 4 ranks, T_par 6.500000 s, "
            "load imbalance 100.00 %, c.o.v. 0.624");
}

}  // namespace
}  // namespace lb4mpi
