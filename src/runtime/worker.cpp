#include "worker.hpp"

#include <algorithm>
#include <string>

#include "runtime/mpi.hpp"

namespace lb4mpi::rt {

Worker::Worker(Context& ctx, AdaptiveFeedback& feedback, std::unique_ptr<Assignment> assignment)
    : FedScheduler(feedback), ctx_(ctx), assign_(std::move(assignment)), reports_(ctx) {
  slot_ = ctx_.engine->add(this);
}

// Only a loop that was abandoned (an exception unwound past it) still waits.
Worker::~Worker() {
  if (send_ != MPI_REQUEST_NULL) MPI_Request_free(&send_);
  ctx_.engine->abandon(slot_);
}

void Worker::post_reply() {
  check_mpi(MPI_Irecv(&reply_, sizeof reply_, MPI_BYTE, ctx_.config.coordinator, kTagReply, ctx_.comm,
                      &ctx_.engine->request(slot_)),
            "MPI_Irecv");
  posted_ = true;
}

void Worker::start(Index n) {
  robust_ = ctx_.config.robust;
  finish_send();
  assign_->start(n);
  cut_.clear();
  ended_ = false;
  deferred_ = false;
  ready_reissued_ = false;
  ready_.reset();
  unreported_.clear();
  cadence_.configure(-1);
  last_heard_ = ctx_.meter->now();
  // The coordinator sends the first piece of work unasked.
  if (!posted_) post_reply();
  outstanding_ = true;
}

void Worker::on_complete(int /*slot*/, const MPI_Status& /*status*/) {
  posted_ = false;
  if (reply_.epoch != ctx_.epoch) {  // of an abandoned execution: dropped, ours is still to come
    post_reply();
    return;
  }
  last_heard_ = ctx_.meter->now();
  if (reply_.kind == kWait) {  // robust: deferred until the loop completes; the coordinator is alive
    deferred_ = true;
    post_reply();
    if (!unreported_.empty()) report_finished();  // the completion it waits for may be this rank's
    return;
  }
  deferred_ = false;
  outstanding_ = false;
  ready_reissued_ = reply_.kind == kChunk && reply_.reissued != 0;
  if (reply_.kind == kChunk && reply_.reissued != 0) {
    // Robust mode: a chunk handed out before, whatever the assignment.
    Assignment::Got got;
    got.end = false;
    got.chunk = Chunk{reply_.begin, reply_.size};
    got.id = reply_.id;
    ready_ = got;
  } else {
    // Interpreted at once, not when the rank next asks for work of this loop:
    // a grant locks the coordinator's assignment until this rank commits,
    // which must not wait while the rank executes a chunk of another loop.
    ready_ = assign_->interpret(reply_);
  }
  if (ready_->commit) {
    Request c;
    c.kind = kCommit;
    c.id = ready_->id;
    c.begin = ready_->chunk.begin;
    c.size = ready_->chunk.size;
    reports_.send(c);
  }
  // Robust mode listens on: the next reply is the answer to its next
  // request, or the end of the loop, which may come before it asks.
  if (robust_ && !ready_->end) post_reply();
}

void Worker::finish_send() {
  if (send_ == MPI_REQUEST_NULL) return;
  if (!robust_) {
    wait(send_, MPI_STATUS_IGNORE);
  } else if (!wait_until(send_, MPI_STATUS_IGNORE, clock_now() + ctx_.config.robust_timeout)) {
    MPI_Request_free(&send_);
    reports_.coordinator_silent("while sending to it");
  }
}

void Worker::pop_unreported(Request& into) {
  const Done& d = unreported_.front();
  reports_.fill(into, d.id, d.chunk);
  unreported_.pop_front();
}

void Worker::send_results(const Request& report) {
  reports_.send_results(report, [this] {
    ctx_.engine->poll();
    return ready_ && ready_->end;
  });
}

void Worker::ask() {
  finish_send();  // the previous request's buffer
  while (unreported_.size() > 1) {  // rare: more than one chunk finished since the last request
    Request f;
    f.kind = kFinished;
    pop_unreported(f);
    reports_.send(f);
    send_results(f);
  }
  outgoing_ = Request{};
  outgoing_.epoch = ctx_.epoch;
  outgoing_.kind = kAsk;
  if (!unreported_.empty()) pop_unreported(outgoing_);
  if (fb_.timed()) {
    const ChunkTiming m = fb_.take(ctx_.rank, ctx_.meter->now());
    outgoing_.done = m.size;
    outgoing_.work = m.work_time;
    outgoing_.elapsed = m.elapsed_time;
  }
  if (!posted_) post_reply();  // before asking
  check_mpi(MPI_Isend(&outgoing_, sizeof outgoing_, MPI_BYTE, ctx_.config.coordinator, kTagRequest, ctx_.comm,
                      &send_),
            "MPI_Isend");
  send_results(outgoing_);
  outstanding_ = true;
}

void Worker::report_finished() {
  if (unreported_.empty()) return;
  finish_send();
  bool first = true;
  while (!unreported_.empty()) {
    Request f;
    f.kind = kFinished;
    pop_unreported(f);
    if (first && fb_.timed() && fb_.pending()) {  // the last measurement goes along
      const ChunkTiming m = fb_.take(ctx_.rank, ctx_.meter->now());
      f.done = m.size;
      f.work = m.work_time;
      f.elapsed = m.elapsed_time;
    }
    first = false;
    reports_.send(f);
    send_results(f);
  }
}

void Worker::await_reply() {
  while (!ready_) {
    // Serves and receives for every loop of the engine meanwhile.
    if (!robust_) {
      if (!ctx_.engine->wait_one()) throw Error("lb4mpi: internal error: a worker waits for no reply");
      continue;
    }
    const double timeout = ctx_.config.robust_timeout;
    const auto w = ctx_.engine->wait_one_until(last_heard_ + timeout);
    if (w == ProgressEngine::Waited::Idle) throw Error("lb4mpi: internal error: a worker waits for no reply");
    if (w == ProgressEngine::Waited::TimedOut && clock_now() > last_heard_ + timeout) {
      reports_.coordinator_silent("while waiting for work");
    }
  }
}

Grab Worker::acquire(bool may_wait) {
  Grab grab;
  for (;;) {
    if (robust_ && !cut_.empty()) {
      // Checked between pieces: the end of the loop cuts the chunk short
      // (every iteration is finished, this copy is not needed).
      ctx_.engine->poll();
      if (ready_ && ready_->end) {
        ctx_.results->drop(cut_.id());
        cut_.clear();
      }
    }
    if (!cut_.empty()) {
      Index k = cut_.left();
      if (!outstanding_ && !ended_ && !ready_) {
        // requestWhen: ask for the next chunk before the last `request_at_`
        // iterations, so the reply travels while they execute.
        if (k <= request_at_) {
          ask();
        } else {
          k -= request_at_;
        }
      }
      if (robust_) {
        if (cadence_.due()) cadence_.checked(ctx_.meter->now());
        k = std::min(k, cadence_.budget());
      }
      grab.kind = Grab::Kind::Piece;
      grab.piece = cut_.take(k);
      grab.chunk_id = cut_.id();
      if (robust_) cadence_.executed(grab.piece.size);
      return grab;
    }
    if (ended_) {
      report_finished();
      return Grab::of(Grab::Kind::Done);
    }
    if (!ready_) {
      const bool timed_here = !ctx_.meter->whole_acquires();
      const double t0 = timed_here ? ctx_.meter->now() : 0.0;
      if (!outstanding_) ask();
      if (!may_wait) {
        ctx_.engine->poll();
        if (!ready_) {
          if (timed_here) ctx_.meter->spent(t0, ctx_.meter->now());
          return Grab::of(Grab::Kind::NotNow);  // the caller moves on to another loop
        }
      } else {
        await_reply();
      }
      if (timed_here) ctx_.meter->spent(t0, ctx_.meter->now());
    }
    const Assignment::Got got = *ready_;
    ready_.reset();
    if (got.end) {
      ended_ = true;
      if (robust_) unreported_.clear();  // the loop is complete: nobody needs these reports
      continue;
    }
    cut_.begin(got.chunk, got.id);
    current_ = got.chunk;
    request_at_ = assign_->prefetch() ? request_point(ctx_.config.request_when, got.chunk.size) : 0;
    if (robust_) cadence_.checked(ctx_.meter->now());
    grab.new_chunk = true;
    grab.chunk = got.chunk;
  }
}

void Worker::finished(std::int64_t id, Index size, double work) {
  if (fb_.timed()) fb_.add(size, work);
  if (cut_.empty() && id == cut_.id() && !(robust_ && ended_)) {
    unreported_.push_back(Done{id, current_});
    // Robust mode: when the request for the next chunk went out before this
    // one ended (requestWhen), the report would wait for the request after
    // it. Once the assignment is over — the answer was a copy of another
    // rank's chunk, or "wait" — the loop's end hangs on this report: it goes
    // at once (a deferred rank would otherwise wait for the end forever).
    if (robust_ && (deferred_ || (ready_ && (ready_->end || ready_reissued_)))) report_finished();
  }
}

}  // namespace lb4mpi::rt
