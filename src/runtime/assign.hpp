// The chunk assignment of the two-sided execution models, both halves: what
// a coordinator answers a request with, and what a worker makes of the
// answer. The coordinator and worker units (coordinator.cpp, worker.cpp)
// do the messaging and are the same for every model; these are the chunk
// sources behind them:
//   centralized (CCA)     the coordinator computes each chunk (recursive form)
//   distributed (DCA)     the coordinator hands out step numbers; each rank
//                         computes its chunk from the closed form
//   distributed, grant    techniques without a closed form: the coordinator
//                         grants a step with the inputs only it holds, the rank
//                         evaluates the formula and commits the size (`001` §4)
#pragma once
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "feedback.hpp"
#include "protocol.hpp"
#include "context.hpp"

namespace lb4mpi::rt {

class Assignment {
 public:
  virtual ~Assignment() = default;
  /// A new execution over [0, n) (the calculator is already started).
  virtual void start(Index n) = 0;

  // ---- the coordinator's half
  /// The coordinator's own next chunk.
  struct Own {
    enum class Kind : std::uint8_t { Chunk, Blocked, None } kind = Kind::None;
    Chunk chunk;
    std::int64_t id = -1;
  };
  virtual Own own_next() = 0;
  /// The answer to `worker`'s request; false: it must wait (deferred), and
  /// is released by a later commit.
  virtual bool answer(int worker, Reply& reply) = 0;
  /// The request being answered asks for up to `chunks` chunks in one reply
  /// (AskMessage::want); 1 for every other answer.
  void asked_for(int chunks) { want_ = chunks; }
  /// A commit of `worker` (grants only); appends the deferred answers it releases.
  virtual void commit(int /*worker*/, const CommitMessage& /*commit*/, std::vector<std::pair<int, Reply>>& /*released*/) {}

  // ---- the worker's half
  struct Got {
    bool end = true;      ///< no more work for this rank
    Chunk chunk;
    std::int64_t id = -1;
    bool commit = false;  ///< the chunk of a grant: the coordinator must be told its size
  };
  virtual Got interpret(const Reply& reply) = 0;
  /// A reply that carries its chunk (kChunk): what a worker got; nothing otherwise.
  static Got carried_chunk(const Reply& reply) {
    Got got;
    if (reply.kind != kChunk) return got;
    got.end = false;
    got.chunk = reply.body.chunk.chunk;
    got.id = reply.body.chunk.id;
    return got;
  }
  /// Whether a worker may ask before its chunk ends (requestWhen). A grant
  /// locks the assignment until its commit, so it must not wait behind the
  /// tail of a chunk.
  [[nodiscard]] virtual bool prefetch() const { return true; }

 protected:
  int want_ = 1;  ///< asked_for
};

/// The assignment of `model` (Centralized or Distributed) for the technique
/// of `feedback`'s calculator (which must be started before start()).
std::unique_ptr<Assignment> make_assignment(Model model, Context& ctx, AdaptiveFeedback& feedback);

}  // namespace lb4mpi::rt
