#include "coordinator.hpp"

#include "runtime/mpi.hpp"

namespace lb4mpi::rt {

Coordinator::Coordinator(Context& ctx, AdaptiveFeedback& feedback, std::unique_ptr<Assignment> assignment)
    : FedScheduler(feedback), ctx_(ctx), assign_(std::move(assignment)) {
  slot_ = ctx_.engine->add(this);
}

// Only a loop that was abandoned (an exception unwound past it) still listens.
Coordinator::~Coordinator() { ctx_.engine->abandon(slot_); }

void Coordinator::post() {
  check_mpi(MPI_Irecv(&incoming_, sizeof incoming_, MPI_BYTE, MPI_ANY_SOURCE, kTagRequest, ctx_.comm,
                      &ctx_.engine->request(slot_)),
            "MPI_Irecv");
}

void Coordinator::stop_listening() {
  if (!listening_) return;
  listening_ = false;
  MPI_Request& r = ctx_.engine->request(slot_);
  if (r == MPI_REQUEST_NULL) return;
  check_mpi(MPI_Cancel(&r), "MPI_Cancel");
  MPI_Status st;
  wait(r, &st, "MPI_Cancel");
  int cancelled = 0;
  check_mpi(MPI_Test_cancelled(&st, &cancelled), "MPI_Test_cancelled");
  if (cancelled == 0) handle(st.MPI_SOURCE, incoming_);  // a late report of this execution, or a stale one
}

void Coordinator::start(Index n) {
  ledger_.start(n, ctx_.size);
  cut_.clear();
  own_over_ = false;
  cadence_.configure(ctx_.config.break_after);
  assign_->start(n);
  // Alone, the coordinator still runs its chunks in pieces: loops in flight
  // together take turns, as they do on more ranks.
  if (cadence_.automatic()) cadence_.checked(ctx_.meter->now());
  if (ctx_.size == 1) return;
  listening_ = true;
  post();
  // Initial work for every worker, in rank order, so that nobody starts with a request.
  for (int w = 0; w < ctx_.size; ++w) {
    if (w == ctx_.rank) continue;
    Reply r;
    if (assign_->answer(w, r)) send(w, r);
  }
}

void Coordinator::send(int worker, Reply reply) {
  reply.epoch = ctx_.epoch;
  if (reply.kind == kChunk) ledger_.scheduled(reply.id, Chunk{reply.begin, reply.size}, worker);
  if (reply.kind == kStep) ledger_.scheduled(reply.id, Chunk{}, worker);
  // The worker posted its receive before asking (or at its start), so this completes.
  check_mpi(MPI_Send(&reply, sizeof reply, MPI_BYTE, worker, kTagReply, ctx_.comm), "MPI_Send");
}

void Coordinator::on_complete(int /*slot*/, const MPI_Status& status) {
  const Request request = incoming_;
  if (listening_) post();
  handle(status.MPI_SOURCE, request);
}

void Coordinator::handle(int worker, const Request& request) {
  if (request.epoch != ctx_.epoch) return;  // of an abandoned execution: dropped
  if (request.id >= 0 && request.kind != kCommit) ledger_.finished(worker, request.id, request.size);
  if (fb_.timed() && request.done > 0) {
    fb_.calc().record(ChunkTiming{worker, request.done, request.work, request.elapsed});
  }
  switch (request.kind) {
    case kAsk: {
      Reply r;
      if (assign_->answer(worker, r)) send(worker, r);
      break;
    }
    case kCommit:
      ledger_.scheduled(request.id, Chunk{request.begin, request.size}, worker);
      released_.clear();
      assign_->commit(worker, request, released_);
      for (const auto& [w, r] : released_) send(w, r);
      break;
    default:  // kFinished: counted above
      break;
  }
}

int Coordinator::serve_ready() {
  double t0 = 0.0;
  const int served = ctx_.engine->poll(&t0);
  if (served > 0) ctx_.meter->served(t0, ctx_.meter->now());
  return served;
}

template <class Done>
void Coordinator::serve_until(Done done) {
  const double t0 = ctx_.meter->now();
  bool any = false;
  while (!done()) {
    if (!ctx_.engine->wait_one()) {
      throw Error("lb4mpi: internal error: the coordinator waits for a message that no rank will send");
    }
    any = true;
  }
  if (any) ctx_.meter->served(t0, ctx_.meter->now());
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
  if (ctx_.size > 1) serve_ready();
  Assignment::Own own = assign_->own_next();
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
    });
  }
  if (own.kind == Assignment::Own::Kind::None) {
    own_over_ = true;
    return false;
  }
  cut_.begin(own.chunk, own.id);
  grab.new_chunk = true;
  grab.chunk = own.chunk;
  return true;
}

Grab Coordinator::acquire(bool may_wait) {
  Grab grab;
  if (cadence_.due()) {
    cadence_.checked(cadence_.automatic() ? ctx_.meter->now() : 0.0);
    if (ctx_.size > 1) serve_ready();
  }
  for (;;) {
    if (!cut_.empty()) {
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
        if (!ledger_.complete()) return Grab::of(Grab::Kind::Serving);
      } else {
        serve_until([&] { return ledger_.complete(); });
      }
    }
    stop_listening();
    return Grab::of(Grab::Kind::Done);
  }
}

void Coordinator::finished(std::int64_t /*id*/, Index size, double work) {
  ledger_.finished_here(size);
  if (fb_.timed()) fb_.add(size, work);
}

void Coordinator::end(const std::vector<RankFigures>& all) {
  fb_.time_step(all);  // AWF learns across executions (time steps)
}

}  // namespace lb4mpi::rt
