// The coordinator's ledger (src/runtime/ledger.hpp), without MPI: a chunk's
// completion counts once whatever copies of it finish (robust mode hands a
// chunk out again, and the first completion wins), and re-issue picks what
// the asking rank does not hold. The runtime tests see the same only when a
// copy happens to finish second, which a quiet machine may never do.
#include <gtest/gtest.h>

#include "ledger.hpp"

namespace lb4mpi::rt {
namespace {

TEST(Ledger, AChunkFinishesOnceWhateverItsCopies) {
  Ledger l;
  l.start(30);
  l.scheduled(0, Chunk{0, 10}, 1);
  l.scheduled(1, Chunk{10, 20}, 2);
  const Ledger::Entry* copy = l.reissue(3);  // every chunk scheduled: chunk 0 again, to rank 3
  ASSERT_NE(copy, nullptr);
  EXPECT_EQ(copy->id, 0);
  EXPECT_TRUE(copy->held_by(1) && copy->held_by(3));
  // Chunk 1 twice while chunk 0 is still out (its entry stays in the window).
  EXPECT_TRUE(l.finished(1, 20));
  EXPECT_FALSE(l.finished(1, 20));  // a duplicate: committed and counted never
  EXPECT_EQ(l.finished_iterations(), 20);
  EXPECT_FALSE(l.complete());
  EXPECT_TRUE(l.finished(0, 10));   // rank 3's copy first
  EXPECT_FALSE(l.finished(0, 10));  // then rank 1's
  EXPECT_FALSE(l.out(0));
  EXPECT_EQ(l.finished_iterations(), 30);
  EXPECT_TRUE(l.complete());
}

TEST(Ledger, ReissueSkipsWhatTheRankHoldsAndSpreadsCopies) {
  Ledger l;
  l.start(20);
  l.scheduled(0, Chunk{0, 10}, 1);
  l.scheduled(1, Chunk{10, 10}, 2);
  const Ledger::Entry* a = l.reissue(1);  // rank 1 holds chunk 0: it gets chunk 1
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->id, 1);
  const Ledger::Entry* b = l.reissue(3);  // chunk 0 has fewer holders now
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->id, 0);
  EXPECT_TRUE(l.finished(0, 10));
  EXPECT_TRUE(l.finished(1, 10));
  EXPECT_EQ(l.reissue(4), nullptr);  // nothing is out
}

TEST(Ledger, TheWindowWrapsAndGrowsWhileAnOldChunkStaysOut) {
  // The window is a ring: steps finish at its front while new ones arrive
  // (it wraps), and an old step that stays out makes it grow (it moves).
  Ledger l;
  const Index n = 1000;
  l.start(n);
  for (std::int64_t id = 0; id < 50; ++id) l.scheduled(id, Chunk{id, 1}, 1);
  for (std::int64_t id = 0; id < 40; ++id) EXPECT_TRUE(l.finished(id, 1));
  // Step 40 stays out; 300 more go out and finish behind it.
  for (std::int64_t id = 50; id < 350; ++id) l.scheduled(id, Chunk{id, 1}, 2);
  for (std::int64_t id = 41; id < 350; ++id) EXPECT_TRUE(l.finished(id, 1));
  EXPECT_TRUE(l.out(40));
  EXPECT_FALSE(l.out(39));
  EXPECT_FALSE(l.out(41));
  const Ledger::Entry* copy = l.reissue(3);  // the one chunk out
  ASSERT_NE(copy, nullptr);
  EXPECT_EQ(copy->id, 40);
  EXPECT_EQ(copy->chunk.begin, 40);
  EXPECT_TRUE(l.finished(40, 1));
  EXPECT_EQ(l.finished_iterations(), 350);
  // The rest, through the emptied window.
  for (std::int64_t id = 350; id < n; ++id) l.scheduled(id, Chunk{id, 1}, 1);
  for (std::int64_t id = n - 1; id >= 350; --id) EXPECT_TRUE(l.finished(id, 1));
  EXPECT_TRUE(l.complete());
  EXPECT_EQ(l.reissue(1), nullptr);
}

}  // namespace
}  // namespace lb4mpi::rt
