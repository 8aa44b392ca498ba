#include "worker.hpp"

#include "runtime/mpi.hpp"

namespace lb4mpi::rt {

Worker::Worker(Context& ctx, AdaptiveFeedback& feedback, std::unique_ptr<Assignment> assignment)
    : FedScheduler(feedback), ctx_(ctx), assign_(std::move(assignment)) {
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
  if (send_ != MPI_REQUEST_NULL) wait(send_, MPI_STATUS_IGNORE);
  assign_->start(n);
  cut_.clear();
  ended_ = false;
  ready_.reset();
  unreported_.clear();
  // The coordinator sends the first piece of work unasked.
  post_reply();
  outstanding_ = true;
}

void Worker::on_complete(int /*slot*/, const MPI_Status& /*status*/) {
  if (reply_.epoch != ctx_.epoch) {  // of an abandoned execution: dropped, ours is still to come
    post_reply();
    return;
  }
  outstanding_ = false;
  // Interpreted at once, not when the rank next asks for work of this loop:
  // a grant locks the coordinator's assignment until this rank commits,
  // which must not wait while the rank executes a chunk of another loop.
  ready_ = assign_->interpret(reply_);
  if (ready_->commit) {
    Request c;
    c.kind = kCommit;
    c.id = ready_->id;
    c.begin = ready_->chunk.begin;
    c.size = ready_->chunk.size;
    send(c);
  }
}

void Worker::send(Request& message) {
  message.epoch = ctx_.epoch;
  check_mpi(MPI_Send(&message, sizeof message, MPI_BYTE, ctx_.config.coordinator, kTagRequest, ctx_.comm),
            "MPI_Send");
}

void Worker::pop_unreported(Request& into) {
  const Done& d = unreported_.front();
  into.id = d.id;
  into.begin = d.chunk.begin;
  into.size = d.chunk.size;
  unreported_.pop_front();
}

void Worker::ask() {
  if (send_ != MPI_REQUEST_NULL) wait(send_, MPI_STATUS_IGNORE);  // the previous request's buffer
  while (unreported_.size() > 1) {  // rare: more than one chunk finished since the last request
    Request f;
    f.kind = kFinished;
    pop_unreported(f);
    send(f);
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
  post_reply();  // before asking
  check_mpi(MPI_Isend(&outgoing_, sizeof outgoing_, MPI_BYTE, ctx_.config.coordinator, kTagRequest, ctx_.comm,
                      &send_),
            "MPI_Isend");
  outstanding_ = true;
}

void Worker::report_finished() {
  if (unreported_.empty()) return;
  if (send_ != MPI_REQUEST_NULL) wait(send_, MPI_STATUS_IGNORE);
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
    send(f);
  }
}

Grab Worker::acquire(bool may_wait) {
  Grab grab;
  for (;;) {
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
      grab.kind = Grab::Kind::Piece;
      grab.piece = cut_.take(k);
      grab.chunk_id = cut_.id();
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
        while (!ready_) {
          // Serves and receives for every loop of the engine meanwhile.
          if (!ctx_.engine->wait_one()) throw Error("lb4mpi: internal error: a worker waits for no reply");
        }
      }
      if (timed_here) ctx_.meter->spent(t0, ctx_.meter->now());
    }
    const Assignment::Got got = *ready_;
    ready_.reset();
    if (got.end) {
      ended_ = true;
      continue;
    }
    cut_.begin(got.chunk, got.id);
    current_ = got.chunk;
    request_at_ = assign_->prefetch() ? request_point(ctx_.config.request_when, got.chunk.size) : 0;
    grab.new_chunk = true;
    grab.chunk = got.chunk;
  }
}

void Worker::finished(std::int64_t id, Index size, double work) {
  if (fb_.timed()) fb_.add(size, work);
  if (cut_.empty() && id == cut_.id()) unreported_.push_back(Done{id, current_});
}

}  // namespace lb4mpi::rt
