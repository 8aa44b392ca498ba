// The coordinator's recovery policies: plain (robust mode off) and robust
// (rDLB, `004`): once the assignment has no chunk left, a request is
// answered with a chunk that is out elsewhere (Ledger::reissue), or "wait"
// until the loop completes (with "still alive" a quarter of the patience
// apart); when every iteration is finished every worker not yet told is
// told the loop is over. Replies are sent without waiting (a send to a
// failed rank may never complete).
#include <deque>
#include <vector>

#include "ledger.hpp"
#include "recovery/policy.hpp"
#include "runtime/mpi.hpp"

namespace lb4mpi::rt {
namespace {

class PlainCoordinator final : public CoordinatorRecovery {
 public:
  PlainCoordinator(Context& ctx, Ledger& ledger, Assignment& assign, CoordinatorPort& port)
      : ctx_(ctx), ledger_(ledger), assign_(assign), port_(port) {}

  void answer(int worker) override {
    Reply r;
    if (assign_.answer(worker, r)) port_.send(worker, r);  // else deferred: a commit releases it
  }
  void deliver(int worker, const Reply& reply) override {
    // The worker posted its receive before asking (or at its start), so this completes.
    check_mpi(MPI_Send(&reply, sizeof reply, MPI_BYTE, worker, kTagReply, ctx_.comm), "MPI_Send");
  }
  void own_piece(Index size) override { ledger_.finished_here(size); }

 private:
  Context& ctx_;
  Ledger& ledger_;
  Assignment& assign_;
  CoordinatorPort& port_;
};

class RobustCoordinator final : public CoordinatorRecovery {
 public:
  RobustCoordinator(Context& ctx, Ledger& ledger, Assignment& assign, CoordinatorPort& port)
      : ctx_(ctx), ledger_(ledger), assign_(assign), port_(port) {}

  ~RobustCoordinator() override {
    // Sends to failed ranks never complete: their requests are freed and
    // their buffers left to MPI (a few bytes per failed rank, kept for good).
    bool pending = false;
    for (Outgoing& o : outbox_) {
      if (o.request == MPI_REQUEST_NULL) continue;
      int done = 0;
      MPI_Test(&o.request, &done, MPI_STATUS_IGNORE);
      if (done == 0) {
        MPI_Request_free(&o.request);
        pending = true;
      }
    }
    if (pending) new std::deque<Outgoing>(std::move(outbox_));  // deliberately never freed
  }
  RobustCoordinator(const RobustCoordinator&) = delete;
  RobustCoordinator& operator=(const RobustCoordinator&) = delete;

  void start() override {
    phase_ = Phase::Assigning;
    ended_.assign(static_cast<std::size_t>(ctx_.size), 0);
    deferred_.clear();
    reissued_ = 0;
    last_beat_ = ctx_.meter->now();
  }

  void answer(int worker) override {
    if (ended_[static_cast<std::size_t>(worker)] != 0) return;
    Reply r;
    if (phase_ == Phase::Assigning) {
      assign_.answer(worker, r);  // the assignments of robust mode answer at once
      if (r.kind != kNone) {
        port_.send(worker, r);
        return;
      }
      phase_ = Phase::Reissuing;
    }
    if (ledger_.complete()) {
      send_end(worker);
      return;
    }
    if (const Ledger::Entry* e = ledger_.reissue(worker)) {
      ChunkReply copy;
      copy.id = e->id;
      copy.chunk = e->chunk;
      copy.reissued = 1;
      ++reissued_;
      port_.send(worker, Reply::of(copy));
      return;
    }
    deferred_.push_back(worker);
    // Told at once: a deferred worker reports its finished chunks right away
    // (the completion the loop waits for may be its own).
    port_.send(worker, Reply::of(kWait));
  }

  void deliver(int worker, const Reply& reply) override {
    if (reply.kind == kGrant) {  // evaluated when granted
      const GrantReply& g = reply.body.grant;
      ledger_.scheduled(g.id, Chunk{g.grant.start, g.grant.evaluated}, worker);
    }
    if (reply.kind == kNone) ended_[static_cast<std::size_t>(worker)] = 1;
    // The worker may have failed: nobody waits for the send.
    while (!outbox_.empty()) {
      int done = 0;
      if (outbox_.front().request != MPI_REQUEST_NULL) MPI_Test(&outbox_.front().request, &done, MPI_STATUS_IGNORE);
      if (done == 0 && outbox_.front().request != MPI_REQUEST_NULL) break;
      outbox_.pop_front();
    }
    outbox_.push_back(Outgoing{MPI_REQUEST_NULL, reply});
    Outgoing& o = outbox_.back();
    if (MPI_Isend(&o.reply, sizeof o.reply, MPI_BYTE, worker, kTagReply, ctx_.comm, &o.request) != MPI_SUCCESS) {
      o.request = MPI_REQUEST_NULL;
    }
  }

  void reported(bool first) override {
    if (first && ledger_.complete()) loop_end();
  }

  void serving() override { heartbeat(); }

  double before_block() override {
    heartbeat();
    // Wakes up for the heartbeat of deferred workers.
    return last_beat_ + 0.25 * ctx_.patience();
  }

  [[nodiscard]] bool assignment_open() const override { return phase_ == Phase::Assigning; }

  void own_exhausted(Assignment::Own& own) override {
    if (phase_ == Phase::Assigning) phase_ = Phase::Reissuing;
    // Every chunk is scheduled: the coordinator, too, takes a chunk out
    // elsewhere (with P - 1 failures it executes all that is left itself).
    if (ledger_.complete()) return;
    if (const Ledger::Entry* e = ledger_.reissue(ctx_.rank)) {
      own.kind = Assignment::Own::Kind::Chunk;
      own.chunk = e->chunk;
      own.id = e->id;
      ++reissued_;
    }
  }

  void own_begins(std::int64_t id, const Chunk& chunk) override { ledger_.scheduled(id, chunk, ctx_.rank); }
  [[nodiscard]] bool still_needed(std::int64_t id) const override { return ledger_.out(id); }
  void own_piece(Index /*size*/) override {}  // counted by chunk (own_done)

  bool own_done(std::int64_t id, Index size) override {
    if (!ledger_.finished(id, size)) return false;  // finished elsewhere first
    if (ledger_.complete()) loop_end();
    return true;
  }

  void loop_end() override {
    if (phase_ == Phase::Closed) return;
    phase_ = Phase::Closed;
    deferred_.clear();
    for (int w = 0; w < ctx_.size; ++w) {
      if (w != ctx_.rank) send_end(w);
    }
  }

  [[nodiscard]] Index reissued() const override { return reissued_; }

 private:
  enum class Phase : std::uint8_t {
    Assigning,  ///< the assignment has chunks left
    Reissuing,  ///< every chunk is scheduled: requests get copies, or wait
    Closed,     ///< every iteration is finished and every worker told
  };

  void send_end(int worker) {
    if (ended_[static_cast<std::size_t>(worker)] != 0) return;
    port_.send(worker, Reply::of(kNone));
  }

  /// "Still alive" to the deferred workers, a quarter of the patience apart.
  void heartbeat() {
    if (deferred_.empty()) return;
    const double now = ctx_.meter->now();
    if (now - last_beat_ < 0.25 * ctx_.patience()) return;
    last_beat_ = now;
    for (int w : deferred_) port_.send(w, Reply::of(kWait));
  }

  Context& ctx_;
  Ledger& ledger_;
  Assignment& assign_;
  CoordinatorPort& port_;
  Phase phase_ = Phase::Assigning;
  std::vector<char> ended_;    // per rank: told the loop is over
  std::vector<int> deferred_;  // workers waiting for the loop to complete
  double last_beat_ = 0.0;
  Index reissued_ = 0;
  // Replies stay here until their sends complete.
  struct Outgoing {
    MPI_Request request = MPI_REQUEST_NULL;
    Reply reply;
  };
  std::deque<Outgoing> outbox_;
};

}  // namespace

std::unique_ptr<CoordinatorRecovery> make_coordinator_recovery(Context& ctx, Ledger& ledger, Assignment& assign,
                                                               CoordinatorPort& port) {
  if (ctx.bounded()) return std::make_unique<RobustCoordinator>(ctx, ledger, assign, port);
  return std::make_unique<PlainCoordinator>(ctx, ledger, assign, port);
}

}  // namespace lb4mpi::rt
