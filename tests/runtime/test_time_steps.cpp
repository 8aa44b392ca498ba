// The same loop executed again and again (time steps).
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "mpi_check.hpp"
#include "runtime/clock.hpp"

namespace lb4mpi::test {
namespace {

TEST(TimeSteps, ParallelForTwiceInARow) {
  for (Technique t : {Technique::GSS, Technique::AWF, Technique::AF, Technique::SS}) {
    Options opt;
    opt.technique = t;
    expect_exactly_once(run_and_cover(0, 777, opt), 777);
    expect_exactly_once(run_and_cover(0, 777, opt), 777);
  }
}

// AWF's weights as `003` Appendix B defines them, computed here from what
// the reports carry (each rank's iterations and work time per step): the
// rank's weighted performance wap_r = sum_s s t_r,s / sum_s s n_r,s over its
// steps s = 1, 2, ... (a step weighs its ordinal), and w_r = P (1/wap_r) /
// sum_q (1/wap_q).
class AwfWeights {
 public:
  explicit AwfWeights(int p) : time_(static_cast<std::size_t>(p), 0.0), size_(time_), steps_(time_) {}
  void learn(const Report& r) {
    for (std::size_t q = 0; q < time_.size(); ++q) {
      if (r.ranks[q].iterations <= 0) continue;
      steps_[q] += 1.0;
      time_[q] += steps_[q] * r.ranks[q].work_time;
      size_[q] += steps_[q] * static_cast<double>(r.ranks[q].iterations);
    }
  }
  // A rank that has executed nothing yet counts as the slowest one that has.
  [[nodiscard]] double weight(std::size_t r) const {
    double slowest = 0.0;  // 1/wap of the slowest rank that has a wap
    for (std::size_t q = 0; q < time_.size(); ++q) {
      if (steps_[q] > 0.0 && (slowest == 0.0 || inv(q) < slowest)) slowest = inv(q);
    }
    if (slowest == 0.0) return 1.0;
    double total = 0.0;
    for (std::size_t q = 0; q < time_.size(); ++q) total += steps_[q] > 0.0 ? inv(q) : slowest;
    return static_cast<double>(time_.size()) * (steps_[r] > 0.0 ? inv(r) : slowest) / total;
  }

 private:
  [[nodiscard]] double inv(std::size_t q) const { return size_[q] / time_[q]; }

  std::vector<double> time_, size_, steps_;
};

// AWF learns its weights from whole time steps (`003` Appendix B) and keeps
// them when the loop's length changes, in every mode: the first chunk a
// rank takes from a step's first batch (chunks that start before min(P c,
// N), c = ceil(N / 2P)) is round(w_r c), with w_r the weights of every step
// before (all 1 before the first). The weights are computed from the
// reports, so the check holds however fast the ranks ran (under load, at
// any P). The last rank works three times longer per iteration (a busy
// wait: it lasts its nominal time), so at P >= 2 the learnt weights are far
// enough from 1 that a technique that did not learn, forgot at a restart or
// weighed the steps alike hands out other chunks (each failed 5 runs of 5
// at P = 2..4; at P = 1 every weight is 1).
TEST(TimeSteps, AWFLearnsAcrossStepsOfChangingLength) {
  const int p = world_size();
  const int slow = p - 1;
  for (Mode m : {Mode::Centralized, Mode::Distributed, Mode::DistributedRMA}) {
    Options opt;
    opt.technique = Technique::AWF;
    opt.mode = m;
    // Pieces = chunks, so that a rank's first piece is its first chunk.
    opt.break_after = 1 << 30;
    opt.request_when = 0;
    const Index lengths[] = {2400, 2000, 2400, 1800};
    AwfWeights oracle(p);
    Loop loop(MPI_COMM_WORLD, 0, lengths[0], opt);
    for (int step = 0; step < 4; ++step) {
      const Index n = lengths[step];
      SCOPED_TRACE(std::string(name(m)) + " step " + std::to_string(step));
      if (step > 0) loop.restart(0, n);
      std::vector<std::int32_t> local(static_cast<std::size_t>(n), 0);
      Index mine[2] = {-1, 0};  // this rank's first chunk: start, size
      while (auto c = loop.next()) {
        if (mine[0] < 0) mine[0] = c->begin, mine[1] = c->size;
        for (Index i = c->begin; i < c->end(); ++i) ++local[static_cast<std::size_t>(i)];
        rt::spin_for_us((world_rank() == slow ? 3.0 : 1.0) * static_cast<double>(c->size));  // 1 us an iteration
      }
      const Report r = loop.finish();
      EXPECT_EQ(not_run_once(local), 0);
      EXPECT_EQ(r.iterations(), n);
      std::vector<Index> firsts(static_cast<std::size_t>(2 * p));
      MPI_Allgather(mine, 2, MPI_INT64_T, firsts.data(), 2, MPI_INT64_T, MPI_COMM_WORLD);
      const Index c = (n + 2 * p - 1) / (2 * p);
      const Index batch = std::min<Index>(p * c, n);
      int judged = 0;
      for (int q = 0; q < p; ++q) {
        const Index begin = firsts[static_cast<std::size_t>(2 * q)];
        const Index size = firsts[static_cast<std::size_t>(2 * q + 1)];
        if (begin < 0 || begin >= batch) continue;  // no chunk, or not one of the first batch
        ++judged;
        const double w = step == 0 ? 1.0 : oracle.weight(static_cast<std::size_t>(q));
        const auto expected = std::max<Index>(1, static_cast<Index>(std::floor(w * static_cast<double>(c) + 0.5)));
        // +-1: the weights are summed in another order than here.
        EXPECT_LE(std::abs(size - expected), 1)
            << "rank " << q << "'s first chunk [" << begin << ", +" << size << "): weight " << w << ", c = " << c;
      }
      EXPECT_GE(judged, 1) << "no rank's first chunk is of the first batch";
      oracle.learn(r);
    }
  }
}

TEST(TimeSteps, RestartedLoopCoversEveryStep) {
  for (const auto& ti : all_techniques()) {
    Options opt;
    opt.technique = ti.technique;
    Loop loop(MPI_COMM_WORLD, 0, 1500, opt);
    for (int step = 0; step < 4; ++step) {
      SCOPED_TRACE(std::string(ti.name) + " step " + std::to_string(step));
      // Step 2 uses another range: the loop's shape may change between steps.
      const Index n = step == 2 ? 900 : 1500;
      if (step > 0) loop.restart(0, n);
      std::vector<std::int32_t> local(static_cast<std::size_t>(n), 0);
      while (auto c = loop.next()) {
        for (Index i = c->begin; i < c->end(); ++i) ++local[static_cast<std::size_t>(i)];
      }
      Report r = loop.finish();
      EXPECT_EQ(not_run_once(local), 0);
      EXPECT_EQ(r.iterations(), n);
    }
  }
}

TEST(TimeSteps, ReportIsConsistent) {
  Options opt;
  opt.technique = Technique::FAC2;
  Coverage c = run_and_cover(0, 2000, opt);
  expect_exactly_once(c, 2000);
  EXPECT_GT(c.report.chunks(), 0);
  EXPECT_GE(c.report.load_imbalance_percent(), 0.0);
  EXPECT_GE(c.report.finish_cov(), 0.0);
  for (const auto& r : c.report.ranks) {
    EXPECT_GE(r.work_time, 0.0);
    EXPECT_GE(r.overhead, 0.0);
    EXPECT_LE(r.finish_time, c.report.t_par + 1e-9);
  }
  EXPECT_FALSE(c.report.summary().empty());
}

}  // namespace
}  // namespace lb4mpi::test
