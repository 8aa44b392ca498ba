// The result store (src/runtime/results.cpp), without MPI: what a rank
// attaches to the pieces of its chunks comes back whole, once, whatever the
// order in which chunks are taken, dropped or committed, and however long
// results wait for their report (the store reuses and compacts its storage).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "runtime/results.hpp"

namespace lb4mpi::rt {
namespace {

struct Committed {
  Chunk piece;
  std::vector<std::int64_t> values;
};

// Runs piece `piece` of chunk `id` on `store`, attaching each of `values`.
void run_piece(ResultStore& store, std::int64_t id, Chunk piece, const std::vector<std::int64_t>& values) {
  store.begin_piece(id, piece);
  for (std::int64_t v : values) store.attach(&v, sizeof v);
  store.end_piece();
}

// What a coordinator commits from `bytes` (take()'s serialization).
std::vector<Committed> commit_on_coordinator(const std::vector<std::byte>& bytes, Index first) {
  std::vector<Committed> out;
  ResultStore coordinator;
  coordinator.start(first);
  coordinator.set_commit([&out](Chunk piece, const std::byte* data, std::size_t n) {
    Committed c{piece, std::vector<std::int64_t>(n / sizeof(std::int64_t))};
    if (n > 0) std::memcpy(c.values.data(), data, n);
    out.push_back(c);
  });
  EXPECT_EQ(coordinator.commit(bytes.data(), bytes.size()), bytes.size());
  return out;
}

TEST(ResultStore, AChunksPiecesComeBackInOrderWithTheirBytes) {
  ResultStore worker;
  worker.start(100);  // the loop starts at iteration 100: commits are absolute
  run_piece(worker, 7, Chunk{0, 4}, {1, 2});
  run_piece(worker, 7, Chunk{4, 3}, {});  // a piece with nothing attached
  run_piece(worker, 7, Chunk{7, 1}, {3});
  std::vector<std::byte> bytes;
  ASSERT_TRUE(worker.take(7, bytes));
  std::vector<std::byte> again;
  EXPECT_FALSE(worker.take(7, again));  // taken once
  EXPECT_TRUE(again.empty());
  const std::vector<Committed> c = commit_on_coordinator(bytes, 100);
  ASSERT_EQ(c.size(), 2U);  // without a commit function only pieces with bytes are kept
  EXPECT_EQ(c[0].piece.begin, 100);
  EXPECT_EQ(c[0].piece.size, 4);
  EXPECT_EQ(c[0].values, (std::vector<std::int64_t>{1, 2}));
  EXPECT_EQ(c[1].piece.begin, 107);
  EXPECT_EQ(c[1].values, (std::vector<std::int64_t>{3}));
}

TEST(ResultStore, ChunksLeaveInAnyOrderAndLongWaitsAreCompacted) {
  ResultStore worker;
  worker.start(0);
  // 80 chunks of one piece each (chunk k attaches k and k + 1000); chunks
  // 0..69 leave in reverse order, some dropped (copies cut short), so the
  // store's gone prefix grows past its compaction point while 70..79 wait.
  for (std::int64_t k = 0; k < 80; ++k) run_piece(worker, k, Chunk{10 * k, 10}, {k, k + 1000});
  std::vector<std::byte> bytes;
  const auto take_back = [&](std::int64_t k) {
    if (k % 7 == 3) {
      worker.drop(k);
      return;
    }
    ASSERT_TRUE(worker.take(k, bytes)) << "chunk " << k;
    const std::vector<Committed> c = commit_on_coordinator(bytes, 0);
    ASSERT_EQ(c.size(), 1U);
    EXPECT_EQ(c[0].piece.begin, 10 * k);
    EXPECT_EQ(c[0].values, (std::vector<std::int64_t>{k, k + 1000}));
  };
  for (std::int64_t k = 69; k >= 1; --k) take_back(k);
  // A new chunk's piece is open when chunk 0 leaves: the 70 gone records
  // are compacted away under it, and its next bytes still go to it.
  worker.begin_piece(80, Chunk{800, 5});
  std::int64_t v = 80;
  worker.attach(&v, sizeof v);
  take_back(0);
  v = 81;
  worker.attach(&v, sizeof v);
  worker.end_piece();
  ASSERT_TRUE(worker.take(70, bytes));
  EXPECT_EQ(commit_on_coordinator(bytes, 0)[0].values, (std::vector<std::int64_t>{70, 1070}));
  for (std::int64_t k = 71; k < 80; ++k) {
    ASSERT_TRUE(worker.take(k, bytes)) << "chunk " << k;
    EXPECT_EQ(commit_on_coordinator(bytes, 0)[0].values, (std::vector<std::int64_t>{k, k + 1000}));
  }
  ASSERT_TRUE(worker.take(80, bytes));
  const std::vector<Committed> c = commit_on_coordinator(bytes, 0);
  ASSERT_EQ(c.size(), 1U);
  EXPECT_EQ(c[0].piece.begin, 800);
  EXPECT_EQ(c[0].values, (std::vector<std::int64_t>{80, 81}));
  EXPECT_FALSE(worker.take(3, bytes));  // dropped: gone
}

TEST(ResultStore, TheCoordinatorCommitsItsOwnChunkOncePieceByPiece) {
  ResultStore own;
  own.start(0);
  std::vector<Committed> committed;
  own.set_commit([&committed](Chunk piece, const std::byte* data, std::size_t n) {
    Committed c{piece, std::vector<std::int64_t>(n / sizeof(std::int64_t))};
    if (n > 0) std::memcpy(c.values.data(), data, n);
    committed.push_back(c);
  });
  run_piece(own, 0, Chunk{0, 2}, {5});
  run_piece(own, 0, Chunk{2, 2}, {});  // committed too: a commit function sees every piece
  run_piece(own, 1, Chunk{4, 1}, {6});
  own.commit_own(1);
  own.commit_own(0);
  own.commit_own(0);  // a second time: nothing
  ASSERT_EQ(committed.size(), 3U);
  EXPECT_EQ(committed[0].piece.begin, 4);
  EXPECT_EQ(committed[1].values, (std::vector<std::int64_t>{5}));
  EXPECT_EQ(committed[2].piece.begin, 2);
  EXPECT_TRUE(committed[2].values.empty());
}

}  // namespace
}  // namespace lb4mpi::rt
