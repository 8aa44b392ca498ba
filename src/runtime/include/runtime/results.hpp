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
#include <functional>
#include <limits>
#include <utility>
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
    forget();
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
    pieces_.clear();
    data_.clear();
    head_ = 0;
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
  /// ChunkReport::count): for each part with results, its index in the report
  /// then take()'s serialization, appended to `out`.
  static void frame(std::vector<std::byte>& out, std::int32_t part, const std::vector<std::byte>& taken);
  /// Commits the frames of `data` whose part `first(part)` says finished
  /// first (the others are read past).
  void commit_frames(const std::byte* data, std::size_t bytes, const std::function<bool(std::int32_t)>& first) const;

 private:
  /// A piece with a record here, in the order executed. A chunk's pieces
  /// follow one another (a rank executes one chunk at a time), and so do
  /// their bytes in data_.
  struct Piece {
    std::int64_t id;     ///< its chunk; kGone once taken, dropped or committed
    Index begin;         ///< 0-based within the loop
    Index size;
    std::int64_t bytes;  ///< attached to it
    std::size_t offset;  ///< where they start in data_
  };
  static constexpr std::int64_t kGone = std::numeric_limits<std::int64_t>::min();

  void open_entry();  // the current piece gets its record: current_
  /// [first, end): the records of chunk `id` (first == end: none).
  [[nodiscard]] std::pair<std::size_t, std::size_t> find(std::int64_t id) const;
  /// The records [first, end) are gone; the storage of a gone prefix is reused.
  void retire(std::size_t first, std::size_t end);

  Index first_ = 0;
  CommitFn commit_;
  /// Flat, so that a chunk costs no allocation once the vectors have grown:
  /// the chunk in execution and finished ones not yet reported (a few, or a
  /// batch's parts), oldest first; taken from the front mostly.
  std::vector<Piece> pieces_;
  std::vector<std::byte> data_;
  std::size_t head_ = 0;        // pieces_[0, head_) are gone
  std::ptrdiff_t current_ = -1;  // the record of the piece being executed (-1: none yet, or no piece)
  bool piece_open_ = false;  // a piece is being executed ...
  std::int64_t piece_id_ = -1;  // ... of this chunk
  Chunk piece_;
};

}  // namespace lb4mpi::rt
