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
#include <vector>

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
    head_ = 0;
    len_ = 0;
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
    while (len_ > 0 && !at(0).out) {
      head_ = (head_ + 1) & mask();
      --len_;
      ++base_;
    }
    return true;
  }

  /// The coordinator finished `size` iterations of its own (not recorded
  /// as chunks: without recovery).
  void finished_here(Index size) { finished_ += size; }

  /// Whether chunk `id` is out (scheduled and not finished).
  [[nodiscard]] bool out(std::int64_t id) const {
    if (id < base_ || id >= base_ + static_cast<std::int64_t>(len_)) return false;
    return at(static_cast<std::size_t>(id - base_)).out;
  }

  /// Recovery: a chunk to hand to `rank` again — out, of known range,
  /// not held by `rank`, the fewest holders and then the oldest first —
  /// recorded as held by `rank` too; nullptr when there is none.
  const Entry* reissue(int rank) {
    Entry* best = nullptr;
    for (std::size_t k = 0; k < len_; ++k) {
      Entry& e = at(k);
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
    if (len_ == 0) {
      if (!grow) return nullptr;
      base_ = id;
    }
    const auto k = static_cast<std::size_t>(id - base_);
    if (k >= len_) {
      if (!grow) return nullptr;
      if (k >= ring_.size()) reserve(k + 1);
      for (std::size_t j = len_; j <= k; ++j) at(j) = Entry{};
      len_ = k + 1;
    }
    return &at(k);
  }

  [[nodiscard]] std::size_t mask() const { return ring_.size() - 1; }
  /// The entry `k` steps after the window's first (k < ring_.size()).
  Entry& at(std::size_t k) { return ring_[(head_ + k) & mask()]; }
  [[nodiscard]] const Entry& at(std::size_t k) const { return ring_[(head_ + k) & mask()]; }
  /// Room for `n` entries: the ring doubles, the window moves to its start.
  void reserve(std::size_t n) {
    std::size_t cap = ring_.empty() ? 64 : ring_.size();
    while (cap < n) cap *= 2;
    std::vector<Entry> grown(cap);
    for (std::size_t j = 0; j < len_; ++j) grown[j] = at(j);
    ring_.swap(grown);
    head_ = 0;
  }

  Index n_ = 0;
  Index finished_ = 0;
  /// The window, a ring of a power-of-two size: entries [head_, head_ + len_)
  /// (modulo its size) are the steps base_ .. base_ + len_ - 1.
  std::vector<Entry> ring_;
  std::size_t head_ = 0;
  std::size_t len_ = 0;
  std::int64_t base_ = 0;  ///< the step of the window's first entry
};

}  // namespace lb4mpi::rt
