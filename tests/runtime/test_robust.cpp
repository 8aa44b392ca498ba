// Robust mode without failures (the failures are tests/robust/, real
// processes killed): every technique and mode it supports commits each
// iteration's result exactly once, executes each iteration at least once,
// and hands chunks out again when a rank is slow; bad combinations are
// refused on every rank alike. Results travel with chunks in every mode.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "lb4mpi/loops.hpp"
#include "mpi_check.hpp"

namespace lb4mpi::test {
namespace {

void spin_iteration() {
  const double until = MPI_Wtime() + 2e-6;
  while (MPI_Wtime() < until) {
  }
}

std::uint64_t sum_of(Chunk c) {
  std::uint64_t s = 0;
  for (Index i = c.begin; i < c.end(); ++i) s += static_cast<std::uint64_t>(i) * 2654435761ULL + 1;
  return s;
}

struct Outcome {
  Index committed_wrong = 0;  // iterations not committed exactly once (summed over ranks)
  Index bad_results = 0;      // committed results that do not match their piece
  Index executed_missing = 0; // iterations executed nowhere
  Report report;
};

// Runs [first, last) with `opt`; every piece attaches sum_of(piece); every
// rank records what its commit function saw (the coordinator, or the
// executing rank), and the counts are summed over the ranks.
Outcome run_with_results(Index first, Index last, const Options& opt, bool spin) {
  const auto n = static_cast<std::size_t>(last - first);
  std::vector<std::int32_t> committed(n, 0), executed(n, 0);
  Index bad = 0;
  Loop loop(MPI_COMM_WORLD, first, last, opt);
  loop.on_commit([&](Chunk piece, const std::byte* data, std::size_t bytes) {
    std::uint64_t v = 0;
    if (bytes != sizeof v || piece.begin < first || piece.end() > last) {
      ++bad;
      return;
    }
    std::memcpy(&v, data, sizeof v);
    if (v != sum_of(piece)) ++bad;
    for (Index i = piece.begin; i < piece.end(); ++i) ++committed[static_cast<std::size_t>(i - first)];
  });
  while (auto c = loop.next()) {
    for (Index i = c->begin; i < c->end(); ++i) {
      if (spin) spin_iteration();
      ++executed[static_cast<std::size_t>(i - first)];
    }
    loop.result(sum_of(*c));
  }
  Outcome o;
  o.report = loop.finish();
  std::vector<std::int32_t> all_committed(n), all_executed(n);
  rt::allreduce(committed.data(), all_committed.data(), static_cast<int>(n), MPI_INT32_T, MPI_SUM, MPI_COMM_WORLD);
  rt::allreduce(executed.data(), all_executed.data(), static_cast<int>(n), MPI_INT32_T, MPI_SUM, MPI_COMM_WORLD);
  for (std::size_t i = 0; i < n; ++i) {
    o.committed_wrong += all_committed[i] != 1;
    o.executed_missing += all_executed[i] < 1;
  }
  rt::allreduce(&bad, &o.bad_results, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  return o;
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return {};
}

// The same message on every rank (compared with rank 0's).
void expect_same_everywhere(const std::string& msg) {
  int len = static_cast<int>(msg.size());
  MPI_Bcast(&len, 1, MPI_INT, 0, MPI_COMM_WORLD);
  std::string msg0 = msg;
  msg0.resize(static_cast<std::size_t>(len));
  MPI_Bcast(msg0.data(), len, MPI_CHAR, 0, MPI_COMM_WORLD);
  EXPECT_EQ(msg, msg0);
}

TEST(Robust, EveryTechniqueAndModeCommitsEachIterationOnce) {
  std::map<Mode, Index> reissued;
  for (const TechniqueInfo& ti : all_techniques()) {
    const Technique t = ti.technique;
    if (t == Technique::STATIC) continue;
    for (Mode m : {Mode::Centralized, Mode::Distributed, Mode::DistributedRMA}) {
      Options opt;
      opt.technique = t;
      opt.mode = m;
      opt.robust = true;
      // The last rank is slow: the others finish first and take copies of its chunks.
      if (world_size() > 1) {
        opt.slow_ranks = {world_size() - 1};
        opt.slow_factor = 4.0;
      }
      const Outcome o = run_with_results(5, 2005, opt, true);
      const std::string what = std::string(name(t)) + "/" + std::string(name(m));
      EXPECT_EQ(o.committed_wrong, 0) << what << ": iterations not committed exactly once";
      EXPECT_EQ(o.bad_results, 0) << what << ": committed results that do not match their piece";
      EXPECT_EQ(o.executed_missing, 0) << what << ": iterations executed nowhere";
      EXPECT_TRUE(o.report.robust) << what;
      EXPECT_TRUE(o.report.failed_ranks.empty()) << what << ": a rank reported failed without a failure";
      EXPECT_EQ(o.report.iterations() >= 2000, true) << what;
      reissued[m] += o.report.reissued_chunks;
    }
  }
  // With a slow rank, chunks are handed out again in every mode (not
  // necessarily in every loop).
  if (world_size() > 1) {
    for (const auto& [m, r] : reissued) EXPECT_GT(r, 0) << name(m) << ": no chunk was ever handed out again";
  }
}

// Automatic selection in robust mode leaves out the candidates robust mode
// refuses (STATIC here) and commits every iteration once as a fixed technique.
TEST(Robust, AutoLeavesOutWhatRobustRefuses) {
  Options opt;
  opt.technique = Technique::Auto;
  opt.robust = true;
  opt.auto_candidates = {Technique::STATIC, Technique::GSS};
  const Outcome o = run_with_results(0, 500, opt, false);
  EXPECT_EQ(o.committed_wrong, 0);
  EXPECT_EQ(o.bad_results, 0);
  EXPECT_EQ(o.executed_missing, 0);
  EXPECT_EQ(o.report.technique, Technique::GSS);
  EXPECT_NE(o.report.selection.find("GSS"), std::string::npos) << o.report.selection;
}

TEST(Robust, ResultsAreCommittedOnceInEveryMode) {
  for (Mode m : {Mode::Centralized, Mode::Distributed, Mode::DistributedRMA}) {
    for (Technique t : {Technique::STATIC, Technique::GSS, Technique::AF}) {
      Options opt;
      opt.technique = t;
      opt.mode = m;
      const Outcome o = run_with_results(0, 1500, opt, false);
      const std::string what = std::string(name(t)) + "/" + std::string(name(m));
      EXPECT_EQ(o.committed_wrong, 0) << what;
      EXPECT_EQ(o.bad_results, 0) << what;
      EXPECT_EQ(o.executed_missing, 0) << what;
      EXPECT_FALSE(o.report.robust);
      EXPECT_EQ(o.report.reissued_chunks, 0);
    }
  }
}

TEST(Robust, OneCallFormWithResults) {
  Options opt;
  opt.robust = true;
  opt.technique = Technique::FAC2;
  std::uint64_t total = 0;
  Index committed = 0;
  const Report r = parallel_for_results<std::uint64_t>(
      MPI_COMM_WORLD, 0, 3000, opt, [](Chunk c) { return sum_of(c); },
      [&](Chunk c, const std::uint64_t& v) {
        total += v;
        committed += c.size;
      });
  EXPECT_TRUE(r.failed_ranks.empty());
  if (world_rank() == 0) {  // the coordinator
    EXPECT_EQ(committed, 3000);
    EXPECT_EQ(total, sum_of(Chunk{0, 3000}));
  } else {
    EXPECT_EQ(committed, 0);
  }
}

// Several robust loops in flight (LoopSet): each loop's results committed
// exactly once on its coordinator, every mode in one set, a slowed last rank
// (copies are handed out), driven by next() and by next(l) in turn.
TEST(Robust, LoopSetCommitsEachLoopsIterationsOnce) {
  const Index n = 1500;
  const std::vector<std::pair<Technique, Mode>> loops = {
      {Technique::FAC2, Mode::Centralized}, {Technique::GSS, Mode::Distributed}, {Technique::AF, Mode::DistributedRMA}};
  for (const bool targeted : {false, true}) {
    std::vector<LoopSpec> specs;
    for (const auto& [t, m] : loops) {
      LoopSpec s{0, n, Options{}};
      s.options.technique = t;
      s.options.mode = m;
      s.options.robust = true;
      if (world_size() > 1) {
        s.options.slow_ranks = {world_size() - 1};
        s.options.slow_factor = 4.0;
      }
      specs.push_back(s);
    }
    const std::size_t nl = specs.size();
    std::vector<std::int32_t> committed(nl * static_cast<std::size_t>(n), 0), executed(committed.size(), 0);
    Index bad = 0;
    LoopSet set(MPI_COMM_WORLD, specs);
    for (std::size_t l = 0; l < nl; ++l) {
      set.on_commit(static_cast<int>(l), [&, l](Chunk piece, const std::byte* data, std::size_t bytes) {
        std::uint64_t v = 0;
        if (bytes != sizeof v || piece.begin < 0 || piece.end() > n) {
          ++bad;
          return;
        }
        std::memcpy(&v, data, sizeof v);
        if (v != sum_of(piece) + l) ++bad;
        for (Index i = piece.begin; i < piece.end(); ++i) ++committed[l * static_cast<std::size_t>(n) + static_cast<std::size_t>(i)];
      });
    }
    const auto run = [&](int l, Chunk c) {
      for (Index i = c.begin; i < c.end(); ++i) {
        spin_iteration();
        ++executed[static_cast<std::size_t>(l) * static_cast<std::size_t>(n) + static_cast<std::size_t>(i)];
      }
      set.result(sum_of(c) + static_cast<std::uint64_t>(l));
    };
    if (targeted) {
      while (!set.terminated()) {
        for (int l = 0; l < set.size(); ++l) {
          if (auto c = set.next(l)) run(l, *c);
        }
      }
    } else {
      while (auto p = set.next()) run(p->loop, p->chunk);
    }
    const std::vector<Report> reports = set.finish();
    std::vector<std::int32_t> all_committed(committed.size()), all_executed(committed.size());
    rt::allreduce(committed.data(), all_committed.data(), static_cast<int>(committed.size()), MPI_INT32_T, MPI_SUM,
                  MPI_COMM_WORLD);
    rt::allreduce(executed.data(), all_executed.data(), static_cast<int>(committed.size()), MPI_INT32_T, MPI_SUM,
                  MPI_COMM_WORLD);
    Index all_bad = 0;
    rt::allreduce(&bad, &all_bad, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    Index wrong = 0, missing = 0;
    for (std::size_t i = 0; i < committed.size(); ++i) {
      wrong += all_committed[i] != 1;
      missing += all_executed[i] < 1;
    }
    EXPECT_EQ(wrong, 0) << "targeted " << targeted << ": iterations not committed exactly once";
    EXPECT_EQ(all_bad, 0) << "targeted " << targeted << ": committed results that do not match their piece";
    EXPECT_EQ(missing, 0) << "targeted " << targeted << ": iterations executed nowhere";
    ASSERT_EQ(reports.size(), nl);
    for (const Report& r : reports) {
      EXPECT_TRUE(r.robust);
      EXPECT_TRUE(r.failed_ranks.empty()) << "a rank reported failed without a failure";
    }
  }
}

TEST(Robust, UnsupportedCombinationsAreRefusedEverywhere) {
  auto noop = [](Chunk) {};
  Options s;
  s.robust = true;
  s.technique = Technique::STATIC;
  std::string msg = error_of([&] { parallel_for(MPI_COMM_WORLD, 0, 100, s, noop); });
  EXPECT_NE(msg.find("robust mode needs a dynamic technique"), std::string::npos) << msg;
  EXPECT_NE(msg.find("every technique but STATIC"), std::string::npos) << msg;
  expect_same_everywhere(msg);

  setenv("LB4MPI_FAIL_AFTER", "soon", 1);
  msg = error_of([] { (void)Options::from_env(); });
  unsetenv("LB4MPI_FAIL_AFTER");
  EXPECT_NE(msg.find("LB4MPI_FAIL_AFTER='soon'; valid: a number of chunks (3), of seconds (0.25s), end or report"),
            std::string::npos)
      << msg;

  LoopSpec spec{0, 100, Options{}};
  spec.options.robust = true;
  msg = error_of([&] { LoopSet set(MPI_COMM_WORLD, {spec, LoopSpec{0, 100, Options{}}}); });
  EXPECT_NE(msg.find("a loop set is robust as a whole or not at all: loop 0 has robust = true, loop 1 robust = false"),
            std::string::npos)
      << msg;
  expect_same_everywhere(msg);

  // A result outside a chunk is the caller's error, named.
  Options plain;
  Loop loop(MPI_COMM_WORLD, 0, 10, plain);
  msg = error_of([&] { loop.result(1); });
  EXPECT_NE(msg.find("outside a chunk"), std::string::npos) << msg;
  while (loop.next()) {
  }
  (void)loop.finish();
}

}  // namespace
}  // namespace lb4mpi::test
