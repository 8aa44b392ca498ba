#include "reports.hpp"

#include <algorithm>
#include <string>

#include "runtime/mpi.hpp"

namespace lb4mpi::rt {

ReportSender::~ReportSender() {
  bool pending = false;
  for (ResultSend& r : sends_) {
    int done = 0;
    MPI_Test(&r.request, &done, MPI_STATUS_IGNORE);
    if (done == 0) {
      MPI_Request_free(&r.request);
      pending = true;
    }
  }
  if (pending) new std::deque<ResultSend>(std::move(sends_));
}

void coordinator_silent(const Context& ctx, const char* while_doing) {
  throw Error("lb4mpi: robust mode: rank " + std::to_string(ctx.rank) + " heard nothing from the coordinator (rank " +
              std::to_string(ctx.config.coordinator) + ") for " + std::to_string(ctx.config.robust_timeout) +
              " s (LB4MPI_ROBUST_TIMEOUT) " + while_doing +
              ": it has probably failed; robust mode survives the failure of any rank but the coordinator "
              "(docs/ROBUST.md)");
}

void ReportSender::fill(Request& into, std::int64_t id, Chunk chunk) {
  into.id = id;
  into.begin = chunk.begin;
  into.size = chunk.size;
  into.result_bytes = ctx_.results->take(id, buf_) ? static_cast<std::int64_t>(buf_.size()) : -1;
  if (into.result_bytes >= 0 && buf_.size() <= Request::kInlineResults) {
    std::copy(buf_.begin(), buf_.end(), into.inline_results.begin());
  }
}

void ReportSender::send_bytes(const void* data, int bytes, int tag, const char* what) {
  if (!ctx_.config.robust) {
    check_mpi(MPI_Send(data, bytes, MPI_BYTE, ctx_.config.coordinator, tag, ctx_.comm), what);
    return;
  }
  MPI_Request r = MPI_REQUEST_NULL;
  check_mpi(MPI_Isend(data, bytes, MPI_BYTE, ctx_.config.coordinator, tag, ctx_.comm, &r), what);
  if (!wait_until(r, MPI_STATUS_IGNORE, clock_now() + ctx_.config.robust_timeout, what)) {
    MPI_Request_free(&r);  // never completes: the coordinator is gone
    coordinator_silent("while sending to it");
  }
}

void ReportSender::send(Request& message) {
  message.epoch = ctx_.epoch;
  send_bytes(&message, sizeof message, kTagRequest, "MPI_Send");
}

void ReportSender::sweep() {
  while (!sends_.empty()) {
    int done = 0;
    check_mpi(MPI_Test(&sends_.front().request, &done, MPI_STATUS_IGNORE), "MPI_Test");
    if (done == 0) return;
    sends_.pop_front();
  }
}

void ReportSender::send_results(const Request& report, const std::function<bool()>& over) {
  if (report.result_bytes < 0 || static_cast<std::size_t>(report.result_bytes) <= Request::kInlineResults) return;
  if (!ctx_.config.robust) {
    send_bytes(buf_.data(), static_cast<int>(buf_.size()), kTagResult, "MPI_Send (chunk results)");
    return;
  }
  sweep();
  sends_.push_back(ResultSend{MPI_REQUEST_NULL, std::move(buf_)});
  buf_ = {};
  ResultSend& r = sends_.back();
  check_mpi(MPI_Isend(r.data.data(), static_cast<int>(r.data.size()), MPI_BYTE, ctx_.config.coordinator, kTagResult,
                      ctx_.comm, &r.request),
            "MPI_Isend (chunk results)");
  // Completed before the rank goes on: a rank that fails right after its
  // report must not leave the coordinator waiting for results that never
  // left (it would wait the timeout, then hand the chunk out again). The
  // wait ends early when the loop is over (the coordinator may have left it
  // before receiving them: they stay pending in sends_).
  const double deadline = clock_now() + ctx_.config.robust_timeout;
  for (int polls = 0;; ++polls) {
    int done = 0;
    check_mpi(MPI_Test(&r.request, &done, MPI_STATUS_IGNORE), "MPI_Test (chunk results)");
    if (done != 0) {
      sends_.pop_back();
      return;
    }
    if (over()) return;
    if (polls >= kSpinPolls && clock_now() > deadline) coordinator_silent("while sending it results");
    backoff(polls);
  }
}

void RequestInbox::post() {
  check_mpi(MPI_Irecv(&incoming_, sizeof incoming_, MPI_BYTE, MPI_ANY_SOURCE, kTagRequest, ctx_.comm,
                      &ctx_.engine->request(slot_)),
            "MPI_Irecv");
}

bool RequestInbox::stop(int& sender, Request& request) {
  if (!listening_) return false;
  listening_ = false;
  MPI_Request& r = ctx_.engine->request(slot_);
  if (r == MPI_REQUEST_NULL) return false;
  check_mpi(MPI_Cancel(&r), "MPI_Cancel");
  MPI_Status st;
  wait(r, &st, "MPI_Cancel");
  int cancelled = 0;
  check_mpi(MPI_Test_cancelled(&st, &cancelled), "MPI_Test_cancelled");
  if (cancelled != 0) return false;
  sender = st.MPI_SOURCE;
  request = incoming_;
  return true;
}

ReportResults receive_report_results(Context& ctx, int sender, const Request& request, std::vector<std::byte>& buf) {
  if (request.result_bytes < 0) return ReportResults::None;
  if (static_cast<std::size_t>(request.result_bytes) <= Request::kInlineResults) {
    buf.assign(request.inline_results.begin(), request.inline_results.begin() + request.result_bytes);
    return ReportResults::Have;
  }
  buf.resize(static_cast<std::size_t>(request.result_bytes));
  MPI_Request r = MPI_REQUEST_NULL;
  check_mpi(MPI_Irecv(buf.data(), static_cast<int>(request.result_bytes), MPI_BYTE, sender, kTagResult, ctx.comm, &r),
            "MPI_Irecv");
  if (!ctx.config.robust) {
    wait(r, MPI_STATUS_IGNORE, "MPI_Recv (chunk results)");
    return ReportResults::Have;
  }
  if (wait_until(r, MPI_STATUS_IGNORE, ctx.meter->now() + ctx.config.robust_timeout, "MPI_Recv (chunk results)")) {
    return ReportResults::Have;
  }
  // The sender failed between its report and its results: the report does
  // not count, the chunk stays out and goes to another rank.
  MPI_Cancel(&r);
  MPI_Request_free(&r);
  return ReportResults::Lost;
}

}  // namespace lb4mpi::rt
