// distributed-rma under recovery: the coordinator's role (rma_roles.hpp).
#include <algorithm>

#include "recovery/rma_roles.hpp"
#include "runtime/mpi.hpp"

namespace lb4mpi::rt {
namespace {

// How often the coordinator looks whether the step counter passed the end
// (one atomic on its own window), when no report made it look.
constexpr double kProbeLatency = 5 * kServeLatency;

}  // namespace

RmaRecoveryCoordinator::RmaRecoveryCoordinator(Context& ctx, AdaptiveFeedback& feedback)
    : RmaRecoveryRank(ctx, feedback),
      results_in_(ctx, [this](int, const Request& report, const std::vector<std::byte>& results) {
        chunk_reported(report, results);
      }) {
  if (ctx_.size > 1) inbox_.emplace(ctx_, static_cast<ProgressEngine::Handler*>(this));
}

RmaRecoveryCoordinator::~RmaRecoveryCoordinator() = default;

void RmaRecoveryCoordinator::start_role() {
  // A window the channel kept holds an older loop's words.
  scratch_.assign(win_.size(), 0);
  win_.write(0, scratch_.data(), static_cast<int>(scratch_.size()));
  steps_.start();
  finished_ = 0;
  exhausted_ = dirty_ = raised_ = false;
  probe_.emplace(fb_.calc());
  unfinished_.clear();
  version_ = 0;
  last_beat_ = last_probe_ = clock_now();
  if (inbox_) inbox_->listen();
}

bool RmaRecoveryCoordinator::over_before_step() {
  serve();
  if (finished_ < n_) return false;
  stop_listening();
  return true;
}

void RmaRecoveryCoordinator::wait_a_little(int /*polls*/) {
  // Reports wake it up; the heartbeat is due now and then.
  (void)ctx_.engine->wait_one_until(clock_now() + 0.125 * ctx_.patience());
}

bool RmaRecoveryCoordinator::check_needed() {
  serve();
  return !steps_.done(cut_.id());
}

void RmaRecoveryCoordinator::finished(std::int64_t id, Index size, double work) {
  if (fb_.timed()) fb_.add(size, work);
  if (!cut_.empty() || id != cut_.id()) return;
  commit_step(id, current_, true, false);
}

void RmaRecoveryCoordinator::end(const std::vector<RankFigures>& all) {
  stop_listening();
  RmaRecoveryRank::end(all);
}

void RmaRecoveryCoordinator::stop_listening() {
  int sender = -1;
  Request late;
  if (inbox_ && inbox_->stop(sender, late)) handle(sender, late);  // a late report (a copy's): a duplicate
}

void RmaRecoveryCoordinator::on_complete(int /*slot*/, const MPI_Status& status) {
  const Request report = inbox_->take();
  handle(status.MPI_SOURCE, report);
}

void RmaRecoveryCoordinator::handle(int sender, const Request& report) {
  // Also a kAsk of the two-sided models that carries a finished chunk: a
  // report of the loop before this one on the communicator that came after
  // that loop stopped listening (chunk_reported drops it by its epoch).
  if (reports_finished_chunk(report)) results_in_.take(sender, report);
}

void RmaRecoveryCoordinator::chunk_reported(const Request& report, const std::vector<std::byte>& results) {
  if (report.epoch != ctx_.epoch) return;  // another execution's: its results drained, dropped
  result_buf_ = &results;
  const ChunkReport& r = report.report();
  commit_step(r.id, Chunk{r.begin, r.size}, false, r.result_bytes >= 0);
  result_buf_ = nullptr;
}

void RmaRecoveryCoordinator::commit_step(std::int64_t id, const Chunk& chunk, bool own, bool results) {
  if (!steps_.finish(id)) {  // a duplicate: its first completion counted
    if (own) ctx_.results->drop(id);
    return;
  }
  finished_ += chunk.size;
  if (own) {
    ctx_.results->commit_own(id);
  } else if (results) {
    ctx_.results->commit(result_buf_->data(), result_buf_->size());
  }
  if (exhausted_) {
    const auto it = std::find_if(unfinished_.begin(), unfinished_.end(), [id](const Listed& l) { return l.step == id; });
    if (it != unfinished_.end()) {
      unfinished_.erase(it);
      dirty_ = true;
    }
  }
}

void RmaRecoveryCoordinator::serve() {
  double t0 = 0.0;
  // Every report that is in, not one: the coordinator serves between the
  // pieces of its own chunks (and copies), and one report per piece let the
  // reports of the copies at the end pile up — the done word went up 7 ms
  // after the last iteration finished at 16 simulated ranks (robust / plain
  // 1.09), 44 ms at 64 (1.42). Bounded: a report per rank and piece at most.
  int served = 0;
  for (int k = 0; ctx_.size > 1 && k < ctx_.size; ++k) {
    const int got = ctx_.engine->poll(served == 0 ? &t0 : nullptr);
    if (got == 0) break;
    served += got;
  }
  const double now = clock_now();
  if (served > 0) ctx_.meter->served(t0, now);
  // A report makes it look sooner, but not at each one (SS reports every
  // iteration, and the look is an atomic on the window).
  const double since = now - last_probe_;
  if (!exhausted_ && (past_end_ || since >= kProbeLatency || (served > 0 && since >= kServeLatency))) {
    last_probe_ = now;
    if (!probe_->chunk(win_.read(kSlotStep))) {
      // Every step is taken: the ones not finished are what may go again.
      exhausted_ = dirty_ = true;
      ClosedSequence all(fb_.calc());
      for (std::int64_t s = 0;; ++s) {
        const std::optional<Chunk> c = all.chunk(s);
        if (!c) break;
        if (!steps_.done(s)) unfinished_.push_back(Listed{s, *c});
      }
    }
  }
  if (finished_ >= n_) {
    if (!raised_) {
      (void)win_.swap(kSlotDone, 1);
      raised_ = true;
    }
  } else if (exhausted_ && dirty_) {
    publish();
  }
  if (now - last_beat_ >= 0.125 * ctx_.patience()) {
    (void)win_.fetch_add(kSlotBeat, 1);
    last_beat_ = now;
  }
}

void RmaRecoveryCoordinator::publish() {
  dirty_ = false;
  const std::size_t count = std::min(unfinished_.size(), static_cast<std::size_t>(list_max_));
  scratch_.assign(1 + 3 * count, 0);
  scratch_[0] = static_cast<std::int64_t>(count);
  for (std::size_t k = 0; k < count; ++k) {
    scratch_[1 + 3 * k] = unfinished_[k].step;
    scratch_[2 + 3 * k] = unfinished_[k].chunk.begin;
    scratch_[3 + 3 * k] = unfinished_[k].chunk.size;
  }
  ++version_;  // odd: being written
  win_.write(kSlotVersion, &version_, 1);
  win_.write(kSlotCount, scratch_.data(), static_cast<int>(scratch_.size()));
  ++version_;
  win_.write(kSlotVersion, &version_, 1);
}

}  // namespace lb4mpi::rt
