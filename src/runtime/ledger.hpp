// The coordinator's account of a loop: which chunks are out (scheduled, not
// yet finished), at which ranks, and how many iterations are finished. The
// loop is over for the coordinator when every iteration is finished — never
// by counting ranks — and a chunk's completion counts once, by its identity
// (its scheduling step): a second report of the same chunk is a duplicate.
//
// The recovery unit (rDLB, `004` §3; runtime/recovery/) asks it for a chunk to hand out again once
// every chunk is scheduled: the oldest scheduled-unfinished chunk that the
// asking rank does not hold, the least re-issued first. The chunks are
// kept as ranges, never as per-iteration flags.
//
// Chunks are kept by step in a window from the oldest outstanding step to
// the newest: recording, finishing and looking up a chunk take constant
// time, and the window is as long as the spread of the steps still out (a
// few per rank), not the loop.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <deque>

#include "lb4mpi/types.hpp"

namespace lb4mpi::rt {

class Ledger {
 public:
  /// How many ranks may hold a chunk at once (its first holder and the
  /// ranks it was re-issued to); a chunk is not re-issued beyond that.
  static constexpr int kMaxHolders = 8;

  struct Entry {
    std::int64_t id = -1;
    Chunk chunk;        ///< its range; size 0 while unknown (DCA: the rank computes it)
    bool out = false;   ///< scheduled and not yet finished
    int holders = 0;    ///< ranks it is out at (the first, then re-issues)
    std::array<int, kMaxHolders> ranks{};

    [[nodiscard]] bool held_by(int rank) const {
      for (int i = 0; i < holders; ++i) {
        if (ranks[static_cast<std::size_t>(i)] == rank) return true;
      }
      return false;
    }
  };

  void start(Index n) {
    n_ = n;
    finished_ = 0;
    window_.clear();
    base_ = 0;
  }

  /// Chunk `id` went to `rank` (its range when known); a chunk recorded
  /// again (a DCA grant, then its commit; a re-issue) is updated.
  void scheduled(std::int64_t id, const Chunk& chunk, int rank) {
    Entry* e = slot(id, true);
    if (e == nullptr) return;  // finished long ago: nothing to record
    if (!e->out) {
      e->out = true;
      e->id = id;
      e->holders = 0;
    }
    if (chunk.size > 0) e->chunk = chunk;
    if (!e->held_by(rank) && e->holders < kMaxHolders) e->ranks[static_cast<std::size_t>(e->holders++)] = rank;
  }

  /// Chunk `id` (of `size` iterations, as its executor reports) finished.
  /// True for its first completion; false (nothing counted) for a chunk that
  /// is not out: a duplicate, or a report seen before.
  bool finished(std::int64_t id, Index size) {
    Entry* e = slot(id, false);
    if (e == nullptr || !e->out) return false;
    e->out = false;
    finished_ += e->chunk.size > 0 ? e->chunk.size : size;
    while (!window_.empty() && !window_.front().out) {
      window_.pop_front();
      ++base_;
    }
    return true;
  }

  /// The coordinator finished `size` iterations of its own (not recorded
  /// as chunks: without recovery).
  void finished_here(Index size) { finished_ += size; }

  /// Whether chunk `id` is out (scheduled and not finished).
  [[nodiscard]] bool out(std::int64_t id) const {
    if (id < base_ || id >= base_ + static_cast<std::int64_t>(window_.size())) return false;
    return window_[static_cast<std::size_t>(id - base_)].out;
  }

  /// Recovery: a chunk to hand to `rank` again — out, of known range,
  /// not held by `rank`, the fewest holders and then the oldest first —
  /// recorded as held by `rank` too; nullptr when there is none.
  const Entry* reissue(int rank) {
    Entry* best = nullptr;
    for (Entry& e : window_) {
      if (!e.out || e.chunk.size <= 0 || e.holders >= kMaxHolders || e.held_by(rank)) continue;
      if (best == nullptr || e.holders < best->holders) best = &e;
    }
    if (best != nullptr) best->ranks[static_cast<std::size_t>(best->holders++)] = rank;
    return best;
  }

  [[nodiscard]] bool complete() const { return finished_ >= n_; }
  [[nodiscard]] Index finished_iterations() const { return finished_; }

 private:
  /// The entry of step `id`; with `grow`, the window is extended to it.
  /// nullptr for a step before the window (finished and dropped).
  Entry* slot(std::int64_t id, bool grow) {
    if (id < base_) return nullptr;
    if (window_.empty()) {
      if (!grow) return nullptr;
      base_ = id;
    }
    const auto at = static_cast<std::size_t>(id - base_);
    if (at >= window_.size()) {
      if (!grow) return nullptr;
      window_.resize(at + 1);
    }
    return &window_[at];
  }

  Index n_ = 0;
  Index finished_ = 0;
  std::deque<Entry> window_;
  std::int64_t base_ = 0;  ///< the step of window_.front()
};

}  // namespace lb4mpi::rt
