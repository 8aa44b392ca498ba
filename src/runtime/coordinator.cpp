#include "coordinator.hpp"

#include "reports.hpp"

#include <algorithm>
#include <string>

#include "runtime/mpi.hpp"

namespace lb4mpi::rt {

Coordinator::Coordinator(Context& ctx, AdaptiveFeedback& feedback, std::unique_ptr<Assignment> assignment)
    : FedScheduler(feedback),
      ctx_(ctx),
      assign_(std::move(assignment)),
      inbox_(ctx, this),
      results_in_(ctx, [this](int, const Request& report, const std::vector<std::byte>& results) {
        chunk_reported(report, results);
      }),
      recovery_(make_coordinator_recovery(ctx, ledger_, *assign_, *this)) {}

Coordinator::~Coordinator() = default;

void Coordinator::stop_listening() {
  int sender = -1;
  Request late;
  if (inbox_.stop(sender, late)) handle(sender, late);  // a late report of this execution, or a stale one
}

void Coordinator::start(Index n) {
  ledger_.start(n);
  cut_.clear();
  own_over_ = false;
  recovery_->start();
  cadence_.configure(ctx_.config.break_after);
  assign_->start(n);
  // Alone, the coordinator still runs its chunks in pieces: loops in flight
  // together take turns, as they do on more ranks.
  if (cadence_.automatic()) cadence_.checked(ctx_.meter->now());
  if (ctx_.size == 1) return;
  inbox_.listen();
  // Its own first chunk, then the workers' first work: the coordinator
  // takes the loop's first step, as a hand-written master does (which rank
  // holds a costly chunk of the first batch then matches that loop's).
  Grab first;
  fresh_ = next_own_chunk(true, first);
  // Initial work for every worker, in rank order, so that nobody starts with a request.
  for (int w = 0; w < ctx_.size; ++w) {
    if (w != ctx_.rank && (skip_.empty() || skip_[static_cast<std::size_t>(w)] == 0)) recovery_->answer(w);
  }
}

void Coordinator::send(int worker, Reply reply) {
  reply.epoch = ctx_.epoch;
  if (reply.kind == kChunk) {
    const ChunkReply& c = reply.body.chunk;
    for (std::int32_t j = 0; j < c.count; ++j) ledger_.scheduled(c.id + j, batch_part(c, j), worker);
  } else if (reply.kind == kStep) {
    ledger_.scheduled(reply.body.step.id, reply.body.step.chunk, worker);  // its range when known
  }
  recovery_->deliver(worker, reply);
}

void Coordinator::on_complete(int /*slot*/, const MPI_Status& status) {
  const Request request = inbox_.take();
  handle(status.MPI_SOURCE, request);
}

void Coordinator::handle(int worker, const Request& request) {
  // The finished chunk it reports counts when its results are in (now, or
  // when their message comes: chunk_reported).
  if (reports_finished_chunk(request)) results_in_.take(worker, request);
  if (request.epoch != ctx_.epoch) return;  // of an abandoned execution: dropped
  if (request.reports() && fb_.timed() && request.measured().done > 0) {
    const Measurement& m = request.measured();
    fb_.calc().record(ChunkTiming{worker, m.done, m.work, m.elapsed});
  }
  switch (request.kind) {
    case kAsk:
      assign_->asked_for(std::max(1, request.body.ask.want));  // the assignment decides whether it batches
      recovery_->answer(worker);
      assign_->asked_for(1);
      break;
    case kCommit: {
      const CommitMessage& c = request.body.commit;
      ledger_.scheduled(c.step, c.chunk, worker);
      released_.clear();
      assign_->commit(worker, c, released_);
      for (const auto& [w, r] : released_) send(w, r);
      break;
    }
    default:  // kFinished: counted above
      break;
  }
}

void Coordinator::chunk_reported(const Request& message, const std::vector<std::byte>& results) {
  if (message.epoch != ctx_.epoch) return;  // of an abandoned execution: its results drained, dropped
  const ChunkReport& report = message.report();
  // A report of several chunks (ChunkReport::count) names them by their
  // steps; the ledger knows their ranges (only centralized replies carry several).
  if (report.count <= 1) {
    const bool first = ledger_.finished(report.id, report.size);
    if (first && report.result_bytes >= 0) ctx_.results->commit(results.data(), results.size());
    recovery_->reported(first);
  } else {
    // Each part commits its results (a frame each) if it finished here
    // first: under recovery a copy may have finished it elsewhere.
    firsts_.assign(static_cast<std::size_t>(report.count), 0);
    bool any = false;
    for (std::int32_t j = 0; j < report.count; ++j) {
      firsts_[static_cast<std::size_t>(j)] = ledger_.finished(report.id + j, 0) ? 1 : 0;
      any = any || firsts_[static_cast<std::size_t>(j)] != 0;
    }
    if (report.result_bytes >= 0) {
      ctx_.results->commit_frames(results.data(), results.size(), [this, &report](std::int32_t j) {
        if (j < 0 || j >= report.count) throw Error("lb4mpi: internal error: malformed chunk results received");
        return firsts_[static_cast<std::size_t>(j)] != 0;
      });
    }
    recovery_->reported(any);
  }
}

int Coordinator::serve_ready() {
  double t0 = 0.0;
  // Every request that has arrived, not one per check: with hundreds of
  // workers one answer per piece of the coordinator's own starved them
  // (found in simulation at 256 ranks, docs/EXPERIMENTS.md).
  cadence_.answered();
  const int served = ctx_.engine->drain(&t0);
  if (served > 0) ctx_.meter->served(t0, ctx_.meter->now());
  recovery_->serving();
  return served;
}

template <class Done>
void Coordinator::serve_until(Done done, bool loop_end) {
  while (!done()) {
    const double t0 = ctx_.meter->now();
    double found = -1.0;  // when a message was found, before it was handled
    const double until = recovery_->before_block();
    const bool idle = until == CoordinatorRecovery::kForever
                          ? !ctx_.engine->wait_one(&found)
                          : ctx_.engine->wait_one_until(until, &found) == ProgressEngine::Waited::Idle;
    if (idle) throw Error("lb4mpi: internal error: the coordinator waits for a message that no rank will send");
    const double t1 = ctx_.meter->now();
    const double waited_until = found >= 0.0 ? found : t1;
    if (loop_end) {
      ctx_.meter->idle(t0, waited_until);
    } else {
      ctx_.meter->spent(t0, waited_until);
    }
    if (found >= 0.0) ctx_.meter->served(found, t1);
  }
}

bool Coordinator::next_own_chunk(bool may_wait, Grab& grab) {
  if (fb_.timed()) {  // its own chunk is finished: learn from it
    const double t = ctx_.meter->now();
    if (fb_.pending()) {
      fb_.calc().record(fb_.take(ctx_.rank, t));
    } else {
      fb_.restart_period(t);
    }
  }
  // Between two of its own chunks the coordinator answers what has
  // arrived: a waiting worker then waits about one round trip, not for a
  // whole cadence (one MPI_Test when nothing is there).
  if (ctx_.size > 1 && cadence_.answer_due()) serve_ready();
  // Built in place (a copy of the returned struct cost a store-forwarding
  // stall per chunk: a third of this function's time on one rank).
  Assignment::Own own = recovery_->assignment_open() ? assign_->own_next() : Assignment::Own{};
  while (own.kind == Assignment::Own::Kind::Blocked) {
    // A worker's commit is one message away. Loops in flight together do
    // not wait for it here: the rank moves on and comes back.
    if (!may_wait) {
      serve_ready();
      own = assign_->own_next();
      if (own.kind == Assignment::Own::Kind::Blocked) {
        grab = Grab::of(Grab::Kind::NotNow);
        return false;
      }
      break;
    }
    bool blocked = true;
    serve_until([&] {
      if (!blocked) return true;
      own = assign_->own_next();
      blocked = own.kind == Assignment::Own::Kind::Blocked;
      return !blocked;
    }, false);
  }
  if (own.kind == Assignment::Own::Kind::None && ctx_.copies_later) {
    // Recovery, loops in flight together: a copy of its own waits while
    // another loop of the set may have original work.
    ctx_.copy_deferred = true;
    grab = Grab::of(Grab::Kind::NotNow);
    return false;
  }
  if (own.kind == Assignment::Own::Kind::None) recovery_->own_exhausted(own);
  if (own.kind == Assignment::Own::Kind::None) {
    own_over_ = true;
    return false;
  }
  recovery_->own_begins(own.id, own.chunk);
  cut_.begin(own.chunk, own.id);
  own_chunk_ = own.chunk;
  grab.new_chunk = true;
  grab.chunk = own.chunk;
  return true;
}

Grab Coordinator::acquire(bool may_wait) {
  // One named result, returned everywhere (built in place: a temporary
  // copied out cost store-forwarding stalls per piece).
  Grab grab;
  if (cadence_.due()) {
    cadence_.checked(cadence_.automatic() ? ctx_.meter->now() : 0.0);
    if (ctx_.size > 1) serve_ready();
  }
  for (;;) {
    if (!cut_.empty() && !recovery_->still_needed(cut_.id())) {
      // Finished elsewhere first: the rest of this copy is not needed.
      ctx_.results->drop(cut_.id());
      cut_.clear();
      fresh_ = false;
    }
    if (!cut_.empty()) {
      if (fresh_) {  // the chunk start() took
        fresh_ = false;
        grab.new_chunk = true;
        grab.chunk = own_chunk_;
      }
      grab.kind = Grab::Kind::Piece;
      grab.piece = cut_.take(cadence_.budget());
      grab.chunk_id = cut_.id();
      cadence_.executed(grab.piece.size);
      return grab;
    }
    if (!own_over_) {
      if (next_own_chunk(may_wait, grab)) continue;
      if (grab.kind == Grab::Kind::NotNow) return grab;
    }
    // Its own work is over; the loop is over when every iteration is finished.
    if (!ledger_.complete()) {
      if (!may_wait) {
        serve_ready();
        if (!ledger_.complete()) {
          grab.kind = Grab::Kind::Serving;
          return grab;
        }
      } else {
        serve_until([&] { return ledger_.complete(); }, true);
      }
    }
    recovery_->loop_end();
    stop_listening();
    grab.kind = Grab::Kind::Done;
    return grab;
  }
}

void Coordinator::own_chunk_done(std::int64_t id) {
  if (recovery_->own_done(id, own_chunk_.size)) {
    ctx_.results->commit_own(id);
  } else {
    ctx_.results->drop(id);
  }
}

void Coordinator::finished(std::int64_t id, Index size, double work) {
  recovery_->own_piece(size);
  if (fb_.timed()) fb_.add(size, work);
  if (cut_.empty() && id == cut_.id()) own_chunk_done(id);
}

void Coordinator::end(const std::vector<RankFigures>& all) {
  fb_.time_step(all);  // AWF learns across executions (time steps)
}

}  // namespace lb4mpi::rt
