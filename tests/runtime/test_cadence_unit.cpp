// How a rank paces its looks for messages (runtime/pieces.hpp) and how a
// reply of several chunks is cut into its parts (protocol.hpp), issue 32:
// counted in iterations from the measured iteration time, 100 times longer
// under the `block` wait policy (no MPI).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "protocol.hpp"
#include "runtime/pieces.hpp"
#include "runtime/waiting.hpp"

namespace lb4mpi {
namespace {

using rt::WaitPolicy;

TEST(ServeCadence, LatencyCountedInIterationsAndStretchedUnderBlock) {
  for (WaitPolicy w : {WaitPolicy::Yield, WaitPolicy::Block}) {
    SCOPED_TRACE(std::string(rt::name(w)));
    rt::set_wait_policy(w);
    const double factor = w == WaitPolicy::Block ? rt::kBlockLatencyFactor : 1.0;
    EXPECT_EQ(rt::latency_factor(), factor);
    rt::ServeCadence c;
    c.configure(-1);
    c.checked(0.0);          // the first check: nothing measured yet
    c.executed(1000);        // 1000 iterations ...
    c.checked(1000 * 1e-7);  // ... of 0.1 us each
    // A check about every kServeLatency (x factor) of work: 200 (x factor) iterations.
    EXPECT_NEAR(static_cast<double>(c.budget()), rt::kServeLatency * factor / 1e-7, 1.0);
    // Between its own chunks: a look every kAnswerLatency (x factor) of work.
    const double every = rt::kAnswerLatency * factor / 1e-7;
    c.answered();
    c.executed(static_cast<Index>(0.9 * every));
    EXPECT_FALSE(c.answer_due());
    c.executed(static_cast<Index>(0.2 * every));
    EXPECT_TRUE(c.answer_due());
  }
  rt::set_wait_policy(WaitPolicy::Yield);
}

TEST(ServeCadence, AFixedBreakAfterIgnoresThePolicy) {
  rt::set_wait_policy(WaitPolicy::Block);
  rt::ServeCadence c;
  c.configure(7);
  EXPECT_EQ(c.budget(), 7);
  EXPECT_TRUE(c.answer_due());  // as LB4MPI: between every two chunks
  rt::set_wait_policy(WaitPolicy::Yield);
}

TEST(BatchPart, ConsecutivePartsOfOneSizeTheLastShorter) {
  rt::ChunkReply r;
  r.id = 40;
  r.count = 5;
  r.each = 3;
  r.chunk = Chunk{10, 13};  // 3 + 3 + 3 + 3 + 1: the loop's last part
  std::vector<Index> sizes;
  Index next = r.chunk.begin;
  for (std::int32_t j = 0; j < r.count; ++j) {
    const Chunk p = rt::batch_part(r, j);
    EXPECT_EQ(p.begin, next) << "part " << j;
    next = p.end();
    sizes.push_back(p.size);
  }
  EXPECT_EQ(next, r.chunk.end());
  EXPECT_EQ(sizes, (std::vector<Index>{3, 3, 3, 3, 1}));
  rt::ChunkReply one;  // a reply of one chunk is that chunk
  one.chunk = Chunk{5, 9};
  EXPECT_EQ(rt::batch_part(one, 0).begin, 5);
  EXPECT_EQ(rt::batch_part(one, 0).size, 9);
}

}  // namespace
}  // namespace lb4mpi
