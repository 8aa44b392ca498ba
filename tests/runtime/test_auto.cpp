// Automatic technique selection (Technique::Auto) in the runtime: every
// execution exactly once, the same technique on every rank, in every mode,
// for loops in flight together, through adaptation, and its errors.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "lb4mpi/loops.hpp"
#include "mpi_check.hpp"

namespace lb4mpi::test {
namespace {

// Collective: whether every rank holds the same (technique, reason).
bool same_everywhere(const Report& r) {
  std::string key = std::string(name(r.technique)) + "|" + r.selection;
  int len = static_cast<int>(key.size()), min_len = 0, max_len = 0;
  MPI_Allreduce(&len, &min_len, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&len, &max_len, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (min_len != max_len) return false;
  std::string zero = key;
  MPI_Bcast(zero.data(), len, MPI_CHAR, 0, MPI_COMM_WORLD);
  const int same = zero == key ? 1 : 0;
  int all = 0;
  MPI_Allreduce(&same, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return all == 1;
}

// Eight executions of one loop (ranges change) under each policy in each
// mode: exactly once every time, a candidate's name in the report, the same
// choice on every rank, and the first executions explore.
TEST(Auto, EveryModeEveryPolicyExactlyOnceSameChoiceEverywhere) {
  for (Mode m : {Mode::Centralized, Mode::Distributed, Mode::DistributedRMA}) {
    for (const char* policy : {"explore", "bandit", "rule"}) {
      SCOPED_TRACE(std::string(name(m)) + " " + policy);
      Options opt;
      opt.technique = Technique::Auto;
      opt.mode = m;
      opt.auto_policy = policy;
      const std::vector<Technique> cands = {Technique::FAC2, Technique::GSS, Technique::AWF_B, Technique::TSS};
      opt.auto_candidates = cands;
      Loop loop(MPI_COMM_WORLD, 0, 1000, opt);
      std::vector<Technique> used;
      for (int step = 0; step < 8; ++step) {
        const Index n = 1000 + 111 * step;
        if (step > 0) loop.restart(0, n);
        std::vector<std::int32_t> local(static_cast<std::size_t>(n), 0);
        while (auto c = loop.next()) {
          for (Index i = c->begin; i < c->end(); ++i) ++local[static_cast<std::size_t>(i)];
        }
        const Report r = loop.finish();
        EXPECT_EQ(not_run_once(local), 0) << "step " << step;
        EXPECT_EQ(r.iterations(), n);
        EXPECT_NE(std::find(cands.begin(), cands.end(), r.technique), cands.end()) << name(r.technique);
        EXPECT_FALSE(r.selection.empty());
        EXPECT_NE(r.summary().find("; auto: "), std::string::npos) << r.summary();
        EXPECT_TRUE(same_everywhere(r)) << "step " << step << ": " << r.selection;
        used.push_back(r.technique);
      }
      if (std::string(policy) != "rule") {  // the first candidate runs twice (warm-up), then each once
        EXPECT_EQ(std::vector<Technique>(used.begin(), used.begin() + 5),
                  (std::vector<Technique>{Technique::FAC2, Technique::FAC2, Technique::GSS, Technique::AWF_B,
                                          Technique::TSS}));
      }
    }
  }
}

// A rank slowed 16x from step 6 on: the explore policy notices within a few
// steps (the rise is far above its thresholds whatever it ran): it checks
// the jump with a probe of the adaptive candidate from step 7 on, or
// re-explores after two surprising figures in a row, from step 8 on. Steps
// of ~30 ms, so that a time slice lost to another process is not mistaken
// for the change (at ~10 ms, with twice as many tests as cores, a step
// took 6.5x its usual time before the slowdown and spent the check).
TEST(Auto, ASlowedRankMakesTheSelectionMove) {
  ASSERT_GE(world_size(), 2) << "needs a rank to slow down: runtime_p2..p4 run it, runtime_p1 leaves it out";
  Options opt;
  opt.technique = Technique::Auto;
  opt.auto_candidates = {Technique::FAC2, Technique::GSS, Technique::AWF_B};
  opt.slow_ranks = {world_size() - 1};
  opt.slow_factor = 16.0;
  opt.slow_from = 6;
  Loop loop(MPI_COMM_WORLD, 0, 4000, opt);
  bool moved = false;
  std::string history;  // for the failure message
  for (int step = 0; step < 12; ++step) {
    if (step > 0) loop.restart(0, 4000);
    std::vector<std::int32_t> local(4000, 0);
    while (auto c = loop.next()) {
      for (Index i = c->begin; i < c->end(); ++i) {
        ++local[static_cast<std::size_t>(i)];
        volatile double x = 0.0;
        for (int k = 0; k < 4500; ++k) x = x + 1e-9 * k;  // ~10 us
      }
    }
    const Report r = loop.finish();
    EXPECT_EQ(not_run_once(local), 0);
    EXPECT_TRUE(same_everywhere(r));
    history += "\n  step " + std::to_string(step) + ": T_par " + std::to_string(r.t_par) + " s, " + r.selection;
    if (step >= 7 && (r.selection.rfind("re-explore", 0) == 0 || r.selection.rfind("check:", 0) == 0)) moved = true;
  }
  EXPECT_TRUE(moved) << "no probe nor re-exploration after the slowdown at step 6:" << history;
  if (std::getenv("LB4MPI_TEST_VERBOSE") != nullptr && world_rank() == 0) std::printf("%s\n", history.c_str());
}

// Two automatic loops in flight together (LoopSet), each learning for itself.
TEST(MultiLoopMixed, AutoLoopsLearnEachForItself) {
  Options a;
  a.technique = Technique::Auto;
  a.auto_candidates = {Technique::GSS, Technique::FAC2};
  Options b = a;
  b.auto_candidates = {Technique::TSS, Technique::AF, Technique::SS};
  b.mode = Mode::Distributed;
  LoopSet set(MPI_COMM_WORLD, {{0, 900, a}, {0, 700, b}});
  for (int step = 0; step < 5; ++step) {
    if (step > 0) set.restart({{0, 900}, {0, 700}});
    std::vector<std::int32_t> l0(900, 0), l1(700, 0);
    while (auto p = set.next()) {
      auto& v = p->loop == 0 ? l0 : l1;
      for (Index i = p->chunk.begin; i < p->chunk.end(); ++i) ++v[static_cast<std::size_t>(i)];
    }
    const std::vector<Report> r = set.finish();
    EXPECT_EQ(not_run_once(l0), 0);
    EXPECT_EQ(not_run_once(l1), 0);
    const Technique want0[] = {Technique::GSS, Technique::GSS, Technique::FAC2};
    const Technique want1[] = {Technique::TSS, Technique::TSS, Technique::AF, Technique::SS};
    if (step < 3) {
      EXPECT_EQ(r[0].technique, want0[step]);
    }
    if (step < 4) {
      EXPECT_EQ(r[1].technique, want1[step]);
    }
    EXPECT_TRUE(same_everywhere(r[0]));
    EXPECT_TRUE(same_everywhere(r[1]));
  }
}

TEST(Auto, BadInputIsRefusedOnEveryRank) {
  auto noop = [](Chunk) {};
  Options bad;
  bad.technique = Technique::Auto;
  bad.auto_policy = "greedy";
  expect_same_error_everywhere([&] { parallel_for(MPI_COMM_WORLD, 0, 10, bad, noop); }, "explore, bandit, rule");
  Options self = bad;
  self.auto_policy = "explore";
  self.auto_candidates = {Technique::GSS, Technique::Auto};
  expect_same_error_everywhere([&] { parallel_for(MPI_COMM_WORLD, 0, 10, self, noop); },
                               "auto_candidates cannot contain auto");
  Options none;
  none.technique = Technique::Auto;
  none.robust = true;
  none.auto_candidates = {Technique::STATIC};
  expect_same_error_everywhere([&] { parallel_for(MPI_COMM_WORLD, 0, 10, none, noop); },
                               "no candidate this mode allows");
}

}  // namespace
}  // namespace lb4mpi::test
