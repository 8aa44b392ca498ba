// The iterations a rank owns and has not begun, for every engine: the owner
// takes its chunks from the front, thieves take theirs from the back, so a
// steal never touches what the owner is executing.
#pragma once
#include <algorithm>
#include <optional>

#include "lb4mpi/techniques/chunk_calculator.hpp"
#include "runtime/pieces.hpp"
#include "stealing/engine.hpp"

namespace lb4mpi::st {

class OwnedWork {
 public:
  /// All of run.mine(), cut by Config::chunking when it is set.
  explicit OwnedWork(const Run& run);

  /// Iterations not yet begun (local indices [front, back)).
  [[nodiscard]] Index unstarted() const { return back_ - front_; }
  /// The owner's next chunk, local indices: Config::chunking's next chunk
  /// (the technique's recursive sequence over the owned iterations, clipped
  /// to what thieves left), else `piece` iterations; nullopt when none is left.
  std::optional<Chunk> next_chunk(Index piece);
  /// Up to `k` iterations from the back for a thief (local indices; empty
  /// when none is left).
  Chunk give(Index k);

 private:
  Index front_ = 0;
  Index back_ = 0;
  int rank_ = 0;
  std::optional<ChunkCalculator> calc_;
};

/// Runs `chunk` (global indices; its items at `in`, results at `out`) in
/// pieces of at most run.budget() iterations (the runtime's PieceCutter),
/// calling poll() after each.
template <class Poll>
void run_in_pieces(Run& run, Chunk chunk, Place in, Place out, Poll&& poll) {
  rt::PieceCutter cut;
  cut.begin(chunk, 0);
  bool first = true;
  while (!cut.empty()) {
    const Chunk piece = cut.take(run.budget());
    const Index at = piece.begin - chunk.begin;
    run.execute(piece, Place{in.buffer, in.at + at}, Place{out.buffer, out.at + at}, first);
    first = false;
    poll();
  }
}

}  // namespace lb4mpi::st
