// What the chunk and option fuzz targets found (fuzz/, docs/FUZZING.md), as
// tests of every build: each case is the input that exposed the bug, made
// readable, and asserts the behaviour the fix gives. The inputs themselves
// are also replayed from fuzz/corpus/ (test fuzz_chunks_replay).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "lb4mpi/techniques/chunk_calculator.hpp"

namespace lb4mpi {
namespace {

constexpr Index kHugeN = Index{1} << 62;

/// The closed form walked as DCA walks it, at most `limit` steps: the steps
/// taken and the iterations they cover (contiguous from 0).
std::pair<Index, Index> closed_walk(const ChunkCalculator& calc, Index limit) {
  ClosedSequence seq(calc);
  Index steps = 0;
  Index covered = 0;
  while (steps < limit) {
    const std::optional<Chunk> c = seq.chunk(steps);
    if (!c) break;
    EXPECT_EQ(c->begin, covered) << "step " << steps;
    covered += c->size;
    ++steps;
  }
  return {steps, covered};
}

Index recursive_steps(ChunkCalculator& calc) {
  Index steps = 0;
  for (int rank = 0; calc.next(rank); rank = (rank + 1) % calc.shape().p) ++steps;
  return steps;
}

// TAP's closed form (Eq. 16) tapers the GSS series, and the taper takes
// about v sqrt(2 K) off every chunk: at N = 2^62, P = 4 the sizes fell 3.4 M
// iterations short of N, handed out one by one. The series is now that of
// N + S, S the taper's total; the closed form needs the recursive form's
// chunks, up to the few ulps of N that any closed form evaluated in double
// leaves to one-iteration chunks (docs/FUZZING.md: N / 2^48 + 64).
TEST(FuzzRegressions, TAPClosedFormAtTheLargestLoopsEndsLikeTheRecursiveForm) {
  for (const int p : {1, 3, 4, 1000}) {
    SCOPED_TRACE("P = " + std::to_string(p));
    TechniqueParams params;
    ChunkCalculator recursive(Technique::TAP, {kHugeN, p}, params);
    const Index want = recursive_steps(recursive);
    const ChunkCalculator closed(Technique::TAP, {kHugeN, p}, params);
    const Index bound = want + (kHugeN >> 48) + 64;
    const auto [steps, covered] = closed_walk(closed, bound + 1);
    EXPECT_EQ(covered, kHugeN);
    EXPECT_LE(steps, bound) << "the recursive form takes " << want;
  }
}

// The fix's own first version: N + S overflowed an Index for N = 2^62 and
// an extreme taper (v = alpha sigma / mu huge or infinite); UBSan's find.
TEST(FuzzRegressions, TAPClosedFormTakesAnyTaperAtTheLargestLoops) {
  TechniqueParams params;
  for (const double alpha : {1e3, 1e300}) {
    params.alpha = alpha;
    params.mu = 1e-300;
    const ChunkCalculator closed(Technique::TAP, {kHugeN, 3}, params);
    EXPECT_GE(closed.closed_size(0), 1);
    EXPECT_GE(closed.closed_size(1000), 1);
  }
}

TEST(FuzzRegressions, TAPClosedFormKeepsTable2WhereTheTaperIsBelowOneIteration) {
  // 001's Table 2 (N = 1000, P = 4): S = 0.05 changes nothing.
  const ChunkCalculator closed(Technique::TAP, {1000, 4}, TechniqueParams{});
  EXPECT_EQ(closed.closed_size(0), 250);
  EXPECT_EQ(closed.closed_size(1), 188);
}

// The `000` Eq. 2.2 recurrence replayed step by step, as FAC's closed form
// is defined (TECHNIQUES.md): the size of batch j.
std::vector<Index> fac_batches(Index n, int p, double cv, Index batches) {
  std::vector<Index> out;
  Index remaining = n;
  for (Index j = 0; j < batches; ++j) {
    Index k = 1;
    if (remaining > 0) {
      const double r = static_cast<double>(remaining);
      const double b = p / (2.0 * std::sqrt(r)) * cv;
      const double x = j == 0 ? 1.0 + b * b + b * std::sqrt(b * b + 2.0) : 2.0 + b * b + b * std::sqrt(b * b + 4.0);
      k = std::max<Index>(1, static_cast<Index>(std::ceil(r / (x * p))));
      remaining -= std::min<Index>(remaining, k * p);
    } else {
      k = out.empty() ? 1 : out.back();
    }
    out.push_back(k);
  }
  return out;
}

// FAC with an extreme sigma/mu has far more batches than its table (4096):
// every closed(step) beyond it replayed from the table's end, so walking
// the closed form was quadratic (2^16 steps: minutes). The runs of equal
// chunks are now jumped over; the sizes are still the recurrence's.
TEST(FuzzRegressions, FACClosedFormBeyondItsTableIsTheRecurrenceAndFast) {
  TechniqueParams params;
  params.mu = 1e-3;
  for (const double sigma : {1e9, 3e6, 40.0}) {
    for (const int p : {1, 3}) {
      SCOPED_TRACE("sigma = " + std::to_string(sigma) + ", P = " + std::to_string(p));
      params.sigma = sigma;
      const Index n = Index{1} << 40;
      const ChunkCalculator calc(Technique::FAC, {n, p}, params);
      const std::vector<Index> want = fac_batches(n, p, sigma / params.mu, 10000);
      for (Index j = 0; j < static_cast<Index>(want.size()); ++j) {
        ASSERT_EQ(calc.closed_size(j * p), want[static_cast<std::size_t>(j)]) << "batch " << j;
      }
      // Backwards, then far ahead: the same sizes whatever was asked before.
      EXPECT_EQ(calc.closed_size(4100 * Index{p}), want[4100]);
      EXPECT_GE(calc.closed_size(Index{1} << 50), 1);
      EXPECT_EQ(calc.closed_size(9999 * Index{p}), want[9999]);
      const auto [steps, covered] = closed_walk(calc, Index{1} << 16);  // was minutes
      EXPECT_TRUE(steps == Index{1} << 16 || covered == n);
      // A walk that looks one step back each time (closed_chunk, then
      // ClosedSequence) stays linear too; chunks never grow.
      for (Index step = 1; step < (Index{1} << 15); ++step) {
        ASSERT_LE(calc.closed_size(step), calc.closed_size(step - 1)) << "step " << step;
      }
    }
  }
}

// DCA over RMA replicates an adaptive technique through save_state /
// load_state, which stored the start index as a double: above 2^53 the
// replica resumed at a rounded index, overlapping the chunks before.
TEST(FuzzRegressions, SavedStateKeepsIndicesAbove2To53Exactly) {
  for (const Technique t : {Technique::WF, Technique::AWF_B, Technique::AF}) {
    SCOPED_TRACE(std::string(name(t)));
    const LoopShape shape{kHugeN - 5, 3};
    ChunkCalculator original(t, shape, TechniqueParams{});
    for (int step = 0; step < 50; ++step) {
      const int rank = step % shape.p;
      const std::optional<Chunk> c = original.next(rank);
      ASSERT_TRUE(c);
      const double time = static_cast<double>(c->size) * 1e-9 * (rank + 1);
      original.record(ChunkTiming{rank, c->size, time, time});
    }
    std::vector<double> state;
    original.save_state(state);
    ChunkCalculator replica(t, shape, TechniqueParams{});
    replica.load_state(state);
    EXPECT_EQ(replica.step(), original.step());
    EXPECT_EQ(replica.scheduled(), original.scheduled());
    const std::optional<Chunk> next = replica.next(0);
    ASSERT_TRUE(next);
    EXPECT_EQ(next->begin, original.scheduled());
    for (int r = 0; r < shape.p; ++r) {
      EXPECT_EQ(replica.perf().rank(r).iterations, original.perf().rank(r).iterations);
    }
  }
}

// DCA for techniques without a closed form: the coordinator's commit booked
// the size the rank took, cut by max_chunk, where the recursive form books
// the rule's raw size, so WF's and AWF's batches lasted longer under DCA and
// the two forms parted (AWF, N = 1507328, P = 1, max_chunk 769: 429 against
// 769 at step 1959).
TEST(FuzzRegressions, DcaSplitEqualsRecursiveFormUnderAMaximumChunk) {
  TechniqueParams params;
  params.max_chunk = 40;
  params.weights = {1.0, 3.0, 0.5, 1.0};
  for (const Technique t : {Technique::WF, Technique::AWF, Technique::AWF_B, Technique::AWF_D}) {
    SCOPED_TRACE(std::string(name(t)));
    const LoopShape shape{20011, 4};
    ChunkCalculator recursive(t, shape, params);
    ChunkCalculator coordinator(t, shape, params);
    for (Index step = 0;; ++step) {
      const int rank = static_cast<int>(step % shape.p);
      const std::optional<Chunk> want = recursive.next(rank);
      const std::optional<ChunkCalculator::Grant> g = coordinator.grant(rank);
      ASSERT_EQ(want.has_value(), g.has_value());
      if (!want) break;
      const Chunk got = coordinator.evaluate(*g);
      coordinator.commit(*g, got.size);
      ASSERT_EQ(got.begin, want->begin) << "step " << step;
      ASSERT_EQ(got.size, want->size) << "step " << step;
      const double time = static_cast<double>(got.size) * 1e-6 * (rank + 1);
      recursive.record(ChunkTiming{rank, got.size, time, time});
      coordinator.record(ChunkTiming{rank, got.size, time, time});
    }
  }
}

// While some rank is unmeasured, the others count with the slowest measured
// rank's figures. When that rank got faster, all P ranks were rescanned for
// the next slowest: a rank that kept being the slowest and getting faster
// cost O(P) a record (the fuzzer's PLS loop on 65540 ranks: 28 s for 2^14
// records). Now O(log P); here 10^5 records on 2^16 ranks, and the figures
// still those of the slowest rank.
TEST(FuzzRegressions, SlowestRankIsFoundWithoutRescanningEveryRank) {
  const int p = 1 << 16;
  PerfTable table(p);
  std::vector<double> work(10, 0.0);
  std::vector<Index> iterations(10, 0);
  const auto record = [&](int r, double time) {
    table.record(ChunkTiming{r, 100, time, time}, false);
    work[static_cast<std::size_t>(r)] += time;
    iterations[static_cast<std::size_t>(r)] += 100;
  };
  for (int r = 1; r < 10; ++r) record(r, 1e-4 * r);
  double time = 1e-2;
  for (int k = 0; k < 100000; ++k) {
    time *= 0.9999;  // rank 0 is the slowest, and gets faster at every record
    record(0, time);
    double slowest = 0.0;
    for (std::size_t r = 0; r < work.size(); ++r) {
      slowest = std::max(slowest, work[r] / static_cast<double>(iterations[r]));
    }
    ASSERT_EQ(table.effective_mu(p - 1), slowest) << "record " << k;
  }
}

// closed_size of any step is a bounded size: TFSS summed the TSS terms of
// [i, i + P) and overflowed for a step near 2^63 (UBSan's find; the
// sanitizer build runs this test).
TEST(FuzzRegressions, ClosedSizeOfAnyStepIsBounded) {
  constexpr Index kFar = std::numeric_limits<Index>::max();
  for (const TechniqueInfo& ti : all_techniques()) {
    if (!ti.has_closed_form) continue;
    SCOPED_TRACE(std::string(ti.name));
    for (const LoopShape shape : {LoopShape{kHugeN, 7}, LoopShape{1000, 1 << 16}, LoopShape{0, 3}}) {
      const ChunkCalculator calc(ti.technique, shape, TechniqueParams{});
      for (const Index step : {kFar, kFar - 1, kFar / 2, kHugeN}) EXPECT_GE(calc.closed_size(step), 1) << step;
    }
  }
}

// A technique name with a NUL cut the error message at the NUL ("unknown
// scheduling technique '" and nothing else): control bytes are escaped.
TEST(FuzzRegressions, UnknownTechniqueMessageSurvivesControlBytes) {
  try {
    (void)parse_technique(std::string("GS\0S\n", 5));
    FAIL() << "parsed";
  } catch (const Error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("'GS\\x00S\\x0a'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("STATIC"), std::string::npos) << msg;
    EXPECT_NE(msg.find("PLS"), std::string::npos) << msg;
  }
}

}  // namespace
}  // namespace lb4mpi
