// Which steps are finished (src/runtime/recovery/steps_done.hpp), without
// MPI: distributed-rma under recovery learns of steps in any order and may
// hear of one twice (copies); a rank keeps the steps it finished itself.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "recovery/steps_done.hpp"

namespace lb4mpi::rt {
namespace {

TEST(StepsDone, AnyOrderAndDuplicatesCountOnce) {
  StepsDone s;
  s.start();
  std::vector<std::int64_t> order(200);
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<std::int64_t>(i);
  std::shuffle(order.begin(), order.end(), std::mt19937(7));
  int firsts = 0;
  for (std::size_t k = 0; k < order.size(); ++k) {
    firsts += s.finish(order[k]) ? 1 : 0;
    EXPECT_FALSE(s.finish(order[k])) << "step " << order[k] << " twice";
    EXPECT_FALSE(s.finish(order[k / 2])) << "an earlier step again";
    for (std::int64_t id = 0; id < 200; ++id) {
      const bool seen = std::find(order.begin(), order.begin() + static_cast<long>(k) + 1, id) !=
                        order.begin() + static_cast<long>(k) + 1;
      ASSERT_EQ(s.done(id), seen) << "step " << id << " after " << k + 1 << " finished";
    }
  }
  EXPECT_EQ(firsts, 200);
  EXPECT_FALSE(s.done(200));
  s.start();  // the next loop
  EXPECT_FALSE(s.done(0));
  EXPECT_TRUE(s.finish(0));
}

TEST(StepList, AscendingWithACopyInBetween) {
  StepList l;
  for (std::int64_t id : {3, 9, 14}) l.add(id);
  l.add(5);  // a copy of an older step
  l.add(9);  // once
  for (std::int64_t id = 0; id < 20; ++id) {
    EXPECT_EQ(l.contains(id), id == 3 || id == 5 || id == 9 || id == 14) << id;
  }
  l.clear();
  EXPECT_FALSE(l.contains(3));
}

}  // namespace
}  // namespace lb4mpi::rt
