#include "runtime/two_sided.hpp"

#include <algorithm>
#include <string>

#include "runtime/clock.hpp"
#include "runtime/group.hpp"
#include "runtime/mpi_util.hpp"

namespace lb4mpi {

using detail::check_mpi;
using detail::now;

TwoSidedExecutor::TwoSidedExecutor(MPI_Comm comm, Index first, Index last, const Options& options, int channel)
    : Executor(comm, first, last, options, channel) {}

TwoSidedExecutor::~TwoSidedExecutor() { cancel_pending(); }

void TwoSidedExecutor::cancel_pending() {
  // Only reached when a loop is abandoned (an exception unwound past it).
  for (MPI_Request* r : {&request_recv_, &reply_recv_}) {
    if (*r != MPI_REQUEST_NULL) {
      MPI_Cancel(r);
      MPI_Request_free(r);
    }
  }
  if (request_send_ != MPI_REQUEST_NULL) MPI_Request_free(&request_send_);
}

void TwoSidedExecutor::post_receive() {
  check_mpi(MPI_Irecv(&incoming_, sizeof incoming_, MPI_BYTE, MPI_ANY_SOURCE, detail::kTagRequest, comm_,
                      &request_recv_),
            "MPI_Irecv");
}

void TwoSidedExecutor::on_start() {
  pos_ = end_ = 0;
  meas_done_ = 0;
  meas_work_ = 0.0;
  meas_since_ = now();
  outstanding_ = ended_ = static_done_ = false;
  ready_.reset();
  if (options_.technique == Technique::STATIC) return;  // no messages at all
  prepare();

  if (is_coordinator()) {
    coordinator_start();
    pending_workers_ = size_ - 1;
    // Initial work for every worker, in rank order, so nobody starts with a request.
    for (int w = 0; w < size_; ++w) {
      if (w == rank_) continue;
      bool ended = false;
      bool deferred = false;
      const detail::WorkMsg msg = answer(w, detail::RequestMsg{}, ended, deferred);
      if (!deferred) send_work(w, msg, ended);
    }
    if (pending_workers_ > 0) post_receive();
  } else {
    // The coordinator sends the first piece of work unasked.
    check_mpi(MPI_Irecv(&reply_, sizeof reply_, MPI_BYTE, options_.coordinator, detail::kTagWork, comm_,
                        &reply_recv_),
              "MPI_Irecv");
    outstanding_ = true;
  }
}

std::optional<Chunk> TwoSidedExecutor::acquire() {
  if (options_.technique == Technique::STATIC) return acquire_static();
  return is_coordinator() ? acquire_coordinator() : acquire_worker();
}

// ---------------------------------------------------------------- STATIC

std::optional<Chunk> TwoSidedExecutor::acquire_static() {
  if (static_done_) return std::nullopt;
  static_done_ = true;
  // Block `rank_` of the balanced partition (`001` Eq. 1) — the size the
  // STATIC rule gives step `rank_` — computed by every rank for itself.
  chunk_calculation();
  const Index q = n_ / size_;
  const Index r = n_ % size_;
  const Index begin = rank_ * q + std::min<Index>(rank_, r);
  const Index size = q + (rank_ < r ? 1 : 0);
  if (size == 0) return std::nullopt;
  new_chunk(Chunk{begin, size});
  return Chunk{begin, size};
}

// ---------------------------------------------------------- coordinator

void TwoSidedExecutor::handle(int source) {
  const detail::RequestMsg request = incoming_;
  if (request.epoch != message_epoch_) {
    // Left over from an execution that was abandoned (an exception unwound
    // past it on its rank): not ours, drop it and listen again.
    if (pending_workers_ > 0 && request_recv_ == MPI_REQUEST_NULL) post_receive();
    return;
  }
  if (request.done > 0) learn(ChunkTiming{source, request.done, request.work, request.elapsed});
  if (request.kind == detail::kDone) {
    --pending_workers_;
  } else if (request.kind == detail::kCommit) {
    on_commit(source, request);
  } else {
    bool ended = false;
    bool deferred = false;
    const detail::WorkMsg msg = answer(source, request, ended, deferred);
    if (!deferred) send_work(source, msg, ended);
  }
  if (pending_workers_ > 0 && request_recv_ == MPI_REQUEST_NULL) post_receive();
}

void TwoSidedExecutor::send_work(int worker, detail::WorkMsg msg, bool ended) {
  msg.epoch = message_epoch_;
  if (ended && !workers_announce_end()) --pending_workers_;
  // The worker posted its receive before asking, so this send completes.
  check_mpi(MPI_Send(&msg, sizeof msg, MPI_BYTE, worker, detail::kTagWork, comm_), "MPI_Send");
}

void TwoSidedExecutor::serve_one_blocking() {
  if (pending_workers_ == 0) throw Error("lb4mpi: internal error: waiting for a message no rank will send");
  if (group_ != nullptr) {
    group_->wait_any();  // serves every loop of the group while this one waits
    return;
  }
  MPI_Status st;
  detail::wait(request_recv_, &st);
  handle(st.MPI_SOURCE);
}

int TwoSidedExecutor::serve_available() {
  return group_ != nullptr ? group_->progress_all() : progress_local();
}

int TwoSidedExecutor::progress_local() {
  if (options_.technique == Technique::STATIC) return 0;
  if (!is_coordinator()) return test_reply() ? 1 : 0;
  int served = 0;
  while (pending_workers_ > 0) {
    int flag = 0;
    MPI_Status st;
    check_mpi(MPI_Test(&request_recv_, &flag, &st), "MPI_Test");
    if (flag == 0) break;
    handle(st.MPI_SOURCE);
    ++served;
  }
  return served;
}

void TwoSidedExecutor::serve_blocking() {
  while (pending_workers_ > 0) serve_one_blocking();
}

MPI_Request* TwoSidedExecutor::waitable() {
  if (is_coordinator()) return pending_workers_ > 0 ? &request_recv_ : nullptr;
  return outstanding_ && reply_recv_ != MPI_REQUEST_NULL ? &reply_recv_ : nullptr;
}

void TwoSidedExecutor::on_waited(const MPI_Status& status) {
  if (is_coordinator()) {
    handle(status.MPI_SOURCE);
  } else {
    take_reply();  // the group completed reply_recv_
  }
}

std::optional<Chunk> TwoSidedExecutor::acquire_coordinator() {
  const double t0 = now();
  const int served = serve_available();
  add_serve_time(t0, now(), served > 0);
  for (;;) {
    if (pos_ < end_) {
      const Index k = std::min(piece_limit_, end_ - pos_);
      const Chunk piece{pos_, k};
      pos_ += k;
      return piece;
    }
    if (meas_done_ > 0) {  // its own chunk is finished: learn from it
      learn(ChunkTiming{rank_, meas_done_, meas_work_, now() - meas_since_});
      meas_done_ = 0;
      meas_work_ = 0.0;
    }
    meas_since_ = now();
    const std::optional<Chunk> c = own_next();
    if (blocked()) return std::nullopt;  // a DCA grant is still locked: try again later
    if (c) {
      pos_ = c->begin;
      end_ = c->end();
      new_chunk(*c);
      // breakAfter: automatic = max(1, ceil(chunk / P) / 4), as the original.
      piece_limit_ = options_.break_after >= 0 ? std::max<Index>(1, options_.break_after)
                                               : std::max<Index>(1, ((c->size + size_ - 1) / size_) / 4);
      continue;
    }
    const double t1 = now();
    const bool any = pending_workers_ > 0;
    if (nonblocking() && any) {
      // Loops in flight together: do not wait here, move on to another loop.
      const int more = serve_available();
      add_serve_time(t1, now(), more > 0);
      if (pending_workers_ > 0) {
        only_serving();  // its own work is done; it answers the others' last requests
        return std::nullopt;
      }
      return std::nullopt;
    }
    serve_blocking();
    add_serve_time(t1, now(), any);
    return std::nullopt;
  }
}

// ---------------------------------------------------------------- worker

void TwoSidedExecutor::send_request() {
  if (request_send_ != MPI_REQUEST_NULL) {
    detail::wait(request_send_, MPI_STATUS_IGNORE);
  }
  const double t = now();
  outgoing_.epoch = message_epoch_;
  outgoing_.kind = detail::kAsk;
  outgoing_.done = meas_done_;
  outgoing_.work = meas_work_;
  outgoing_.elapsed = t - meas_since_;
  meas_done_ = 0;
  meas_work_ = 0.0;
  meas_since_ = t;
  // Post the receive of the reply before asking for it.
  check_mpi(MPI_Irecv(&reply_, sizeof reply_, MPI_BYTE, options_.coordinator, detail::kTagWork, comm_,
                      &reply_recv_),
            "MPI_Irecv");
  check_mpi(MPI_Isend(&outgoing_, sizeof outgoing_, MPI_BYTE, options_.coordinator, detail::kTagRequest, comm_,
                      &request_send_),
            "MPI_Isend");
  outstanding_ = true;
}

void TwoSidedExecutor::send_commit(Index size) {
  if (request_send_ != MPI_REQUEST_NULL) {
    detail::wait(request_send_, MPI_STATUS_IGNORE);
  }
  detail::RequestMsg msg;
  msg.epoch = message_epoch_;
  msg.kind = detail::kCommit;
  msg.commit = size;
  check_mpi(MPI_Send(&msg, sizeof msg, MPI_BYTE, options_.coordinator, detail::kTagRequest, comm_), "MPI_Send");
}

void TwoSidedExecutor::announce_end() {
  if (request_send_ != MPI_REQUEST_NULL) {
    detail::wait(request_send_, MPI_STATUS_IGNORE);
  }
  outgoing_.epoch = message_epoch_;
  outgoing_.kind = detail::kDone;
  outgoing_.done = meas_done_;
  outgoing_.work = meas_work_;
  outgoing_.elapsed = now() - meas_since_;
  meas_done_ = 0;
  meas_work_ = 0.0;
  check_mpi(MPI_Send(&outgoing_, sizeof outgoing_, MPI_BYTE, options_.coordinator, detail::kTagRequest, comm_),
            "MPI_Send");
}

bool TwoSidedExecutor::take_reply() {
  reply_recv_ = MPI_REQUEST_NULL;
  if (reply_.epoch != message_epoch_) {
    // Left over from an abandoned execution: drop it, wait for ours.
    check_mpi(MPI_Irecv(&reply_, sizeof reply_, MPI_BYTE, options_.coordinator, detail::kTagWork, comm_,
                        &reply_recv_),
              "MPI_Irecv");
    return false;
  }
  if (request_send_ != MPI_REQUEST_NULL) {
    detail::wait(request_send_, MPI_STATUS_IGNORE);
  }
  outstanding_ = false;
  // Interpreted at once, not when the rank next asks for work of this loop:
  // a DCA grant locks the coordinator's assignment until this rank commits,
  // which must not wait while the rank executes a chunk of another loop.
  ready_ = interpret(reply_);
  return true;
}

bool TwoSidedExecutor::test_reply() {
  if (!outstanding_ || reply_recv_ == MPI_REQUEST_NULL) return false;
  int arrived = 0;
  check_mpi(MPI_Test(&reply_recv_, &arrived, MPI_STATUS_IGNORE), "MPI_Test");
  return arrived != 0 && take_reply();
}

void TwoSidedExecutor::wait_reply() {
  while (!ready_) {
    if (group_ != nullptr) {
      group_->wait_any();  // serves and receives for every loop of the group meanwhile
    } else {
      detail::wait(reply_recv_, MPI_STATUS_IGNORE);
      take_reply();
    }
  }
}

std::optional<Chunk> TwoSidedExecutor::acquire_worker() {
  for (;;) {
    if (pos_ < end_) {
      Index k = end_ - pos_;
      if (!outstanding_ && !ended_ && !ready_) {
        // requestWhen: ask for the next chunk before the last `piece_limit_`
        // iterations, so the reply travels while they execute.
        if (k <= piece_limit_) {
          send_request();
        } else {
          k -= piece_limit_;
        }
      }
      const Chunk piece{pos_, k};
      pos_ += k;
      return piece;
    }
    if (ended_) return std::nullopt;
    if (!ready_) {
      if (!outstanding_) send_request();
      if (nonblocking()) {
        if (!test_reply()) {
          would_block();  // no idle probing: the caller moves on to another loop
          return std::nullopt;
        }
      } else {
        wait_reply();
      }
    }
    const std::optional<Chunk> c = *ready_;
    ready_.reset();
    if (!c) {
      ended_ = true;
      return std::nullopt;
    }
    pos_ = c->begin;
    end_ = c->end();
    new_chunk(*c);
    // requestWhen: automatic = 15% of the chunk (at least 1), as the original.
    piece_limit_ = !prefetch()                  ? 0
                   : options_.request_when >= 0 ? static_cast<Index>(options_.request_when)
                                                : std::max<Index>(1, (15 * c->size) / 100);
  }
}

void TwoSidedExecutor::piece_done(const Chunk& piece, double work_time) {
  meas_done_ += piece.size;
  meas_work_ += work_time;
}

}  // namespace lb4mpi
