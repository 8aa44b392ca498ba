// The closed forms under a maximum chunk: a shrinking technique first hands
// out max_chunk-sized chunks and then its own closed form over what is left,
// so it needs about as many chunks as the recursive form (which keeps
// hitting the cap while R_i is large) instead of decaying by step index into
// a long run of min_chunk chunks.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "helpers.hpp"

namespace lb4mpi::test {
namespace {

struct CapCase {
  Index n;
  int p;
  Index min_chunk;
  Index max_chunk;
};

std::string describe(const CapCase& c) {
  return "N=" + std::to_string(c.n) + " P=" + std::to_string(c.p) +
         " min=" + std::to_string(c.min_chunk) + " max=" + std::to_string(c.max_chunk);
}

const std::vector<CapCase>& cap_cases() {
  static const std::vector<CapCase> cases = {
      {65536, 3, 13, 400},   // the audit's Mandelbrot-like loop
      {262144, 3, 13, 400},  // the three-loop Mandelbrot's loop size
      {1000, 4, 1, 40},      // Table 2's loop
      {10007, 7, 1, 100},    // N not a multiple of anything
      {10007, 7, 5, 5},      // cap = min_chunk
      {1'000'000, 16, 1, 1000},
      {1'000'000, 256, 5, 500},
      {(Index{1} << 31) + 11, 16, 16384, Index{1} << 20},  // min 2^14: SS stays affordable (131 k chunks)
      {50'000, 2, 1, 30'000},  // a cap that bites only the first chunk or two
      {100, 8, 1, 7},
  };
  return cases;
}

TEST(CappedClosedForm, ChunkCountStaysNearTheRecursiveForm) {
  for (const auto& ti : all_techniques()) {
    // STATIC's blocks are not bounded by min/max chunk (StaticIgnoresMinAndMaxChunk).
    if (!ti.has_closed_form || ti.technique == Technique::STATIC) continue;
    for (const CapCase& c : cap_cases()) {
      TechniqueParams params;
      params.min_chunk = c.min_chunk;
      params.max_chunk = c.max_chunk;
      const auto count = [&](Form form) {
        Index chunks = 0;
        Index largest = 0;
        for_each_simulated_chunk(ti.technique, {c.n, c.p}, params, form, SimulationSetup{},
                                 [&](const Chunk& k, int /*rank*/) {
                                   ++chunks;
                                   largest = std::max(largest, k.size);
                                 });
        EXPECT_LE(largest, c.max_chunk) << ti.name << " " << describe(c);
        return chunks;
      };
      const Index closed = count(Form::Closed);
      const Index recursive = count(Form::Recursive);
      const double limit = 1.5 * static_cast<double>(recursive) + c.p;
      EXPECT_LE(static_cast<double>(closed), limit) << ti.name << " " << describe(c) << ": closed "
                                                    << closed << " chunks, recursive " << recursive;
    }
  }
}

TEST(CappedClosedForm, GSSIsCappedChunksThenEquation14OverTheRest) {
  // N = 65536, P = 3, M = 400: the rest L = N - s M is no longer cut once
  // ceil(L / P) <= M, i.e. L <= 1200: s* = ceil((65536 - 1200) / 400) = 161,
  // L = 1136. Then Eq. 14 over L: ceil((2/3)^j * L / 3), at least min_chunk.
  TechniqueParams params;
  params.min_chunk = 13;
  params.max_chunk = 400;
  const LoopShape shape{65536, 3};
  const ChunkCalculator calc(Technique::GSS, shape, params);
  const Index s_star = (65536 - 1200 + 399) / 400;
  ASSERT_EQ(s_star, 161);
  EXPECT_EQ(calc.capped_steps(), s_star);
  const Index rest = 65536 - s_star * 400;
  std::vector<Index> expected(static_cast<std::size_t>(s_star), 400);
  Index covered = s_star * 400;
  for (int j = 0; covered < shape.n; ++j) {
    const auto k =
        static_cast<Index>(std::ceil(std::pow(2.0 / 3.0, j) * static_cast<double>(rest) / 3.0));
    const Index size = std::min(std::max<Index>(k, 13), shape.n - covered);
    expected.push_back(size);
    covered += size;
  }
  EXPECT_EQ(closed_sizes(Technique::GSS, shape, params), expected);
  // The first chunk after the prefix is the recursive form's too: ceil(1136 / 3).
  EXPECT_EQ(expected[static_cast<std::size_t>(s_star)], 379);
}

TEST(CappedClosedForm, BatchedTechniquesKeepWholeBatches) {
  // FAC2, N = 65536, P = 3, M = 400: L <= 2P M = 2400 from s = 158.4 on;
  // rounded up to whole batches, s* = 159 and L = 1936, whose batches are
  // ceil(0.5^(b+1) * 1936 / 3) = 323, 162, 81, ... as in the recursive form.
  TechniqueParams params;
  params.min_chunk = 13;
  params.max_chunk = 400;
  const LoopShape shape{65536, 3};
  for (const Technique t : {Technique::FAC, Technique::FAC2, Technique::TFSS}) {
    const ChunkCalculator calc(t, shape, params);
    EXPECT_EQ(calc.capped_steps() % 3, 0) << name(t);
    EXPECT_GT(calc.capped_steps(), 0) << name(t);
  }
  const ChunkCalculator fac2(Technique::FAC2, shape, params);
  EXPECT_EQ(fac2.capped_steps(), 159);
  for (Index i = 0; i < 159; ++i) ASSERT_EQ(fac2.closed_size(i), 400) << i;
  for (Index i = 159; i < 162; ++i) EXPECT_EQ(fac2.closed_size(i), 323) << i;
  for (Index i = 162; i < 165; ++i) EXPECT_EQ(fac2.closed_size(i), 162) << i;
  const std::vector<Index> rec = recursive_sizes(Technique::FAC2, shape, params);
  ASSERT_GT(rec.size(), 165U);
  EXPECT_EQ(rec[158], 400);
  EXPECT_EQ(rec[159], 323);
}

TEST(CappedClosedForm, NoChangeWhenTheCapDoesNotBite) {
  // A cap at or above the largest chunk leaves every closed form as it was.
  for (const auto& ti : all_techniques()) {
    if (!ti.has_closed_form) continue;
    for (const LoopShape shape : {LoopShape{1000, 4}, LoopShape{10007, 7}}) {
      TechniqueParams capped;
      capped.max_chunk = shape.n;
      const ChunkCalculator calc(ti.technique, shape, capped);
      EXPECT_EQ(calc.capped_steps(), 0) << ti.name;
      EXPECT_EQ(closed_sizes(ti.technique, shape, capped),
                closed_sizes(ti.technique, shape, TechniqueParams{}))
          << ti.name;
    }
  }
}

TEST(CappedClosedForm, TSSAndTFSSFormsStillCoincide) {
  // Both depend on the step only; under a cap the recursive form follows the
  // same plan, and neither ends in a long run of min_chunk chunks.
  TechniqueParams params;
  params.min_chunk = 13;
  params.max_chunk = 400;
  for (const Technique t : {Technique::TSS, Technique::TFSS}) {
    const std::vector<Index> closed = closed_sizes(t, {65536, 3}, params);
    EXPECT_EQ(recursive_sizes(t, {65536, 3}, params), closed) << name(t);
    EXPECT_LT(closed.size(), 65536U / 400U + 20U) << name(t);
  }
}

}  // namespace
}  // namespace lb4mpi::test
