#include "worker.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <string>

#include "runtime/mpi.hpp"

namespace lb4mpi::rt {

Worker::Worker(Context& ctx, AdaptiveFeedback& feedback, std::unique_ptr<Assignment> assignment)
    : FedScheduler(feedback),
      ctx_(ctx),
      assign_(std::move(assignment)),
      recovery_(make_worker_recovery(ctx)),
      reports_(ctx) {
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
}

void Worker::start(Index n) {
  finish_send();
  assign_->start(n);
  cut_.clear();
  unreported_.clear();
  batch_ = Batch{};
  parts_ = 0;
  recovery_->start();
  // The coordinator sends the first piece of work unasked.
  if (!receiving()) post_reply();
  state_ = State::Asked;
}

void Worker::on_complete(int /*slot*/, const MPI_Status& /*status*/) {
  if (reply_.epoch != ctx_.epoch) {  // of an abandoned execution: dropped, ours is still to come
    post_reply();
    return;
  }
  recovery_->heard();
  if (reply_.kind == kWait) {  // recovery: deferred until the loop completes; the coordinator is alive
    state_ = State::Deferred;
    post_reply();
    if (!unreported_.empty()) report_finished();  // the completion it waits for may be this rank's
    return;
  }
  Assignment::Got got;
  const bool chunk_reply = reply_.kind == kChunk;
  const ChunkReply& carried = reply_.body.chunk;  // read only when chunk_reply
  if (chunk_reply && carried.reissued != 0) {
    // Recovery: a chunk handed out before, whatever the assignment.
    got.end = false;
    got.chunk = carried.chunk;
    got.id = carried.id;
    state_ = State::ReadyCopy;
  } else {
    // Interpreted at once, not when the rank next asks for work of this loop:
    // a grant locks the coordinator's assignment until this rank commits,
    // which must not wait while the rank executes a chunk of another loop.
    got = assign_->interpret(reply_);
    state_ = got.end ? State::EndReady : State::Ready;
  }
  ready_ = got.chunk;
  ready_id_ = got.id;
  ready_count_ = chunk_reply ? std::max(1, carried.count) : 1;
  ready_each_ = chunk_reply ? carried.each : 0;
  // The coordinator may send several chunks per reply (it said so by `each`).
  batching_ = chunk_reply && carried.each > 0 && carried.reissued == 0;
  if (got.commit) {
    CommitMessage c;
    c.step = got.id;
    c.chunk = got.chunk;
    Request m = Request::of(c);
    reports_.send(m);
  }
  // Recovery listens on: the next reply is the answer to its next request,
  // or the end of the loop, which may come before it asks.
  if (recovery_->listens() && !got.end) post_reply();
}

void Worker::finish_send() {
  if (send_ != MPI_REQUEST_NULL) recovery_->complete(send_);
}

void Worker::pop_unreported(ChunkReport& into, bool newest) {
  // A report names one chunk, or the consecutive parts of one batch.
  const auto joins = [](const Done& a, const Done& b) {
    return a.batched && b.batched && b.id == a.id + 1 && b.chunk.begin == a.chunk.end();
  };
  std::size_t first = 0;
  std::size_t end = 1;
  if (newest) {
    end = unreported_.size();
    first = end - 1;
    while (first > 0 && end - first < INT32_MAX && joins(unreported_[first - 1], unreported_[first])) --first;
  } else {
    while (end < unreported_.size() && end < INT32_MAX && joins(unreported_[end - 1], unreported_[end])) ++end;
  }
  reports_.fill(into, unreported_[first].id, unreported_[first].chunk);
  into.count = 1;
  // The next parts of a batch go in the same report, with their results.
  for (std::size_t i = first + 1; i < end; ++i) reports_.append(into, unreported_[i].id, unreported_[i].chunk);
  unreported_.erase(unreported_.begin() + static_cast<std::ptrdiff_t>(first),
                    unreported_.begin() + static_cast<std::ptrdiff_t>(end));
}

Measurement Worker::measurement(const ChunkTiming& m) { return Measurement{m.size, m.work_time, m.elapsed_time}; }

void Worker::send_results(const Request& message) {
  reports_.send_results(message, [this] {
    ctx_.engine->poll();
    return state_ == State::EndReady;
  });
}

void Worker::ask() {
  finish_send();  // the previous request's buffer
  // The newest report goes with the request; older ones (rare: more than
  // one chunk finished since the last request, beyond a batch's parts)
  // follow it on their own, so that the request is not held up by them:
  // the coordinator answers it at its next look for requests.
  AskMessage ask;  // its report: none (id -1), or the newest
  if (!unreported_.empty()) pop_unreported(ask.report, true);
  if (state_ != State::Idle) {
    // A reply came while the previous request completed (that polls):
    // under recovery the end of the loop, sent unasked. Nothing to ask
    // for; the reports go on their own unless the loop is over.
    if (state_ != State::EndReady && ask.report.id >= 0) {
      Request f = Request::of(FinishedMessage{ask.report, Measurement{}});
      reports_.send(f);
      send_results(f);
    }
    if (state_ != State::EndReady) report_finished();
    return;
  }
  // Several chunks per reply: as many as set, or as learnt (learn_batch).
  const int fixed = ctx_.config.chunks_per_reply;
  ask.want = !batching_ ? 1 : (fixed >= 1 ? fixed : want_);
  if (fb_.timed()) ask.measured = measurement(fb_.take(ctx_.rank, ctx_.meter->now()));
  outgoing_ = Request::of(ask);
  outgoing_.epoch = ctx_.epoch;
  if (!receiving()) post_reply();  // before asking
  recovery_->waiting();            // silence counts from here at the earliest
  // Asked from now on: sending the results polls, and the reply may arrive
  // meanwhile (its handler moves the state on; set after the sends, the
  // state would then wait for a reply that already came — the rank asked no
  // more, and a recovering coordinator did the rest of the loop alone).
  state_ = State::Asked;
  check_mpi(MPI_Isend(&outgoing_, sizeof outgoing_, MPI_BYTE, ctx_.config.coordinator, kTagRequest, ctx_.comm,
                      &send_),
            "MPI_Isend");
  send_results(outgoing_);
  report_finished();  // the older reports
}

void Worker::report_finished() {
  if (unreported_.empty()) return;
  finish_send();
  bool first = true;
  while (!unreported_.empty()) {
    FinishedMessage f;
    pop_unreported(f.report);
    if (first && fb_.timed() && fb_.pending()) {  // the last measurement goes along
      f.measured = measurement(fb_.take(ctx_.rank, ctx_.meter->now()));
    }
    first = false;
    Request m = Request::of(f);
    reports_.send(m);
    send_results(m);
  }
}

void Worker::await_reply() {
  // Serves and receives for every loop of the engine meanwhile.
  recovery_->waiting();
  while (!has_ready()) recovery_->await();
}

Grab Worker::acquire(bool may_wait) {
  Grab grab;
  for (;;) {
    if (recovery_->listens()) {
      // Checked between pieces: the end of the loop (under recovery it
      // comes when every iteration is finished) cuts the chunk short, and
      // the rest of its batch, finished elsewhere too.
      if (!cut_.empty()) ctx_.engine->poll();
      if (state_ == State::EndReady) {
        if (!cut_.empty()) {
          ctx_.results->drop(cut_.id());
          cut_.clear();
        }
        batch_ = Batch{};
        parts_ = 0;
      }
    }
    if (cut_.empty() && batch_.rest() > 0) begin_part(grab);
    if (!cut_.empty()) {
      Index k = cut_.left();
      if (state_ == State::Idle) {
        // requestWhen: ask for the next chunk before the last `request_at_`
        // iterations (of the batch), so the reply travels while they execute.
        const Index left = k + batch_.rest();
        if (left <= request_at_) {
          ask();
        } else {
          k = std::min(k, left - request_at_);
        }
      }
      k = recovery_->piece(k);
      grab.kind = Grab::Kind::Piece;
      grab.piece = cut_.take(k);
      grab.chunk_id = cut_.id();
      recovery_->executed(grab.piece.size);
      return grab;
    }
    if (parts_ > 0) learn_batch(ctx_.meter->now());
    if (state_ == State::Ended) {
      report_finished();
      return Grab::of(Grab::Kind::Done);
    }
    if (!has_ready()) {
      const bool timed_here = !ctx_.meter->whole_acquires();
      const double t0 = timed_here ? ctx_.meter->now() : 0.0;
      if (state_ == State::Idle) ask();
      if (!may_wait) {
        ctx_.engine->poll();
        if (!has_ready()) {
          if (timed_here) ctx_.meter->spent(t0, ctx_.meter->now());
          recovery_->polled();
          return Grab::of(Grab::Kind::NotNow);  // the caller moves on to another loop
        }
      } else {
        await_reply();
      }
      if (timed_here) ctx_.meter->spent(t0, ctx_.meter->now());
    }
    if (state_ == State::EndReady) {
      state_ = State::Ended;
      if (recovery_->reports_at_once()) unreported_.clear();  // the loop is complete: nobody needs these reports
      continue;
    }
    if (state_ == State::ReadyCopy && ctx_.copies_later) {
      ctx_.copy_deferred = true;  // another loop of the set first
      return Grab::of(Grab::Kind::NotNow);
    }
    state_ = State::Idle;
    request_at_ = assign_->prefetch() ? request_point(ctx_.config.request_when, ready_.size) : 0;
    // Every reply is a batch, of one chunk or of several (ChunkReply::count).
    const bool several = ready_count_ > 1;
    batch_ = Batch{ready_id_, ready_.begin, ready_.end(), several ? ready_each_ : ready_.size, several};
    // Timed when the batch size is learnt (learn_batch).
    parts_ = batching_ && ctx_.config.chunks_per_reply < 0 ? ready_count_ : 0;
    if (parts_ > 0) batch_t0_ = ctx_.meter->now();
    begin_part(grab);
  }
}

void Worker::begin_part(Grab& grab) {
  const Chunk part{batch_.pos, std::min(batch_.each, batch_.rest())};
  cut_.begin(part, batch_.next_id++);
  batch_.pos = part.end();
  current_ = part;
  current_batched_ = batch_.several;
  recovery_->chunk_begins(part.size);
  grab.new_chunk = true;
  grab.chunk = part;
}

void Worker::learn_batch(double now) {
  // A chunk's time follows a rise at once and a fall by half per batch at
  // most, so that the batch grows step by step and shrinks at once.
  const double per_chunk = (now - batch_t0_) / parts_;
  per_chunk_ = std::max(per_chunk, 0.5 * per_chunk_);
  const double want = per_chunk_ > 0.0 ? std::ceil(kBatchSpan * latency_factor() / per_chunk_) : 1.0;
  want_ = static_cast<std::int32_t>(std::clamp(want, 1.0, static_cast<double>(kMaxBatch)));
  parts_ = 0;
}

void Worker::finished(std::int64_t id, Index size, double work) {
  if (fb_.timed()) fb_.add(size, work);
  const bool at_once = recovery_->reports_at_once();
  if (cut_.empty() && id == cut_.id() && !(at_once && state_ == State::Ended)) {
    unreported_.push_back(Done{id, current_, current_batched_});
    // Recovery: when the request for the next chunk went out before this
    // one ended (requestWhen), the report would wait for the request after
    // it. Once the assignment is over — the answer was a copy of another
    // rank's chunk, or "wait" — the loop's end hangs on this report: it goes
    // at once (a deferred rank would otherwise wait for the end forever).
    if (at_once && (state_ == State::Deferred || state_ == State::EndReady || state_ == State::ReadyCopy)) {
      report_finished();
    }
  }
}

}  // namespace lb4mpi::rt
