// The trace recorder's parts that need no MPI: how pieces become chunk and
// continuation records, the 64-bit-safe gather plan, and the reservation
// estimate against the chunk counts the techniques really produce.
#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "lb4mpi/techniques/chunk_calculator.hpp"
#include "lb4mpi/techniques/technique.hpp"
#include "trace/gather.hpp"
#include "trace/recorder.hpp"

namespace lb4mpi::trace {
namespace {

Options traced() {
  Options o;
  o.trace = "unused.json";  // nothing is flushed here
  return o;
}

// What the runtime tells the recorders (rt::Execution): the thread counts
// the pieces that ended, over every loop; each loop keeps the count after its
// last chunk or piece, and a piece is `resumed` when another loop's piece
// ended in between.
std::uint64_t g_ended = 0;
std::map<const Recorder*, std::uint64_t> g_mark;

void chunk(Recorder& r, std::int64_t start, Index size, double t_request, double t_begin) {
  r.chunk(start, size, t_request, t_begin);
  g_mark[&r] = g_ended;
}

void piece(Recorder& r, double t_begin, double t_end) {
  r.piece(t_begin, t_end, g_ended != g_mark[&r]);
  g_mark[&r] = ++g_ended;
}

// A piece of a loop without a recorder: counted all the same.
void untraced_piece() { ++g_ended; }

TEST(Recorder, PiecesOfOneChunkFormOneRun) {
  Recorder a(traced(), 0, 0);
  a.begin(0, 1000, 4);
  chunk(a, 10, 30, 1.0, 1.5);
  piece(a, 1.5, 2.0);
  a.serve(2.0, 2.25);  // the coordinator serves between its pieces
  piece(a, 2.25, 3.0);
  piece(a, 3.0, 3.5);
  ASSERT_EQ(a.records().size(), 2U);
  const TraceRecord& c = a.records()[0];
  EXPECT_EQ(c.kind, kTraceChunk);
  EXPECT_EQ(c.start, 10);
  EXPECT_EQ(c.size, 30);
  EXPECT_EQ(c.t_request, 1.0);
  EXPECT_EQ(c.t_begin, 1.5);
  EXPECT_EQ(c.t_end, 3.5);  // its serve interval lies inside it
  EXPECT_EQ(a.records()[1].kind, kTraceServe);
}

TEST(Recorder, GlobalChunksOfANodeTileItsTrack) {
  // Hierarchical mode: a leader's global chunks, each lasting until the
  // next one came; the sub-chunks it runs meanwhile are recorded as usual.
  Recorder a(traced(), 0, 2);
  a.begin(0, 1000, 4);
  a.node_chunk(100, 400, 0.5, 0.75);
  chunk(a, 100, 100, 0.75, 1.0);
  piece(a, 1.0, 2.0);
  a.node_chunk(500, 200, 1.5, 1.6);
  ASSERT_EQ(a.records().size(), 3U);
  const TraceRecord& g0 = a.records()[0];
  EXPECT_EQ(g0.kind, kTraceGlobal);
  EXPECT_EQ(g0.rank, 2);
  EXPECT_EQ(g0.start, 100);
  EXPECT_EQ(g0.size, 400);
  EXPECT_EQ(g0.t_request, 0.5);
  EXPECT_EQ(g0.t_begin, 0.75);
  EXPECT_EQ(g0.t_end, 1.6);  // until the next one came
  EXPECT_EQ(a.records()[1].kind, kTraceChunk);
  EXPECT_EQ(a.records()[1].t_end, 2.0);  // the chunk's run is not cut by the global record
  const TraceRecord& g1 = a.records()[2];
  EXPECT_EQ(g1.kind, kTraceGlobal);
  EXPECT_EQ(g1.t_begin, 1.6);
  EXPECT_EQ(g1.t_end, 1.6);  // the last one: closed when the execution's records are flushed
}

TEST(Recorder, AnotherLoopsPieceStartsAContinuation) {
  Recorder a(traced(), 3, 1);
  Recorder b(traced(), 4, 1);
  a.begin(0, 1000, 4);
  b.begin(0, 1000, 4);
  chunk(a, 0, 100, 0.0, 1.0);
  piece(a, 1.0, 2.0);
  chunk(b, 500, 50, 2.0, 2.1);
  piece(b, 2.1, 3.0);   // loop 4's piece: loop 3's chunk is interrupted
  piece(a, 3.0, 4.0);   // continuation 1
  piece(a, 4.0, 4.5);   // ... which goes on
  piece(b, 4.5, 5.0);   // loop 4: continuation too
  piece(a, 5.0, 6.0);   // continuation 2
  chunk(a, 100, 80, 6.0, 6.5);  // next chunk of loop 3: a new chunk record
  piece(a, 6.5, 7.0);

  const auto& ra = a.records();
  ASSERT_EQ(ra.size(), 4U);
  EXPECT_EQ(ra[0].kind, kTraceChunk);
  EXPECT_EQ(ra[0].t_begin, 1.0);
  EXPECT_EQ(ra[0].t_end, 2.0);  // the first run only
  EXPECT_EQ(ra[1].kind, kTraceContinuation);
  EXPECT_EQ(ra[1].loop, 3);
  EXPECT_EQ(ra[1].rank, 1);
  EXPECT_EQ(ra[1].start, 0);
  EXPECT_EQ(ra[1].size, 100);
  EXPECT_EQ(ra[1].t_begin, 3.0);
  EXPECT_EQ(ra[1].t_end, 4.5);
  EXPECT_EQ(ra[2].kind, kTraceContinuation);
  EXPECT_EQ(ra[2].t_begin, 5.0);
  EXPECT_EQ(ra[2].t_end, 6.0);
  EXPECT_EQ(ra[3].kind, kTraceChunk);
  EXPECT_EQ(ra[3].start, 100);
  EXPECT_EQ(ra[3].t_end, 7.0);

  const auto& rb = b.records();
  ASSERT_EQ(rb.size(), 2U);
  EXPECT_EQ(rb[0].kind, kTraceChunk);
  EXPECT_EQ(rb[0].t_end, 3.0);
  EXPECT_EQ(rb[1].kind, kTraceContinuation);
  EXPECT_EQ(rb[1].start, 500);
  EXPECT_EQ(rb[1].t_begin, 4.5);

  // No two records of the rank overlap partially.
  std::vector<TraceRecord> all(ra.begin(), ra.end());
  all.insert(all.end(), rb.begin(), rb.end());
  for (const auto& x : all) {
    for (const auto& y : all) {
      const bool disjoint = x.t_end <= y.t_begin || y.t_end <= x.t_begin;
      const bool nested = (x.t_begin <= y.t_begin && y.t_end <= x.t_end) ||
                          (y.t_begin <= x.t_begin && x.t_end <= y.t_end);
      EXPECT_TRUE(disjoint || nested);
    }
  }
}

TEST(Recorder, PiecesOfAnUntracedLoopAlsoInterrupt) {
  Recorder a(traced(), 0, 0);
  a.begin(0, 100, 2);
  EXPECT_FALSE(tracing(Options{}));  // an untraced loop has no recorder ...
  chunk(a, 0, 10, 0.0, 0.0);
  piece(a, 0.0, 1.0);
  untraced_piece();  // ... but its pieces are counted
  piece(a, 2.0, 3.0);
  ASSERT_EQ(a.records().size(), 2U);
  EXPECT_EQ(a.records()[0].t_end, 1.0);
  EXPECT_EQ(a.records()[1].kind, kTraceContinuation);
}

TEST(Recorder, BeginReservesAndKeepsCapacity) {
  Options o = traced();
  o.technique = Technique::FAC2;
  Recorder r(o, 0, 1);
  r.begin(0, 100000, 4);
  const std::size_t cap = r.records().capacity();
  EXPECT_GE(cap, trace_reserve_estimate(o, 100000, 4, 1));
  for (int k = 0; k < 10; ++k) r.chunk(k, 1, 0.0, 0.0);
  r.begin(0, 10, 4);  // a smaller execution: cleared, capacity kept
  EXPECT_TRUE(r.records().empty());
  EXPECT_EQ(r.records().capacity(), cap);
  EXPECT_FALSE(tracing(Options{})) << "no recorder, nothing reserved when tracing is off";
}

TEST(TraceGatherPlan, CountsAndDisplacementsInRecords) {
  const TraceGatherPlan p = plan_trace_gather({3, 0, 5, 2});
  EXPECT_EQ(p.counts, (std::vector<int>{3, 0, 5, 2}));
  EXPECT_EQ(p.displs, (std::vector<int>{0, 3, 3, 8}));
  EXPECT_EQ(p.total, 10);
}

TEST(TraceGatherPlan, BeyondTwoGibibytesOfRecordsIsFine) {
  // 40 M records per rank: 4.5 GB in all, which byte counts in int could not
  // express; in records it fits.
  const std::int64_t m = 40'000'000;
  const TraceGatherPlan p = plan_trace_gather({m, m});
  EXPECT_EQ(p.counts, (std::vector<int>{40'000'000, 40'000'000}));
  EXPECT_EQ(p.displs, (std::vector<int>{0, 40'000'000}));
  EXPECT_EQ(p.total, 2 * m);
  EXPECT_GT(static_cast<double>(p.total) * sizeof(TraceRecord), 2.0 * 1024 * 1024 * 1024);
  // Exactly INT_MAX records still fit.
  EXPECT_EQ(plan_trace_gather({INT_MAX - 1, 1}).total, INT_MAX);
}

TEST(TraceGatherPlan, TooManyRecordsIsAClearError) {
  EXPECT_THROW((void)plan_trace_gather({INT_MAX, 1}), Error);
  EXPECT_THROW((void)plan_trace_gather({std::int64_t{1} << 31}), Error);
  EXPECT_THROW((void)plan_trace_gather({std::int64_t{1} << 40, std::int64_t{1} << 40}), Error);
  try {
    (void)plan_trace_gather({1'500'000'000, 1'500'000'000});
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("2147483647"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("rank 1"), std::string::npos) << e.what();
  }
}

// The estimate covers what a rank of equal-speed ranks really records
// (chunks, and on the coordinator serve intervals, at most one per chunk),
// unless it hit the cap.
TEST(TraceReserve, EstimateCoversTheChunksOfEveryTechnique) {
  for (const auto& t : all_techniques()) {
    for (const Index n : {Index{1000}, Index{100000}}) {
      for (const int p : {2, 4, 16}) {
        SCOPED_TRACE(std::string(t.name) + " N " + std::to_string(n) + " P " + std::to_string(p));
        Options o;
        o.technique = t.technique;
        std::vector<Index> per_rank(static_cast<std::size_t>(p), 0);
        Index total = 0;
        for_each_simulated_chunk(t.technique, LoopShape{n, p}, o.params, Form::Recursive, SimulationSetup{},
                                 [&](const Chunk&, int r) {
                                   ++per_rank[static_cast<std::size_t>(r)];
                                   ++total;
                                 });
        const Index most = *std::max_element(per_rank.begin(), per_rank.end());
        for (int r : {0, 1}) {
          const std::size_t est = trace_reserve_estimate(o, n, p, r);
          EXPECT_LE(est, kTraceReserveCap);
          const Index need = most + (r == o.coordinator ? total : 0);
          if (est < kTraceReserveCap) {
            EXPECT_GE(static_cast<Index>(est), need) << "rank " << r;
          }
        }
        o.mode = Mode::DistributedRMA;  // no serving coordinator
        EXPECT_EQ(trace_reserve_estimate(o, n, p, 0), trace_reserve_estimate(o, n, p, 1));
      }
    }
  }
  Options ss;
  ss.technique = Technique::SS;
  EXPECT_EQ(trace_reserve_estimate(ss, Index{1} << 40, 4, 1), kTraceReserveCap);
  EXPECT_GE(trace_reserve_estimate(ss, 0, 4, 0), 1U);
}

}  // namespace
}  // namespace lb4mpi::trace
