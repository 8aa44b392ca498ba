// Every technique, every rank count: each iteration runs exactly once.
#include <algorithm>
#include <chrono>
#include <thread>
#include <string>

#include "mpi_check.hpp"
#include "runtime/waiting.hpp"

namespace lb4mpi::test {
namespace {

class EveryTechnique : public ::testing::TestWithParam<Technique> {};

TEST_P(EveryTechnique, RunsEachIterationExactlyOnce) {
  Options opt;
  opt.technique = GetParam();
  for (Index n : {Index{0}, Index{1}, Index{world_size() - 1}, Index{world_size()}, Index{1000}, Index{10007}}) {
    SCOPED_TRACE("N = " + std::to_string(n));
    expect_exactly_once(run_and_cover(0, n, opt), n);
  }
}

TEST_P(EveryTechnique, NonZeroFirstIndex) {
  Options opt;
  opt.technique = GetParam();
  expect_exactly_once(run_and_cover(-317, 2000, opt), 2317);
  const Index big = Index{1} << 40;  // indices beyond 32 bits
  expect_exactly_once(run_and_cover(big, big + 999, opt), 999);
}

TEST_P(EveryTechnique, ExplicitBreakAfterAndRequestWhen) {
  for (int ba : {0, 1, 7}) {
    for (int rw : {0, 1, 50}) {
      Options opt;
      opt.technique = GetParam();
      opt.break_after = ba;
      opt.request_when = rw;
      SCOPED_TRACE("breakAfter " + std::to_string(ba) + " requestWhen " + std::to_string(rw));
      expect_exactly_once(run_and_cover(0, 3001, opt), 3001);
    }
  }
}

TEST_P(EveryTechnique, MinimumChunkIsRespected) {
  Options opt;
  opt.technique = GetParam();
  opt.params.min_chunk = 13;
  opt.break_after = 1000000;  // the coordinator's pieces are whole chunks
  opt.request_when = 0;       // the worker's pieces are whole chunks
  std::vector<Index> sizes;
  Report r = parallel_for(MPI_COMM_WORLD, 0, 5000, opt, [&](Chunk c) { sizes.push_back(c.size); });
  EXPECT_EQ(r.iterations(), 5000);
  // Only the globally last chunk may be smaller than the minimum.
  const auto small = std::count_if(sizes.begin(), sizes.end(), [](Index s) { return s < 13; });
  long long local = small;
  long long total = 0;
  MPI_Allreduce(&local, &total, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  EXPECT_LE(total, 1);
}

INSTANTIATE_TEST_SUITE_P(All, EveryTechnique,
                         ::testing::ValuesIn([] {
                           std::vector<Technique> v;
                           for (const auto& i : all_techniques()) v.push_back(i.technique);
                           return v;
                         }()),
                         [](const auto& param_info) {
                           std::string s(name(param_info.param));
                           std::replace(s.begin(), s.end(), '-', '_');
                           return s;
                         });

TEST(Coordinator, AnyRankCanCoordinate) {
  for (int c = 0; c < world_size(); ++c) {
    Options opt;
    opt.technique = Technique::GSS;
    opt.coordinator = c;
    expect_exactly_once(run_and_cover(0, 4321, opt), 4321);
  }
}

TEST(HugeLoop, MoreThanTwoToThe31Iterations) {
  // An empty body over 2^31 + 11 iterations: gather all chunks and check that
  // they tile the range exactly (a bitmap would need 2 GiB).
  const Index n = (Index{1} << 31) + 11;
  for (Technique t : {Technique::GSS, Technique::FAC2, Technique::TSS, Technique::STATIC}) {
    Options opt;
    opt.technique = t;
    std::vector<Index> mine;  // begin, size pairs
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
    Index expect = 0;
    for (const auto& [b, s] : chunks) {
      ASSERT_EQ(b, expect) << name(t) << ": gap or overlap";
      ASSERT_GT(s, 0);
      expect = b + s;
    }
    EXPECT_EQ(expect, n) << name(t);
    EXPECT_EQ(r.iterations(), n) << name(t);
  }
}

}  // namespace
}  // namespace lb4mpi::test

namespace lb4mpi::test {
namespace {

// Issue 32: every wait policy runs each iteration exactly once; `auto`
// follows what the first use of the communicator found about the node.
TEST(Waiting, EveryPolicyRunsEachIterationOnce) {
  for (Wait w : {Wait::Spin, Wait::Yield, Wait::Block, Wait::Auto}) {
    Options opt;
    opt.technique = Technique::FAC2;
    opt.wait = w;
    expect_exactly_once(run_and_cover(0, 3001, opt), 3001);
  }
  const rt::NodeShare share = rt::node_share();
  EXPECT_GE(share.local_ranks, world_size());  // the tests run on one node
  EXPECT_GE(share.cores, 1);
  EXPECT_EQ(rt::wait_policy(), rt::choose_wait(rt::WaitPolicy::Auto, share.local_ranks, share.cores));
}

// Issue 32: the coordinator's wait for the end of the loop is idle, not
// serving: every worker sleeps 60 ms in its first chunk while the
// coordinator, done early, waits for them.
TEST(Waiting, TheCoordinatorsWaitForTheEndIsIdle) {
  Options opt;
  opt.technique = Technique::GSS;
  const int me = world_rank();
  bool slept = false;
  std::vector<std::int32_t> local(64, 0);
  const Report r = parallel_for(MPI_COMM_WORLD, 0, 64, opt, [&](Chunk c) {
    if (me != 0 && !slept) {
      slept = true;
      std::this_thread::sleep_for(std::chrono::milliseconds(60));
    }
    for (Index i = c.begin; i < c.end(); ++i) ++local[static_cast<std::size_t>(i)];
  });
  std::vector<std::int32_t> all(64, 0);
  rt::allreduce(local.data(), all.data(), 64, MPI_INT32_T, MPI_SUM, MPI_COMM_WORLD);
  for (std::int32_t k : all) ASSERT_EQ(k, 1);
  const RankReport& c = r.ranks[0];
  if (world_size() == 1) {
    EXPECT_EQ(c.serve_time, 0.0);
    return;
  }
  // Handling a few requests takes microseconds; the wait for the sleeping
  // workers takes most of 60 ms (allowance for a loaded machine).
  EXPECT_LT(c.serve_time, 0.02) << "serve " << c.serve_time << " s, overhead " << c.overhead << " s";
  EXPECT_GT(c.idle_time(r.t_par), 0.03) << "idle " << c.idle_time(r.t_par) << " s of T_par " << r.t_par;
}

}  // namespace
}  // namespace lb4mpi::test
