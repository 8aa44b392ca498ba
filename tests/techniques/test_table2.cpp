// `001` Table 2 (N = 1000, P = 4, default parameters, FISS B = 3, VISS X = 4,
// PLS SWR = 0.7) reproduced by the closed forms (Eq. 14-21).
#include <gtest/gtest.h>

#include <numeric>

#include "helpers.hpp"

namespace lb4mpi::test {
namespace {

constexpr LoopShape kShape{1000, 4};

std::vector<Index> table2(Technique t) {
  TechniqueParams params;
  params.fiss_batches = 3;
  params.viss_x = 4.0;
  params.pls_swr = 0.7;
  return closed_sizes(t, kShape, params);
}

TEST(Table2, Static) {
  EXPECT_EQ(table2(Technique::STATIC), (std::vector<Index>{250, 250, 250, 250}));
}

TEST(Table2, SS) { EXPECT_EQ(table2(Technique::SS), repeat(1, 1000)); }

TEST(Table2, FSC) {
  // 58 chunks of 17, then 14: 59 chunks.
  EXPECT_EQ(table2(Technique::FSC), concat({repeat(17, 58), {14}}));
}

TEST(Table2, GSS) {
  EXPECT_EQ(table2(Technique::GSS), (std::vector<Index>{250, 188, 141, 106, 80, 60, 45, 34, 26, 19,
                                                        15, 11, 8, 6, 5, 4, 2}));
}

TEST(Table2, TAPMatchesUpToTheLastTwoChunks) {
  const std::vector<Index> paper{250, 188, 141, 106, 80, 60, 45, 34, 26, 19, 15, 11, 8, 6, 5, 3, 3};
  const std::vector<Index> got = table2(Technique::TAP);
  ASSERT_EQ(got.size(), paper.size());
  for (std::size_t i = 0; i + 2 < paper.size(); ++i) EXPECT_EQ(got[i], paper[i]) << "step " << i;
  // The formula (Eq. 16) gives 4, 2 where the paper prints 3, 3 (papers/README.md).
  EXPECT_EQ(got[15], 4);
  EXPECT_EQ(got[16], 2);
}

TEST(Table2, TSS) {
  EXPECT_EQ(table2(Technique::TSS),
            (std::vector<Index>{125, 117, 109, 101, 93, 85, 77, 69, 61, 53, 45, 37, 28}));
}

TEST(Table2, FAC2) {
  EXPECT_EQ(table2(Technique::FAC2),
            concat({repeat(125, 4), repeat(63, 4), repeat(32, 4), repeat(16, 4), repeat(8, 4),
                    repeat(4, 4), repeat(2, 4)}));
}

TEST(Table2, TFSS) {
  EXPECT_EQ(table2(Technique::TFSS),
            concat({repeat(113, 4), repeat(81, 4), repeat(49, 4), {17, 11}}));
}

TEST(Table2, FISS) {
  EXPECT_EQ(table2(Technique::FISS), concat({repeat(50, 4), repeat(83, 4), repeat(116, 4), {4}}));
}

TEST(Table2, VISS) {
  EXPECT_EQ(table2(Technique::VISS), concat({repeat(62, 4), repeat(93, 4), repeat(108, 3), {56}}));
}

TEST(Table2, PLS) {
  EXPECT_EQ(table2(Technique::PLS),
            concat({repeat(175, 4), {75, 57, 43, 32, 24, 18, 14, 11, 8, 6, 5, 4, 3}}));
}

TEST(Table2, ClosedSizeIsIndependentOfOrder) {
  // DCA: any rank computes step i alone; asking backwards gives the same sizes.
  const ChunkCalculator calc(Technique::GSS, kShape, TechniqueParams{});
  const std::vector<Index> forward = table2(Technique::GSS);
  for (Index i = static_cast<Index>(forward.size()) - 2; i >= 0; --i) {
    EXPECT_EQ(calc.closed_size(i), forward[static_cast<std::size_t>(i)]);
  }
}

}  // namespace
}  // namespace lb4mpi::test
