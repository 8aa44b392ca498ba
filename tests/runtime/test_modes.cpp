// The distributed execution models (DCA two-sided and MPI-3 one-sided).
#include <algorithm>
#include <chrono>
#include <string>
#include <tuple>

#include "lb4mpi/techniques/chunk_calculator.hpp"
#include "mpi_check.hpp"

namespace lb4mpi::test {
namespace {

using ModeCase = std::tuple<Technique, Mode>;

std::vector<ModeCase> distributed_cases() {
  std::vector<ModeCase> v;
  for (Mode m : {Mode::Distributed, Mode::DistributedRMA}) {
    for (const auto& i : all_techniques()) v.emplace_back(i.technique, m);
  }
  return v;
}

// The techniques with a closed form only (the others are not generated,
// rather than generated and passing without checking anything).
std::vector<ModeCase> closed_form_cases() {
  std::vector<ModeCase> v;
  for (const ModeCase& c : distributed_cases()) {
    if (info(std::get<0>(c)).has_closed_form) v.push_back(c);
  }
  return v;
}

std::string case_name(const ::testing::TestParamInfo<ModeCase>& info) {
  std::string s = std::string(name(std::get<0>(info.param))) + "_" + std::string(name(std::get<1>(info.param)));
  std::replace(s.begin(), s.end(), '-', '_');
  return s;
}

class DistributedModes : public ::testing::TestWithParam<ModeCase> {};
class DistributedClosedForm : public ::testing::TestWithParam<ModeCase> {};

TEST_P(DistributedModes, RunsEachIterationExactlyOnce) {
  Options opt;
  opt.technique = std::get<0>(GetParam());
  opt.mode = std::get<1>(GetParam());
  for (Index n : {Index{0}, Index{1}, Index{world_size() - 1}, Index{1000}, Index{10007}}) {
    SCOPED_TRACE("N = " + std::to_string(n));
    expect_exactly_once(run_and_cover(5, 5 + n, opt), n);
  }
}

// Techniques without a closed form: DistributedAdaptive below.
TEST_P(DistributedClosedForm, SizesInAssignmentOrderAreTheClosedForm) {
  ASSERT_TRUE(info(std::get<0>(GetParam())).has_closed_form);
  Options opt;
  opt.technique = std::get<0>(GetParam());
  opt.mode = std::get<1>(GetParam());
  opt.break_after = 1 << 30;  // whole chunks as pieces
  opt.request_when = 0;
  const Index n = 5003;
  std::vector<Index> mine;
  Report r = parallel_for(MPI_COMM_WORLD, 0, n, opt, [&](Chunk c) {
    mine.push_back(c.begin);
    mine.push_back(c.size);
  });
  int count = static_cast<int>(mine.size());
  std::vector<int> counts(static_cast<std::size_t>(world_size()));
  MPI_Allgather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, MPI_COMM_WORLD);
  std::vector<int> displs(counts.size(), 0);
  for (std::size_t i = 1; i < counts.size(); ++i) displs[i] = displs[i - 1] + counts[i - 1];
  std::vector<Index> all(static_cast<std::size_t>(displs.back() + counts.back()));
  MPI_Allgatherv(mine.data(), count, MPI_INT64_T, all.data(), counts.data(), displs.data(), MPI_INT64_T,
                 MPI_COMM_WORLD);
  std::vector<std::pair<Index, Index>> chunks;
  for (std::size_t i = 0; i + 1 < all.size(); i += 2) chunks.emplace_back(all[i], all[i + 1]);
  std::sort(chunks.begin(), chunks.end());
  const std::vector<Chunk> expected =
      simulate_chunks(opt.technique, LoopShape{n, world_size()}, opt.params, Form::Closed);
  ASSERT_EQ(chunks.size(), expected.size());
  for (std::size_t i = 0; i < chunks.size(); ++i) {
    EXPECT_EQ(chunks[i].first, expected[i].begin) << "chunk " << i;
    EXPECT_EQ(chunks[i].second, expected[i].size) << "chunk " << i;
  }
  EXPECT_EQ(r.iterations(), n);
}

TEST_P(DistributedModes, TimeStepsAndDelayInjection) {
  Options opt;
  opt.technique = std::get<0>(GetParam());
  opt.mode = std::get<1>(GetParam());
  opt.inject_delay_us = 10.0;
  opt.delay_ranks = {0};
  Loop loop(MPI_COMM_WORLD, 0, 3000, opt);
  for (int step = 0; step < 3; ++step) {
    const Index n = step == 1 ? 2000 : 3000;
    if (step > 0) loop.restart(0, n);
    std::vector<std::int32_t> local(static_cast<std::size_t>(n), 0);
    while (auto c = loop.next()) {
      for (Index i = c->begin; i < c->end(); ++i) ++local[static_cast<std::size_t>(i)];
    }
    Report r = loop.finish();
    std::vector<std::int32_t> all(local.size());
    MPI_Allreduce(local.data(), all.data(), static_cast<int>(n), MPI_INT32_T, MPI_SUM, MPI_COMM_WORLD);
    EXPECT_EQ(std::count(all.begin(), all.end(), 1), n) << "step " << step;
    EXPECT_EQ(r.iterations(), n);
  }
}

TEST(DistributedAdaptive, SlowRankGetsSmallerChunks) {
  // Rank 1 is slowed down; with AF and AWF-C in both DCA modes the
  // coordinator's statistics must reach the ranks' own calculation.
  if (world_size() < 2) return;  // nothing to compare
  for (Mode m : {Mode::Distributed, Mode::DistributedRMA}) {
    for (Technique t : {Technique::AF, Technique::AWF_C}) {
      Options opt;
      opt.technique = t;
      opt.mode = m;
      std::vector<Index> sizes;
      const Index n = 4000;
      std::vector<std::int32_t> local(static_cast<std::size_t>(n), 0);
      Report r = parallel_for(MPI_COMM_WORLD, 0, n, opt, [&](Chunk c) {
        for (Index i = c.begin; i < c.end(); ++i) ++local[static_cast<std::size_t>(i)];
        if (world_rank() == 1) {
          // 100 us per iteration: ~0.1-0.2 s in all, far beyond the time a
          // loaded machine keeps a rank from its core (20 us lost to that
          // once, under the sanitizers with twice as many tests as cores).
          const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(100 * c.size);
          while (std::chrono::steady_clock::now() < until) {
          }
        }
        sizes.push_back(c.size);
      });
      std::vector<std::int32_t> all(local.size());
      MPI_Allreduce(local.data(), all.data(), static_cast<int>(n), MPI_INT32_T, MPI_SUM, MPI_COMM_WORLD);
      EXPECT_EQ(std::count(all.begin(), all.end(), 1), n) << name(t) << " " << name(m);
      EXPECT_EQ(r.iterations(), n);
      // The slowed rank executes fewer iterations than the fastest one.
      Index most = 0;
      for (const auto& rr : r.ranks) most = std::max(most, rr.iterations);
      EXPECT_LT(r.ranks[1].iterations, most) << name(t) << " " << name(m);
      // That alone holds for any dynamic technique. AF and AWF-C give a rank
      // min_chunk until it has measurements, which only the coordinator's
      // statistics bring to a rank's own calculation in the DCA modes: a
      // chunk above min_chunk on a rank proves they arrived.
      Index largest = 0;
      for (Index s : sizes) largest = std::max(largest, s);
      Index largest_anywhere = 0;
      MPI_Allreduce(&largest, &largest_anywhere, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
      EXPECT_GT(largest_anywhere, opt.params.min_chunk)
          << name(t) << " " << name(m) << ": every chunk was min_chunk, the statistics never reached a rank";
    }
  }
}

// `001` §6: chunk sizes are calculated where the execution model says —
// CCA: the coordinator calculates every chunk; DCA, both forms: each rank
// its own (plus the step that finds the loop exhausted) — and the injected
// delay lands on every calculation of the chosen ranks, in their overhead
// (CCA: but for the P - 1 first chunks, sent while the loop starts).
TEST(DelayInjection, LandsOnTheChosenRanks) {
  const int p = world_size();
  const double delay_s = 1.5e-3;
  for (Mode m : {Mode::Centralized, Mode::Distributed, Mode::DistributedRMA}) {
    for (int delayed : {0, p - 1}) {
      SCOPED_TRACE(std::string(name(m)) + ", delay on rank " + std::to_string(delayed));
      Options opt;
      opt.technique = Technique::GSS;
      opt.mode = m;
      opt.inject_delay_us = delay_s * 1e6;
      opt.delay_ranks = {delayed};
      const Coverage c = run_and_cover(0, 400, opt);
      expect_exactly_once(c, 400);
      const Index total = c.report.chunks();
      for (int r = 0; r < p; ++r) {
        const RankReport& rr = c.report.ranks[static_cast<std::size_t>(r)];
        if (m == Mode::Centralized) {
          EXPECT_EQ(rr.calculations, r == 0 ? total : 0) << "rank " << r;
        } else {
          EXPECT_GE(rr.calculations, rr.chunks) << "rank " << r;
          EXPECT_LE(rr.calculations, rr.chunks + 1) << "rank " << r;
        }
      }
      const RankReport& d = c.report.ranks[static_cast<std::size_t>(delayed)];
      const Index in_overhead = m == Mode::Centralized ? d.calculations - (delayed == 0 ? p - 1 : 0) : d.calculations;
      EXPECT_GE(d.overhead, 0.95 * static_cast<double>(in_overhead) * delay_s)
          << d.calculations << " calculations on the delayed rank";
    }
  }
}

// DCA over RMA keeps a loop's window for the next loop on the communicator
// (docs/RUNTIME.md, windows): loops that use it differently — a step counter
// (GSS, SS), a ticket lock and a technique's state (AF, WF) — at different
// coordinators and sizes take each other's windows; each must find it as if
// new. Also a loop that is restarted (time steps) after another used its window.
TEST(RmaWindows, ReusedByLoopsOfEveryKind) {
  const int last = world_size() - 1;
  const std::vector<std::pair<Technique, int>> loops = {
      {Technique::GSS, 0}, {Technique::AF, 0},      {Technique::SS, 0},  {Technique::WF, last},
      {Technique::AF, 0},  {Technique::GSS, last}, {Technique::AWF_C, 0}, {Technique::FAC2, 0},
      {Technique::STATIC, 0}, {Technique::AF, last}};
  for (int round = 0; round < 2; ++round) {
    for (const auto& [t, coordinator] : loops) {
      Options opt;
      opt.technique = t;
      opt.mode = Mode::DistributedRMA;
      opt.coordinator = coordinator;
      SCOPED_TRACE(std::string(name(t)) + ", coordinator " + std::to_string(coordinator));
      expect_exactly_once(run_and_cover(0, 1234 + 100 * round, opt), 1234 + 100 * round);
    }
  }
  // A restarted loop whose window served another loop in between.
  Options af;
  af.technique = Technique::AF;
  af.mode = Mode::DistributedRMA;
  Loop kept(MPI_COMM_WORLD, 0, 900, af);
  for (int step = 0; step < 3; ++step) {
    if (step > 0) kept.restart(0, 900);
    std::vector<std::int32_t> local(900, 0);
    while (auto c = kept.next()) {
      for (Index i = c->begin; i < c->end(); ++i) ++local[static_cast<std::size_t>(i)];
    }
    kept.finish();
    EXPECT_EQ(not_run_once(local), 0) << "step " << step;
    Options gss = af;
    gss.technique = Technique::GSS;
    expect_exactly_once(run_and_cover(0, 700, gss), 700);
  }
}

INSTANTIATE_TEST_SUITE_P(All, DistributedModes, ::testing::ValuesIn(distributed_cases()), case_name);
INSTANTIATE_TEST_SUITE_P(All, DistributedClosedForm, ::testing::ValuesIn(closed_form_cases()), case_name);

}  // namespace
}  // namespace lb4mpi::test
