// Several loops in flight at once: each iteration of each loop exactly once.
#include <string>
#include <vector>

#include "lb4mpi/loops.hpp"
#include "mpi_check.hpp"

namespace lb4mpi::test {
namespace {

// Runs `specs` (async or not) `steps` times and checks every loop's coverage.
void run_and_check(std::vector<LoopSpec> specs, bool async, int steps = 1) {
  const std::size_t k = specs.size();
  std::vector<std::vector<std::int32_t>> local(k);
  auto reset = [&] {
    for (std::size_t l = 0; l < k; ++l) {
      local[l].assign(static_cast<std::size_t>(specs[l].last - specs[l].first), 0);
    }
  };
  auto check = [&](const std::vector<Report>& reports, int step) {
    ASSERT_EQ(reports.size(), k);
    for (std::size_t l = 0; l < k; ++l) {
      const Index n = specs[l].last - specs[l].first;
      std::vector<std::int32_t> all(local[l].size());
      MPI_Allreduce(local[l].data(), all.data(), static_cast<int>(n), MPI_INT32_T, MPI_SUM, MPI_COMM_WORLD);
      Index wrong = 0;
      for (auto v : all) wrong += (v != 1);
      EXPECT_EQ(wrong, 0) << "loop " << l << " (" << name(specs[l].options.technique) << ", "
                          << name(specs[l].options.mode) << ") step " << step;
      EXPECT_EQ(reports[l].iterations(), n) << "loop " << l;
    }
  };
  std::vector<std::function<void(Chunk)>> bodies;
  for (std::size_t l = 0; l < k; ++l) {
    bodies.push_back([&, l](Chunk c) {
      for (Index i = c.begin; i < c.end(); ++i) ++local[l][static_cast<std::size_t>(i - specs[l].first)];
    });
  }
  if (!async || steps == 1) {
    for (int s = 0; s < steps; ++s) {
      reset();
      check(run_loops(MPI_COMM_WORLD, specs, bodies, async), s);
    }
    return;
  }
  // Time steps on one LoopSet; ranges change every other step.
  LoopSet set(MPI_COMM_WORLD, specs);
  for (int s = 0; s < steps; ++s) {
    if (s > 0) {
      std::vector<std::pair<Index, Index>> ranges;
      for (auto& sp : specs) {
        sp.last = sp.first + (sp.last - sp.first) + (s % 2 == 0 ? 7 : -7);
        if (sp.last < sp.first) sp.last = sp.first;
        ranges.emplace_back(sp.first, sp.last);
      }
      set.restart(ranges);
    }
    reset();
    while (!set.terminated()) {
      for (int l = 0; l < set.size(); ++l) {
        if (auto c = set.next(l)) bodies[static_cast<std::size_t>(l)](*c);
      }
    }
    check(set.finish(), s);
  }
}

LoopSpec spec(Index first, Index last, Technique t, Mode m = Mode::Centralized, int coordinator = 0) {
  LoopSpec s;
  s.first = first;
  s.last = last;
  s.options.technique = t;
  s.options.mode = m;
  s.options.coordinator = coordinator;
  return s;
}

class MultiLoop : public ::testing::TestWithParam<Mode> {};

TEST_P(MultiLoop, MixedTechniquesSynchronousAndAsynchronous) {
  const Mode m = GetParam();
  for (bool async : {false, true}) {
    SCOPED_TRACE(async ? "asynchronous" : "synchronous");
    run_and_check({spec(0, 3000, Technique::STATIC, m), spec(10, 2010, Technique::AF, m),
                   spec(-5, 4000, Technique::GSS, m)},
                  async);
    run_and_check({spec(0, 1000, Technique::SS, m), spec(0, 1500, Technique::AWF_D, m),
                   spec(0, 2500, Technique::FAC2, m), spec(0, 999, Technique::TSS, m)},
                  async);
  }
}

TEST_P(MultiLoop, EmptyLoopAmongOthers) {
  const Mode m = GetParam();
  run_and_check({spec(0, 0, Technique::GSS, m), spec(0, 1234, Technique::AWF_B, m), spec(7, 7, Technique::SS, m)},
                true);
}

TEST_P(MultiLoop, ManyTimeSteps) {
  const Mode m = GetParam();
  run_and_check({spec(0, 800, Technique::AWF, m), spec(0, 1200, Technique::AF, m), spec(0, 600, Technique::FISS, m)},
                true, 12);
}

TEST_P(MultiLoop, EveryTechniqueNextToAnother) {
  const Mode m = GetParam();
  for (const auto& i : all_techniques()) {
    SCOPED_TRACE(std::string(i.name));
    run_and_check({spec(0, 1111, i.technique, m), spec(0, 777, Technique::GSS, m)}, true);
  }
}

INSTANTIATE_TEST_SUITE_P(Modes, MultiLoop,
                         ::testing::Values(Mode::Centralized, Mode::Distributed, Mode::DistributedRMA),
                         [](const auto& p) {
                           std::string s(name(p.param));
                           for (char& ch : s) ch = ch == '-' ? '_' : ch;
                           return s;
                         });

TEST(MultiLoopMixed, ModesAndCoordinatorsDifferPerLoop) {
  const int last = world_size() - 1;
  run_and_check({spec(0, 2000, Technique::GSS, Mode::Centralized, 0),
                 spec(0, 1500, Technique::AF, Mode::Distributed, last),
                 spec(0, 1800, Technique::FAC2, Mode::DistributedRMA, last),
                 spec(0, 900, Technique::AWF_C, Mode::Centralized, last)},
                true, 3);
}

TEST(MultiLoopMixed, BadLoopIndexIsAnError) {
  LoopSet set(MPI_COMM_WORLD, {spec(0, 10, Technique::SS)});
  EXPECT_THROW((void)set.next(1), Error);
  while (!set.terminated()) {
    (void)set.next(0);
  }
  EXPECT_EQ(set.finish()[0].iterations(), 10);
}

}  // namespace
}  // namespace lb4mpi::test
