// The recovery unit (docs/ROBUST.md): what robust mode adds to the
// execution models, as a policy each role asks at a few named points —
// a chunk handed out, a report received, a wait about to block, the loop
// ending. With robust mode off the plain policies do nothing (the plain
// coordinator answers from the assignment and sends with MPI_Send, the
// plain worker waits without a deadline). The two-sided models' roles
// (coordinator.cpp, worker.cpp) hold one each; distributed-rma's robust
// roles (rma_coordinator / rma_worker here) are recovery through and
// through. make_recovering_scheduler() (models.cpp) is where an execution
// model meets the unit.
#pragma once
#include <mpi.h>

#include <cstdint>
#include <limits>
#include <memory>

#include "assign.hpp"
#include "context.hpp"
#include "protocol.hpp"

namespace lb4mpi::rt {

class Ledger;
class Scheduler;
class AdaptiveFeedback;

/// What a coordinator's recovery may ask of its coordinator.
class CoordinatorPort {
 public:
  /// `reply` to `worker`: stamped, recorded in the ledger, then delivered
  /// (CoordinatorRecovery::deliver).
  virtual void send(int worker, Reply reply) = 0;

 protected:
  ~CoordinatorPort() = default;
};

/// The coordinator's side of recovery (two-sided models).
class CoordinatorRecovery {
 public:
  static constexpr double kForever = std::numeric_limits<double>::infinity();
  virtual ~CoordinatorRecovery() = default;
  virtual void start() {}
  /// A chunk handed out: the answer to `worker`'s request (also its first work).
  virtual void answer(int worker) = 0;
  /// A reply leaves for `worker` (stamped and in the ledger).
  virtual void deliver(int worker, const Reply& reply) = 0;
  /// A report received; `first`: one of its chunks (a batch reports
  /// several) finished for the first time.
  virtual void reported(bool /*first*/) {}
  /// The coordinator serves what arrived (between pieces): what is due.
  virtual void serving() {}
  /// A wait about to block: until when at most (kForever: until a message comes).
  virtual double before_block() { return kForever; }
  /// Whether the assignment may still give the coordinator a chunk.
  [[nodiscard]] virtual bool assignment_open() const { return true; }
  /// The assignment has nothing more for the coordinator: `own` may become
  /// a copy of a chunk that is out elsewhere.
  virtual void own_exhausted(Assignment::Own& /*own*/) {}
  /// Its own chunk `id` begins.
  virtual void own_begins(std::int64_t /*id*/, const Chunk& /*chunk*/) {}
  /// Between pieces of its own chunk `id`: whether it is still needed.
  [[nodiscard]] virtual bool still_needed(std::int64_t /*id*/) const { return true; }
  /// A piece of its own of `size` iterations ended.
  virtual void own_piece(Index size) = 0;
  /// Its own chunk `id` ended: whether its results are committed (its first completion).
  virtual bool own_done(std::int64_t /*id*/, Index /*size*/) { return true; }
  /// The loop ending: every iteration is finished.
  virtual void loop_end() {}
  /// Chunks handed out again this execution.
  [[nodiscard]] virtual Index reissued() const { return 0; }
};

/// The worker's side of recovery (two-sided models).
class WorkerRecovery {
 public:
  virtual ~WorkerRecovery() = default;
  virtual void start() {}
  /// The coordinator was heard of (a reply of this execution arrived).
  virtual void heard() {}
  /// A wait for a reply begins (before the first await()).
  virtual void waiting() {}
  /// A wait for a reply about to block: waits for one message (serving
  /// every loop of the engine meanwhile); recovery bounds it.
  virtual void await() = 0;
  /// Loops in flight together: a poll for a reply found none; recovery
  /// bounds the silence since the request went out as await() does.
  virtual void polled() {}
  /// Completes a send to the coordinator; recovery bounds it.
  virtual void complete(MPI_Request& send) = 0;
  /// Whether the reply receive stays posted: the loop's end may come
  /// before the rank asks, and cuts its chunk short between pieces.
  [[nodiscard]] virtual bool listens() const { return false; }
  /// Whether a finished chunk is reported at once once the assignment is
  /// over (the loop's end may hang on it), and dropped after the end.
  [[nodiscard]] virtual bool reports_at_once() const { return false; }
  /// A chunk of `size` iterations begins; the size of its next piece, at
  /// most `left`; `size` executed.
  virtual void chunk_begins(Index /*size*/) {}
  virtual Index piece(Index left) { return left; }
  virtual void executed(Index /*size*/) {}
};

std::unique_ptr<CoordinatorRecovery> make_coordinator_recovery(Context& ctx, Ledger& ledger, Assignment& assign,
                                                               CoordinatorPort& port);
std::unique_ptr<WorkerRecovery> make_worker_recovery(Context& ctx);

/// A rank gives its coordinator up: silent for the patience, or a failover
/// message came. The failover (recovery/failover.cpp) catches it.
class CoordinatorLost : public Error {
 public:
  using Error::Error;
};

/// Throws CoordinatorLost: the coordinator of `ctx` was silent for the
/// patience (LB4MPI_ROBUST_TIMEOUT) `while_doing` something.
[[noreturn]] void coordinator_silent(const Context& ctx, const char* while_doing);
/// Throws CoordinatorLost when a failover message arrived (Context::takeover)
/// or another loop of the set found the coordinator failed (Context::known_failed).
inline void check_takeover(const Context& ctx) {
  if (ctx.takeover) throw CoordinatorLost("lb4mpi: a failover message arrived");
  if (ctx.known_to_have_failed(ctx.config.coordinator)) {
    throw CoordinatorLost("lb4mpi: another loop of the set found the coordinator failed");
  }
}

/// Wraps a role of a recovering loop: when the role gives its coordinator
/// up, the survivors agree on a successor and go on under it.
std::unique_ptr<Scheduler> make_failover(Context& ctx, AdaptiveFeedback& feedback, std::unique_ptr<Scheduler> role);

/// distributed-rma under recovery: its own roles (one-sided assignment,
/// reports by message), or nullptr when the technique needs the two-sided
/// grants instead (a technique without a closed form would lock the window).
std::unique_ptr<Scheduler> make_recovering_rma(Context& ctx, AdaptiveFeedback& feedback);

}  // namespace lb4mpi::rt
