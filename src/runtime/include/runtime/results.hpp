// Results that travel with a chunk's completion (rDLB, `004` Algorithm 1's
// DLS_endChunk(info, data)): the executing rank attaches bytes to each piece
// of work it executes; when the chunk is finished they go to the
// coordinator with its report, and the coordinator commits them — hands
// them to the front end's commit function, piece by piece — for the first
// completion of the chunk only. So results survive the rank that produced
// them, and a chunk executed twice (recovery) is committed once.
#pragma once
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <vector>

#include "lb4mpi/types.hpp"

namespace lb4mpi::rt {

/// Called on the coordinator for each committed piece: the piece (absolute
/// iteration indices) and the bytes attached to it.
using CommitFn = std::function<void(Chunk piece, const std::byte* data, std::size_t bytes)>;

class ResultStore {
 public:
  void start(Index first) {
    first_ = first;
    pending_.clear();
    current_ = -1;
    piece_open_ = false;
  }
  void set_commit(CommitFn fn) { commit_ = std::move(fn); }
  [[nodiscard]] bool committing() const { return static_cast<bool>(commit_); }

  /// A piece of chunk `id` starts on this rank (0-based within the loop).
  /// With a commit function every piece is kept (committed even without
  /// bytes); without one, only once bytes are attached to it, so that chunks
  /// without results cost nothing here.
  void begin_piece(std::int64_t id, Chunk piece) {
    piece_id_ = id;
    piece_ = piece;
    piece_open_ = true;
    current_ = -1;
    if (commit_) open_entry();
  }
  /// Bytes for the current piece (several calls append).
  void attach(const void* data, std::size_t bytes);
  void end_piece() {
    current_ = -1;
    piece_open_ = false;
  }

  /// The serialized results of chunk `id` into `out`, forgotten here; false
  /// (out empty) when nothing was attached to it.
  bool take(std::int64_t id, std::vector<std::byte>& out);
  /// Forgets every chunk's results not yet taken (their chunks are given up).
  void forget() {
    pending_.clear();
    current_ = -1;
  }
  /// Forgets what was attached to chunk `id` (a duplicate cut short).
  void drop(std::int64_t id);
  /// The coordinator's own chunk `id` finished first: commit its results.
  void commit_own(std::int64_t id);
  /// Commits results serialized by take() on another rank; with `apply`
  /// false only reads past them. Returns their size (they may be followed
  /// by more: frames, below).
  std::size_t commit(const std::byte* data, std::size_t bytes, bool apply = true) const;

  /// Several chunks' results in one message (a report of a batch's parts,
  /// Request::count): for each part with results, its index in the report
  /// then take()'s serialization, appended to `out`.
  static void frame(std::vector<std::byte>& out, std::int32_t part, const std::vector<std::byte>& taken);
  /// Commits the frames of `data` whose part `first(part)` says finished
  /// first (the others are read past).
  void commit_frames(const std::byte* data, std::size_t bytes, const std::function<bool(std::int32_t)>& first) const;

 private:
  struct Piece {
    Index begin;
    Index size;
    std::int64_t bytes;
  };
  struct Pending {
    std::int64_t id = -1;
    std::vector<Piece> pieces;
    std::vector<std::byte> data;
  };
  int index_of(std::int64_t id);  // adds an entry for `id` when there is none
  void open_entry();              // the current piece gets its entry: current_
  void erase(std::size_t at);

  Index first_ = 0;
  CommitFn commit_;
  /// The chunk in execution, finished ones not yet reported (a few, or a
  /// batch's parts), oldest first: taken from the front.
  std::deque<Pending> pending_;
  int current_ = -1;  // the entry of the piece being executed (-1: none yet, or no piece)
  bool piece_open_ = false;  // a piece is being executed ...
  std::int64_t piece_id_ = -1;  // ... of this chunk
  Chunk piece_;
};

}  // namespace lb4mpi::rt
