// Messages of the two-sided execution models (sent as MPI_BYTE: the ranks of
// one job share one architecture). Every message carries the execution's
// epoch, so that a message of another execution is recognized and dropped,
// and chunks travel with their identity (their scheduling step).
#pragma once
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>

#include "lb4mpi/techniques/chunk_calculator.hpp"
#include "lb4mpi/types.hpp"

namespace lb4mpi::rt {

enum Tag : int {
  kTagRequest = 4101,  ///< worker -> coordinator
  kTagReply = 4102,    ///< coordinator -> worker
  kTagFigures = 4104,  ///< recovery: worker -> coordinator, its figures at the end of an execution
  kTagReport = 4105,   ///< recovery: coordinator -> worker, every finishing rank's figures
  kTagFailover = 4106,  ///< recovery: a FailoverMessage (survivor <-> successor)
  kTagKept = 4107,      ///< recovery: survivor -> successor, the chunks it reported (serialized KeptChunks)
};

/// The tag of the results message that follows a report of execution
/// `epoch` (worker -> coordinator). One per epoch (modulo 16384): a results
/// message an ended execution never received (a copy's, that nobody needed)
/// is then never matched by a receive of a later execution, which would
/// take it for the results of another report.
inline int result_tag(std::int32_t epoch) { return 8192 + static_cast<int>(epoch & 16383); }

enum RequestKind : std::int32_t {
  kAsk = 0,       ///< wants a reply: a chunk, a step, a grant, or "no more work"
  kFinished = 1,  ///< reports a finished chunk, no reply
  kCommit = 2,    ///< DCA grant: "chunk `finished_id` takes `size` iterations from `begin`", no reply
};

/// Whether a report names a finished chunk, whose results (when it has
/// any beyond the inline ones) follow in a message of their own. Every
/// coordinator-side receiver of reports — of whatever execution, and even
/// a report of an ended one that only arrived now — receives that message
/// (then drops it by its epoch): left unreceived, it would be matched by
/// the receive posted for the same worker's next report of that epoch.
inline bool reports_finished_chunk(std::int32_t kind, std::int64_t id) { return id >= 0 && kind != kCommit; }

struct Request {
  std::int32_t epoch = 0;
  std::int32_t kind = kAsk;
  std::int64_t id = -1;       ///< kAsk, kFinished: a chunk this rank finished (-1: none); kCommit: the grant's step
  std::int64_t begin = 0;     ///< the chunk's start (kFinished, kAsk with id >= 0; kCommit)
  std::int64_t size = 0;      ///< the chunk's size (ditto)
  /// kAsk, kFinished: the finished chunks reported, `id` .. `id + count - 1`,
  /// consecutive and together [begin, begin + size) — a batch's chunks go
  /// in one report (several chunks per reply, below); with count > 1 their
  /// results are frames, one per part that has some (ResultStore::frame).
  std::int32_t count = 1;
  /// kAsk: how many chunks this rank would take in one reply (>= 1): its
  /// chunks are far shorter than a message (several chunks per reply).
  std::int32_t want = 1;
  std::int64_t done = 0;      ///< adaptive techniques: iterations executed since the previous report
  double work = 0.0;          ///< seconds of work for them
  double elapsed = 0.0;       ///< seconds since the previous report
  std::int64_t result_bytes = -1;  ///< >= 0: the finished chunk's results: in `inline_results` when they
                                   ///< fit, else a message of tag result_tag(epoch) follows
  /// Results of up to kInlineResults bytes travel in the report itself (one
  /// message per chunk, as without results).
  static constexpr std::size_t kInlineResults = 64;
  std::array<std::byte, kInlineResults> inline_results{};
};

enum ReplyKind : std::int32_t {
  kNone = 0,   ///< no more work for this rank
  kChunk = 1,  ///< CCA, or a copy handed out again: the chunk `chunk`, id = its step
  kStep = 2,   ///< DCA closed form: step `id`, the rank computes its chunk
  kGrant = 3,  ///< DCA grant: step `id` with the inputs `grant`
  kWait = 4,   ///< recovery: nothing for you yet, the coordinator is alive (the worker waits on)
};

/// Recovery, when a coordinator is given up (recovery/failover.cpp).
struct FailoverMessage {
  enum Kind : std::int32_t {
    kJoin = 1,      ///< survivor -> its successor candidate: "I gave coordinator generation `generation - 1` up"
    kTakeover = 2,  ///< successor -> every survivor: "I coordinate generation `generation`: send me what you kept"
  };
  std::int32_t kind = kJoin;
  std::int32_t generation = 0;
};

/// A grant's content (DCA without a closed form, `001` §4): where the step
/// starts and the inputs only the coordinator holds (the technique layer's
/// SharedInputs, named there per technique).
struct GrantInputs {
  std::int64_t start = 0;      ///< the step's first iteration
  SharedInputs inputs;         ///< R_i, whether the rank has a measurement, the technique's shared values
  std::int64_t evaluated = 0;  ///< recovery: the size the coordinator evaluated and committed when it granted
};

/// Coordinator -> worker. What is set depends on `kind` (above): `id` for
/// kChunk, kStep and kGrant; `chunk` for kChunk (and kStep under recovery,
/// whose coordinator knows the step's range); `reissued` for kChunk; `grant`
/// for kGrant; nothing for kNone and kWait.
struct Reply {
  std::int32_t epoch = 0;
  std::int32_t kind = kNone;
  std::int64_t id = -1;
  Chunk chunk;
  std::int32_t reissued = 0;  ///< the chunk was handed out before (to a rank that has not finished it)
  /// kChunk: several chunks in one reply (a technique of constant chunk
  /// size, asked by a rank whose chunks are far shorter than a message):
  /// steps `id` .. `id + count - 1`, each of `each` iterations (the last
  /// one at most that), together `chunk` (batch_part).
  std::int32_t count = 1;
  std::int64_t each = 0;
  GrantInputs grant;
};

/// Part `j` (0 <= j < count) of a reply of several chunks: step id + j.
inline Chunk batch_part(const Reply& r, std::int32_t j) {
  if (r.count <= 1) return r.chunk;
  const Index begin = r.chunk.begin + static_cast<Index>(j) * r.each;
  return Chunk{begin, std::min<Index>(r.each, r.chunk.end() - begin)};
}

}  // namespace lb4mpi::rt
