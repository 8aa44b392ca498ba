// Every technique, every rank count: each iteration runs exactly once.
#include <algorithm>
#include <chrono>
#include <cstring>
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

// Several chunks per reply (Options::chunks_per_reply): a worker's batch of
// consecutive SS / FSC / mFSC chunks is still a chunk each: covered exactly
// once, counted as the technique's chunks, and the results of every chunk
// that has some committed once on the coordinator — a chunk with results is
// reported on its own, the parts without are reported together. In robust
// mode too, where the parts are in the ledger (and kept) each by its step;
// there a chunk may run twice (a copy at the loop's end, cut into pieces of
// its own), so what is checked is the commit: with results on every piece,
// every iteration's exactly once; with results on some, none twice.
TEST(ChunksPerReply, BatchesAreChunksOfTheirOwnAndResultsCommitOnce) {
  const Index n = 20011;
  for (bool robust : {false, true}) {
    for (Technique t : {Technique::SS, Technique::FSC, Technique::mFSC}) {
      Index one_per_reply = -1;
      for (int k : {1, -1, 7, 4096}) {
        Options opt;
        opt.technique = t;
        opt.mode = Mode::Centralized;
        opt.chunks_per_reply = k;
        opt.robust = robust;
        SCOPED_TRACE(std::string(name(t)) + ", chunks_per_reply " + std::to_string(k) + (robust ? ", robust" : ""));
        if (!robust) expect_exactly_once(run_and_cover(0, n, opt), n);
        for (int every : {3, robust ? 1 : 3}) {
          std::vector<std::int32_t> attached(static_cast<std::size_t>(n), 0), committed(attached);
          Index bad = 0;
          Loop loop(MPI_COMM_WORLD, 0, n, opt);
          loop.on_commit([&](Chunk piece, const std::byte* data, std::size_t bytes) {
            if (bytes == 0) return;  // the coordinator's own pieces without results
            std::uint64_t v = 0;
            if (bytes != sizeof v || piece.begin < 0 || piece.end() > n) {
              ++bad;
              return;
            }
            std::memcpy(&v, data, sizeof v);
            if (v != static_cast<std::uint64_t>(piece.begin) * 31U + static_cast<std::uint64_t>(piece.size)) ++bad;
            for (Index i = piece.begin; i < piece.end(); ++i) ++committed[static_cast<std::size_t>(i)];
          });
          while (auto c = loop.next()) {
            if (c->begin % every != 0) continue;  // results on some chunks only
            loop.result(static_cast<std::uint64_t>(c->begin) * 31U + static_cast<std::uint64_t>(c->size));
            for (Index i = c->begin; i < c->end(); ++i) attached[static_cast<std::size_t>(i)] = 1;
          }
          const Report r = loop.finish();
          std::vector<std::int32_t> any_attached(attached.size()), all_committed(attached.size());
          rt::allreduce(attached.data(), any_attached.data(), static_cast<int>(n), MPI_INT32_T, MPI_MAX,
                        MPI_COMM_WORLD);
          rt::allreduce(committed.data(), all_committed.data(), static_cast<int>(n), MPI_INT32_T, MPI_SUM,
                        MPI_COMM_WORLD);
          Index wrong = 0;
          for (std::size_t i = 0; i < attached.size(); ++i) {
            // A copy may cut its chunk into other pieces, with results on
            // other iterations (robust): there, none is committed twice.
            wrong += robust && every != 1 ? all_committed[i] > 1
                                          : all_committed[i] != (every == 1 ? 1 : any_attached[i]);
          }
          Index all_bad = 0;
          rt::allreduce(&bad, &all_bad, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
          EXPECT_EQ(wrong, 0) << "iterations whose results were not committed exactly once";
          EXPECT_EQ(all_bad, 0) << "committed results that do not match their piece";
          if (robust) continue;  // copies run (and count) twice
          EXPECT_EQ(r.iterations(), n);
          if (t == Technique::SS) {
            EXPECT_EQ(r.chunks(), n);
          }
          if (one_per_reply < 0) one_per_reply = r.chunks();
          EXPECT_EQ(r.chunks(), one_per_reply) << "a constant size gives the same chunks however many per reply";
        }
      }
    }
  }
}

TEST(Coordinator, AnyRankCanCoordinate) {
  for (int c = 0; c < world_size(); ++c) {
    Options opt;
    opt.technique = Technique::GSS;
    opt.coordinator = c;
    expect_exactly_once(run_and_cover(0, 4321, opt), 4321);
  }
}

// Ranks that prefer different waits (rank 0 spin, the others yield, as on
// nodes with and without spare cores) still meet in every collective: MPI
// does not match a blocking collective with a nonblocking one, so a
// communicator's collectives are the blocking ones on every rank or on
// none (rt::blocking_collectives(MPI_Comm)). Without that, this hung.
TEST(Waiting, RanksThatPreferDifferentWaitsMeet) {
  for (Mode m : {Mode::Centralized, Mode::Distributed, Mode::DistributedRMA}) {
    Options o;
    o.technique = Technique::GSS;
    o.mode = m;
    o.wait = world_rank() == 0 ? Wait::Spin : Wait::Yield;
    const Coverage c = run_and_cover(0, 1000, o);
    expect_exactly_once(c, 1000);
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
