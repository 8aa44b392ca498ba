// The coordinator's account of a loop: which chunks are out at which rank,
// and how many iterations are finished. The loop is over for the
// coordinator when every iteration is finished — never by counting ranks —
// and a chunk's completion counts once, by its identity.
//
// Kept per rank: a rank has at most a few chunks out at a time (the one it
// executes and the one asked for ahead), so recording and settling a chunk
// is a push and a short search, with no allocation once the lists have
// grown; robust mode will ask what a failed rank had out.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "lb4mpi/types.hpp"

namespace lb4mpi::rt {

class Ledger {
 public:
  struct Entry {
    std::int64_t id = -1;
    Chunk chunk;  ///< its range; size 0 while unknown (DCA: the rank computes it)
  };

  void start(Index n, int ranks) {
    n_ = n;
    finished_ = 0;
    out_.resize(static_cast<std::size_t>(ranks));
    for (auto& list : out_) list.clear();
  }
  /// Chunk `id` went to `rank` (its range when known); a chunk recorded
  /// again (a DCA grant, then its commit) is updated.
  void scheduled(std::int64_t id, const Chunk& chunk, int rank) {
    auto& list = out_[static_cast<std::size_t>(rank)];
    for (Entry& e : list) {
      if (e.id == id) {
        e.chunk = chunk;
        return;
      }
    }
    list.push_back(Entry{id, chunk});
  }
  /// `rank` reports chunk `id` finished with `size` iterations. False (and
  /// nothing counted) for a chunk that is not out there: a report seen before.
  bool finished(int rank, std::int64_t id, Index size) {
    auto& list = out_[static_cast<std::size_t>(rank)];
    for (std::size_t i = 0; i < list.size(); ++i) {
      if (list[i].id != id) continue;
      list[i] = list.back();
      list.pop_back();
      finished_ += size;
      return true;
    }
    return false;
  }
  /// The coordinator finished `size` iterations of its own.
  void finished_here(Index size) { finished_ += size; }
  [[nodiscard]] bool complete() const { return finished_ >= n_; }
  [[nodiscard]] Index finished_iterations() const { return finished_; }
  /// The chunks out at `rank`, not yet reported finished.
  [[nodiscard]] const std::vector<Entry>& out_at(int rank) const { return out_[static_cast<std::size_t>(rank)]; }

 private:
  Index n_ = 0;
  Index finished_ = 0;
  std::vector<std::vector<Entry>> out_;
};

}  // namespace lb4mpi::rt
