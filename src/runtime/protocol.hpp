// Messages of the two-sided execution models (sent as MPI_BYTE: the ranks of
// one job share one architecture). Every message carries the execution's
// epoch, so that a message of another execution is recognized and dropped,
// and chunks travel with their identity (their scheduling step).
#pragma once
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <type_traits>

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
  kTagReportAck = 4108,  ///< recovery: worker -> coordinator, it has the report
  kTagRelease = 4109,    ///< recovery: coordinator -> worker, every survivor has the report
};

/// The tag of the results message that follows a report of execution
/// `epoch` (worker -> coordinator). One per epoch (modulo 16384): a results
/// message an ended execution never received (a copy's, that nobody needed)
/// is then never matched by a receive of a later execution, which would
/// take it for the results of another report.
inline int result_tag(std::int32_t epoch) { return 8192 + static_cast<int>(epoch & 16383); }

/// Message `m` of `kind` in its envelope (Request, Reply below).
template <class Envelope, class Message>
Envelope wrap(std::int32_t kind, const Message& m) {
  Envelope e;
  e.kind = kind;
  e.body.set(m);
  return e;
}

enum RequestKind : std::int32_t {
  kAsk = 0,       ///< AskMessage: wants a reply (a chunk, a step, a grant, or "no more work")
  kFinished = 1,  ///< FinishedMessage: reports finished chunks, no reply
  kCommit = 2,    ///< CommitMessage: DCA grant committed, no reply
};

/// The finished chunks a report names: `id` .. `id + count - 1`,
/// consecutive and together [begin, begin + size) — a batch's chunks go in
/// one report (several chunks per reply); with count > 1 their results are
/// frames, one per part that has some (ResultStore::frame).
struct ChunkReport {
  std::int64_t id = -1;  ///< the first chunk reported (-1: none)
  std::int64_t begin = 0;
  std::int64_t size = 0;
  std::int32_t count = 1;
  std::int64_t result_bytes = -1;  ///< >= 0: the chunks' results: in `inline_results` when they
                                   ///< fit, else a message of tag result_tag(epoch) follows
  /// Results of up to kInlineResults bytes travel in the report itself (one
  /// message per chunk, as without results).
  static constexpr std::size_t kInlineResults = 64;
  std::array<std::byte, kInlineResults> inline_results{};
};

/// What an adaptive technique learns from a rank: since its previous report.
struct Measurement {
  std::int64_t done = 0;  ///< iterations executed
  double work = 0.0;      ///< seconds of work for them
  double elapsed = 0.0;   ///< seconds elapsed
};

/// kAsk: the rank wants work, and reports what it finished meanwhile.
struct AskMessage {
  ChunkReport report;
  Measurement measured;
  /// How many chunks this rank would take in one reply (>= 1): its chunks
  /// are far shorter than a message (several chunks per reply).
  std::int32_t want = 1;
};

/// kFinished: the rank reports finished chunks, and asks for nothing.
struct FinishedMessage {
  ChunkReport report;
  Measurement measured;
};

/// kCommit: DCA grant: "step `step` takes `chunk`".
struct CommitMessage {
  std::int64_t step = -1;
  Chunk chunk;
};

/// Worker -> coordinator: one of the messages above, by `kind` (a fixed
/// size, so that a receive can be posted before the kind is known).
struct Request {
  std::int32_t epoch = 0;
  std::int32_t kind = kAsk;
  union Body {
    Body() : ask() {}
    void set(const AskMessage& m) { ask = m; }
    void set(const FinishedMessage& m) { finished = m; }
    void set(const CommitMessage& m) { commit = m; }
    AskMessage ask;
    FinishedMessage finished;
    CommitMessage commit;
  } body;

  static Request of(const AskMessage& m) { return wrap<Request>(kAsk, m); }
  static Request of(const FinishedMessage& m) { return wrap<Request>(kFinished, m); }
  static Request of(const CommitMessage& m) { return wrap<Request>(kCommit, m); }
  /// kAsk and kFinished carry a report (and a measurement); kCommit none.
  [[nodiscard]] bool reports() const { return kind == kAsk || kind == kFinished; }
  [[nodiscard]] const ChunkReport& report() const { return kind == kFinished ? body.finished.report : body.ask.report; }
  ChunkReport& report() { return kind == kFinished ? body.finished.report : body.ask.report; }
  [[nodiscard]] const Measurement& measured() const {
    return kind == kFinished ? body.finished.measured : body.ask.measured;
  }
  Measurement& measured() { return kind == kFinished ? body.finished.measured : body.ask.measured; }
};

/// Whether `r` reports a finished chunk, whose results (when it has any
/// beyond the inline ones) follow in a message of their own. Every
/// coordinator-side receiver of reports — of whatever execution, and even a
/// report of an ended one that only arrived now — receives that message
/// (then drops it by its epoch): left unreceived, it would be matched by the
/// receive posted for the same worker's next report of that epoch.
inline bool reports_finished_chunk(const Request& r) { return r.reports() && r.report().id >= 0; }

enum ReplyKind : std::int32_t {
  kNone = 0,   ///< no body: no more work for this rank
  kChunk = 1,  ///< ChunkReply: CCA, or a copy handed out again
  kStep = 2,   ///< StepReply: DCA closed form, the rank computes its chunk
  kGrant = 3,  ///< GrantReply: DCA grant
  kWait = 4,   ///< no body: recovery: nothing for you yet, the coordinator is alive (the worker waits on)
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

/// kChunk: steps `id` .. `id + count - 1`, together `chunk`: one chunk, or
/// several (a technique of constant chunk size, asked by a rank whose chunks
/// are far shorter than a message), each of `each` iterations (the last one
/// at most that; batch_part).
struct ChunkReply {
  std::int64_t id = -1;
  Chunk chunk;
  std::int32_t reissued = 0;  ///< the chunk was handed out before (to a rank that has not finished it)
  std::int32_t count = 1;
  std::int64_t each = 0;
};

/// kStep: step `id`, whose chunk the rank computes (`chunk`: its range, set
/// under recovery, whose coordinator knows it).
struct StepReply {
  std::int64_t id = -1;
  Chunk chunk;
};

/// kGrant: step `id` with the inputs only the coordinator holds.
struct GrantReply {
  std::int64_t id = -1;
  GrantInputs grant;
};

/// Coordinator -> worker: one of the replies above, by `kind` (kNone and
/// kWait have no body).
struct Reply {
  std::int32_t epoch = 0;
  std::int32_t kind = kNone;
  union Body {
    Body() : chunk() {}
    void set(const ChunkReply& m) { chunk = m; }
    void set(const StepReply& m) { step = m; }
    void set(const GrantReply& m) { grant = m; }
    ChunkReply chunk;
    StepReply step;
    GrantReply grant;
  } body;

  static Reply of(std::int32_t no_body_kind) {
    Reply r;
    r.kind = no_body_kind;
    return r;
  }
  static Reply of(const ChunkReply& m) { return wrap<Reply>(kChunk, m); }
  static Reply of(const StepReply& m) { return wrap<Reply>(kStep, m); }
  static Reply of(const GrantReply& m) { return wrap<Reply>(kGrant, m); }
};

// Sent as bytes (MPI_BYTE) and copied as such.
static_assert(std::is_trivially_copyable_v<Request> && std::is_trivially_copyable_v<Reply>);

/// Part `j` (0 <= j < count) of a reply of several chunks: step id + j.
inline Chunk batch_part(const ChunkReply& r, std::int32_t j) {
  if (r.count <= 1) return r.chunk;
  const Index begin = r.chunk.begin + static_cast<Index>(j) * r.each;
  return Chunk{begin, std::min<Index>(r.each, r.chunk.end() - begin)};
}

}  // namespace lb4mpi::rt
