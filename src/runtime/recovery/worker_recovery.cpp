// The worker's recovery policies: plain (robust mode off: waits without a
// deadline, chunks in one piece) and robust: its reply receive stays
// posted, so that the end of the loop cuts a chunk short between pieces
// (ServeCadence apart); every wait and send is bounded by the patience
// since the coordinator was last heard of; once the assignment is over a
// finished chunk is reported at once.
#include <algorithm>
#include <string>

#include "recovery/policy.hpp"
#include "runtime/mpi.hpp"
#include "runtime/pieces.hpp"

namespace lb4mpi::rt {
namespace {

class PlainWorker final : public WorkerRecovery {
 public:
  explicit PlainWorker(Context& ctx) : ctx_(ctx) {}
  void await() override {
    if (!ctx_.engine->wait_one()) throw Error("lb4mpi: internal error: a worker waits for no reply");
  }
  void complete(MPI_Request& send) override { wait(send, MPI_STATUS_IGNORE); }

 private:
  Context& ctx_;
};

class RobustWorker final : public WorkerRecovery {
 public:
  explicit RobustWorker(Context& ctx) : ctx_(ctx) {}

  void start() override {
    cadence_.configure(-1);
    last_heard_ = ctx_.meter->now();
  }
  void heard() override {
    last_heard_ = ctx_.meter->now();
    ctx_.grace = 0.0;
  }
  // Silence counts from the later of the last word and the start of this
  // wait: time this rank spent on other loops of its set is not the
  // coordinator's silence.
  void waiting() override { last_heard_ = std::max(last_heard_, ctx_.meter->now()); }

  void await() override {
    const double timeout = ctx_.patience() + ctx_.grace;
    const auto w = ctx_.engine->wait_one_until(last_heard_ + timeout);
    if (w == ProgressEngine::Waited::Idle) throw Error("lb4mpi: internal error: a worker waits for no reply");
    if (w == ProgressEngine::Waited::TimedOut && clock_now() > last_heard_ + timeout) {
      coordinator_silent(ctx_, "while waiting for work");
    }
    check_takeover(ctx_);
  }

  void polled() override {
    check_takeover(ctx_);
    if (clock_now() > last_heard_ + ctx_.patience() + ctx_.grace) coordinator_silent(ctx_, "while waiting for work");
  }

  void complete(MPI_Request& send) override {
    // Polls the engine meanwhile: a failover message ends the wait at once.
    const double deadline = clock_now() + ctx_.patience();
    for (int polls = 0;; ++polls) {
      int done = 0;
      check_mpi(MPI_Test(&send, &done, MPI_STATUS_IGNORE), "MPI_Test");
      if (done != 0) return;
      ctx_.engine->poll();
      if (ctx_.takeover || (polls >= kSpinPolls && clock_now() > deadline)) {
        MPI_Request_free(&send);
        coordinator_silent(ctx_, "while sending to it");
      }
      backoff(polls);
    }
  }

  [[nodiscard]] bool listens() const override { return true; }
  [[nodiscard]] bool reports_at_once() const override { return true; }
  // A chunk that fits in what is left of the cadence's budget is not cut:
  // no clock read for it (SS over a short body: one per chunk cost 5 % of a
  // robust loop's time); a longer one starts a fresh count.
  void chunk_begins(Index size) override {
    if (size > cadence_.budget()) cadence_.checked(ctx_.meter->now());
  }
  Index piece(Index left) override {
    check_takeover(ctx_);
    if (cadence_.due()) cadence_.checked(ctx_.meter->now());
    return std::min(left, cadence_.budget());
  }
  void executed(Index size) override { cadence_.executed(size); }

 private:
  Context& ctx_;
  ServeCadence cadence_;
  double last_heard_ = 0.0;  // when the coordinator was last heard of
};

}  // namespace

std::unique_ptr<WorkerRecovery> make_worker_recovery(Context& ctx) {
  if (ctx.bounded()) return std::make_unique<RobustWorker>(ctx);
  return std::make_unique<PlainWorker>(ctx);
}

void coordinator_silent(const Context& ctx, const char* while_doing) {
  throw CoordinatorLost("lb4mpi: robust mode: rank " + std::to_string(ctx.rank) + " heard nothing from the coordinator (rank " +
              std::to_string(ctx.config.coordinator) + ") for " + std::to_string(ctx.patience()) +
              " s (LB4MPI_ROBUST_TIMEOUT) " + while_doing +
              ": it has probably failed (docs/ROBUST.md)");
}

}  // namespace lb4mpi::rt
