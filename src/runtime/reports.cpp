#include "reports.hpp"

#include <algorithm>
#include <string>

#include "platform/platform.hpp"
#include "recovery/policy.hpp"
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
  if (pending) new std::list<ResultSend>(std::move(sends_));
}

void ReportSender::fill(ChunkReport& into, std::int64_t id, Chunk chunk) {
  into.id = id;
  into.begin = chunk.begin;
  into.size = chunk.size;
  const bool has = ctx_.results->take(id, buf_);
  if (ctx_.kept != nullptr) ctx_.kept->add(chunk, has, buf_.data(), buf_.size());
  announce(into, has);
}

void ReportSender::announce(ChunkReport& into, bool has) const {
  into.result_bytes = has ? static_cast<std::int64_t>(buf_.size()) : -1;
  if (has && buf_.size() <= ChunkReport::kInlineResults) std::copy(buf_.begin(), buf_.end(), into.inline_results.begin());
}

void ReportSender::append(ChunkReport& into, std::int64_t id, Chunk part) {
  if (into.count == 1 && into.result_bytes >= 0) {  // the first part's results become a frame
    part_.swap(buf_);
    buf_.clear();
    ResultStore::frame(buf_, 0, part_);
  }
  const bool has = ctx_.results->take(id, part_);
  if (has) ResultStore::frame(buf_, into.count, part_);
  if (ctx_.kept != nullptr) ctx_.kept->add_part(part, has, part_);  // adjacent parts without results: one range
  into.size += part.size;
  ++into.count;
  announce(into, !buf_.empty());
}

void ReportSender::send_bytes(const void* data, int bytes, int tag, const char* what) {
  if (!ctx_.bounded()) {
    check_mpi(MPI_Send(data, bytes, MPI_BYTE, ctx_.config.coordinator, tag, ctx_.comm), what);
    return;
  }
  if (!outbox_) outbox_ = std::make_unique<std::vector<std::byte>>();
  const auto* from = static_cast<const std::byte*>(data);
  outbox_->assign(from, from + bytes);
  MPI_Request r = MPI_REQUEST_NULL;
  check_mpi(MPI_Isend(outbox_->data(), bytes, MPI_BYTE, ctx_.config.coordinator, tag, ctx_.comm, &r), what);
  if (!wait_until(r, MPI_STATUS_IGNORE, clock_now() + ctx_.patience(), what)) {
    MPI_Request_free(&r);       // the coordinator is gone, or only slow
    (void)outbox_.release();    // MPI may still read it: let go (outbox_)
    coordinator_silent(ctx_, "while sending to it");
  }
}

void ReportSender::send(Request& message) {
  message.epoch = ctx_.epoch;
  send_bytes(&message, sizeof message, kTagRequest, "MPI_Send");
}

void ReportSender::sweep() {
  for (auto it = sends_.begin(); it != sends_.end();) {
    int done = 0;
    if (!it->watched) check_mpi(MPI_Test(&it->request, &done, MPI_STATUS_IGNORE), "MPI_Test");
    if (done == 0) {
      ++it;
      continue;
    }
    recycle(std::move(it->data));
    it = sends_.erase(it);
  }
}

void ReportSender::send_results(const Request& message, const std::function<bool()>& over) {
  const ChunkReport& report = message.report();
  if (!message.reports() || report.result_bytes < 0 ||
      static_cast<std::size_t>(report.result_bytes) <= ChunkReport::kInlineResults) {
    return;
  }
  if (!ctx_.bounded()) {
    send_bytes(buf_.data(), static_cast<int>(buf_.size()), result_tag(message.epoch), "MPI_Send (chunk results)");
    return;
  }
  sweep();
  // buf_ goes out and takes the storage of a send that completed: no
  // allocation per report once a few buffers have grown.
  std::vector<std::byte> data;
  if (!spare_.empty()) {
    data = std::move(spare_.back());
    spare_.pop_back();
  }
  data.swap(buf_);
  buf_.clear();
  sends_.push_back(ResultSend{MPI_REQUEST_NULL, std::move(data), true});
  const auto r = std::prev(sends_.end());
  check_mpi(MPI_Isend(r->data.data(), static_cast<int>(r->data.size()), MPI_BYTE, ctx_.config.coordinator,
                      result_tag(message.epoch),
                      ctx_.comm, &r->request),
            "MPI_Isend (chunk results)");
  // Completed before the rank goes on: a rank that fails right after its
  // report must not leave the coordinator waiting for results that never
  // left (it would wait the timeout, then hand the chunk out again). The
  // wait ends early when the loop is over (the coordinator may have left it
  // before receiving them: they stay pending in sends_).
  const double deadline = clock_now() + ctx_.patience();
  for (int polls = 0;; ++polls) {
    int done = 0;
    check_mpi(MPI_Test(&r->request, &done, MPI_STATUS_IGNORE), "MPI_Test (chunk results)");
    if (done != 0) {
      recycle(std::move(r->data));
      sends_.erase(r);
      return;
    }
    if (over()) {
      r->watched = false;
      return;
    }
    if (polls >= kSpinPolls && clock_now() > deadline) {
      r->watched = false;
      coordinator_silent(ctx_, "while sending it results");
    }
    backoff(polls);
  }
}

void ReportSender::recycle(std::vector<std::byte>&& data) {
  if (spare_.size() < 4) spare_.push_back(std::move(data));
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
  // In a simulation a message that is there is received, not cancelled:
  // SMPI 3.32 raises NetworkFailureException in MPI_Wait on a cancelled
  // receive that a send was already under way to (a report of a copy at the
  // end of a distributed-rma loop under recovery, 64 simulated ranks).
  int there = 0;
  if constexpr (platform::kSimulated) {
    check_mpi(MPI_Iprobe(MPI_ANY_SOURCE, kTagRequest, ctx_.comm, &there, MPI_STATUS_IGNORE), "MPI_Iprobe");
  }
  if (there == 0) check_mpi(MPI_Cancel(&r), "MPI_Cancel");
  MPI_Status st;
  wait(r, &st, "MPI_Cancel");
  int cancelled = 0;
  check_mpi(MPI_Test_cancelled(&st, &cancelled), "MPI_Test_cancelled");
  if (cancelled != 0) return false;
  sender = st.MPI_SOURCE;
  request = incoming_;
  return true;
}

ResultsInbox::~ResultsInbox() {
  for (Pending& p : pending_) {
    MPI_Request& r = ctx_.engine->request(p.slot);
    if (p.busy && r != MPI_REQUEST_NULL) {
      MPI_Cancel(&r);
      int done = 0;
      MPI_Test(&r, &done, MPI_STATUS_IGNORE);
      if (done == 0) {  // under way: it completes when its sender progresses, into a buffer that must outlive it
        MPI_Request_free(&r);
        new std::vector<std::byte>(std::move(p.data));
        r = MPI_REQUEST_NULL;
      }
    }
    ctx_.engine->abandon(p.slot);
  }
}

void ResultsInbox::take(int sender, const Request& message) {
  const ChunkReport& report = message.report();
  if (report.result_bytes < 0 || static_cast<std::size_t>(report.result_bytes) <= ChunkReport::kInlineResults) {
    inline_.assign(report.inline_results.begin(),
                   report.inline_results.begin() + std::max<std::int64_t>(0, report.result_bytes));
    complete_(sender, message, inline_);
    return;
  }
  auto free = std::find_if(pending_.begin(), pending_.end(), [](const Pending& p) { return !p.busy; });
  if (free == pending_.end()) {
    pending_.emplace_back();
    pending_.back().slot = ctx_.engine->add(this);
    free = std::prev(pending_.end());
  }
  free->busy = true;
  free->sender = sender;
  free->report = message;
  free->data.resize(static_cast<std::size_t>(report.result_bytes));
  check_mpi(MPI_Irecv(free->data.data(), static_cast<int>(report.result_bytes), MPI_BYTE, sender, result_tag(message.epoch), ctx_.comm,
                      &ctx_.engine->request(free->slot)),
            "MPI_Irecv (chunk results)");
}

void ResultsInbox::on_complete(int slot, const MPI_Status& /*status*/) {
  for (Pending& p : pending_) {
    if (p.slot != slot) continue;
    p.busy = false;
    complete_(p.sender, p.report, p.data);
    return;
  }
}

}  // namespace lb4mpi::rt
