// The coordinator's account of a loop: which chunks are out at which rank,
// and how many iterations are finished. The loop is over for the
// coordinator when every iteration is finished — never by counting ranks —
// and a chunk's completion counts once, by its identity.
#pragma once
#include <cstdint>
#include <unordered_map>

#include "lb4mpi/types.hpp"

namespace lb4mpi::rt {

class Ledger {
 public:
  struct Entry {
    Chunk chunk;  ///< its range; size 0 while unknown (DCA: the rank computes it)
    int rank = -1;
  };

  void start(Index n) {
    n_ = n;
    finished_ = 0;
    out_.clear();
  }
  /// Chunk `id` went to `rank` (its range when known).
  void scheduled(std::int64_t id, const Chunk& chunk, int rank) { out_[id] = Entry{chunk, rank}; }
  /// A rank reports chunk `id` finished with `size` iterations. False (and
  /// nothing counted) for a chunk that is not out: a report seen before.
  bool finished(std::int64_t id, Index size) {
    const auto it = out_.find(id);
    if (it == out_.end()) return false;
    out_.erase(it);
    finished_ += size;
    return true;
  }
  /// The coordinator finished `size` iterations of its own.
  void finished_here(Index size) { finished_ += size; }
  [[nodiscard]] bool complete() const { return finished_ >= n_; }
  [[nodiscard]] Index finished_iterations() const { return finished_; }
  /// Chunks out at other ranks, not yet reported finished.
  [[nodiscard]] const std::unordered_map<std::int64_t, Entry>& outstanding() const { return out_; }

 private:
  Index n_ = 0;
  Index finished_ = 0;
  std::unordered_map<std::int64_t, Entry> out_;
};

}  // namespace lb4mpi::rt
