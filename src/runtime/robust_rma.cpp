#include "robust_rma.hpp"

#include <algorithm>

#include "runtime/mpi.hpp"

namespace lb4mpi::rt {
namespace {

// How often a rank that is not the coordinator checks, between pieces of a
// chunk, whether the chunk is still needed: one atomic on the coordinator's
// window each time, so rarer than the coordinator's serve cadence.
constexpr double kCheckLatency = 10 * kServeLatency;
// How often the coordinator looks whether the step counter passed the end
// (one atomic on its own window), when no report made it look.
constexpr double kProbeLatency = 5 * kServeLatency;

}  // namespace

RobustRmaScheduler::RobustRmaScheduler(Context& ctx, AdaptiveFeedback& feedback)
    : FedScheduler(feedback),
      ctx_(ctx),
      win_(ctx),
      reports_(ctx),
      results_in_(ctx, [this](int, const Request& report, const std::vector<std::byte>& results) {
        chunk_reported(report, results);
      }) {
  if (ctx_.is_coordinator() && ctx_.size > 1) inbox_.emplace(ctx_, static_cast<ProgressEngine::Handler*>(this));
}

RobustRmaScheduler::~RobustRmaScheduler() = default;

void RobustRmaScheduler::start(Index n) {
  n_ = n;
  seq_.emplace(fb_.calc());
  cut_.clear();
  past_end_ = copy_ = done_ = false;
  copy_version_ = -1;
  mine_.clear();
  reissued_ = 0;
  list_max_ = std::max(16, 2 * ctx_.size);
  beat_seen_ = -1;
  beat_changed_ = clock_now();
  wait_polls_ = 0;
  const bool coordinator = ctx_.is_coordinator();
  cadence_.configure(ctx_.config.break_after, coordinator ? kServeLatency : kCheckLatency);
  const auto slots = static_cast<std::size_t>(kSlotList + 3 * list_max_);
  win_.take(slots);
  if (coordinator) {
    // A window the channel kept holds an older loop's words.
    scratch_.assign(slots, 0);
    win_.write(0, scratch_.data(), static_cast<int>(slots));
    steps_.start();
    finished_ = 0;
    exhausted_ = dirty_ = raised_ = false;
    probe_.emplace(fb_.calc());
    unfinished_.clear();
    version_ = 0;
    last_beat_ = last_probe_ = clock_now();
  }
  barrier(ctx_.comm);  // the zeroed words are in place before anyone reads them
  if (inbox_) inbox_->listen();
  if (cadence_.automatic()) cadence_.checked(ctx_.meter->now());
}

// ---- every rank ---------------------------------------------------------------

std::vector<RobustRmaScheduler::Listed> RobustRmaScheduler::read_list() {
  std::vector<Listed> out;
  scratch_.resize(static_cast<std::size_t>(1 + 3 * list_max_));
  const double deadline = clock_now() + ctx_.config.robust_timeout;
  for (int polls = 0;; ++polls) {
    const std::int64_t v1 = win_.read(kSlotVersion);
    if ((v1 & 1) != 0) {  // being written (for ever, if the coordinator failed meanwhile)
      if (polls >= kSpinPolls && clock_now() > deadline) coordinator_silent(ctx_, "while reading its list");
      backoff(polls);
      continue;
    }
    win_.read(kSlotCount, scratch_.data(), static_cast<int>(scratch_.size()));
    if (win_.read(kSlotVersion) != v1) continue;
    const auto count = static_cast<std::size_t>(std::clamp<std::int64_t>(scratch_[0], 0, list_max_));
    for (std::size_t k = 0; k < count; ++k) {
      out.push_back(Listed{scratch_[1 + 3 * k], Chunk{scratch_[2 + 3 * k], scratch_[3 + 3 * k]}});
    }
    copy_version_ = v1;
    return out;
  }
}

std::optional<RobustRmaScheduler::Listed> RobustRmaScheduler::pick_copy() {
  std::vector<Listed> candidates;
  if (ctx_.is_coordinator()) {
    candidates = unfinished_;  // its own list (what it published, and newer)
  } else {
    for (const Listed& l : read_list()) {
      if (mine_.count(l.step) == 0) candidates.push_back(l);
    }
  }
  if (candidates.empty()) return std::nullopt;
  // The oldest first, spread over the ranks that ask.
  const std::int64_t k = win_.fetch_add(kSlotCursor, 1);
  return candidates[static_cast<std::size_t>(k) % candidates.size()];
}

bool RobustRmaScheduler::still_needed() {
  if (ctx_.is_coordinator()) return !steps_.done(cut_.id());
  if (win_.read(kSlotDone) != 0) {
    done_ = true;
    return false;
  }
  if (!copy_ || win_.read(kSlotVersion) == copy_version_) return true;
  for (const Listed& l : read_list()) {
    if (l.step == cut_.id()) return true;
  }
  return false;  // finished by another rank meanwhile
}

void RobustRmaScheduler::wait_a_little(int polls) {
  if (ctx_.is_coordinator()) {
    // Reports wake it up; the heartbeat is due now and then.
    (void)ctx_.engine->wait_one_until(clock_now() + 0.125 * ctx_.config.robust_timeout);
    return;
  }
  backoff(polls);
  const std::int64_t beat = win_.read(kSlotBeat);
  const double now = clock_now();
  if (beat != beat_seen_) {
    beat_seen_ = beat;
    beat_changed_ = now;
  } else if (now - beat_changed_ > ctx_.config.robust_timeout) {
    coordinator_silent(ctx_, "while waiting for work");
  }
}

Grab RobustRmaScheduler::begin_chunk(const Chunk& c, std::int64_t id, bool copy) {
  cut_.begin(c, id);
  current_ = c;
  copy_ = copy;
  wait_polls_ = 0;
  Grab g;
  g.kind = Grab::Kind::Piece;
  g.piece = cut_.take(cadence_.budget());
  cadence_.executed(g.piece.size);
  g.chunk_id = id;
  g.new_chunk = true;
  g.chunk = c;
  return g;
}

Grab RobustRmaScheduler::acquire(bool may_wait) {
  const bool coordinator = ctx_.is_coordinator();
  for (;;) {
    if (!cut_.empty()) {
      if (cadence_.due()) {
        cadence_.checked(cadence_.automatic() ? ctx_.meter->now() : 0.0);
        if (coordinator) serve();
        if (!still_needed()) {  // finished elsewhere first: the rest is not needed
          ctx_.results->drop(cut_.id());
          cut_.clear();
          continue;
        }
      }
      Grab g;
      g.kind = Grab::Kind::Piece;
      g.piece = cut_.take(cadence_.budget());
      cadence_.executed(g.piece.size);
      g.chunk_id = cut_.id();
      return g;
    }
    if (done_) return Grab::of(Grab::Kind::Done);
    const bool timed_here = !ctx_.meter->whole_acquires();
    const double t0 = timed_here ? ctx_.meter->now() : 0.0;
    const auto spent = [&] {
      if (timed_here) ctx_.meter->spent(t0, ctx_.meter->now());
    };
    if (coordinator) {
      serve();
      if (finished_ >= n_) {
        stop_listening();
        done_ = true;
        spent();
        return Grab::of(Grab::Kind::Done);
      }
    }
    if (!past_end_) {
      const std::int64_t id = win_.fetch_add(kSlotStep, 1);
      ctx_.meter->calculation();  // on the rank that executes the chunk
      const std::optional<Chunk> c = seq_->chunk(id);
      spent();
      if (c) return begin_chunk(*c, id, false);
      past_end_ = true;
      if (coordinator) continue;  // it serves (and learns that the steps are over) first
    }
    // Every step is taken: a copy of one not finished yet, or the end.
    if (!coordinator && win_.read(kSlotDone) != 0) {
      done_ = true;
      spent();
      return Grab::of(Grab::Kind::Done);
    }
    if (const std::optional<Listed> l = pick_copy()) {
      ++reissued_;
      spent();
      return begin_chunk(l->chunk, l->step, true);
    }
    if (!may_wait) {
      spent();
      return Grab::of(Grab::Kind::NotNow);
    }
    wait_a_little(wait_polls_++);
    spent();
  }
}

void RobustRmaScheduler::finished(std::int64_t id, Index size, double work) {
  if (fb_.timed()) fb_.add(size, work);
  if (!cut_.empty() || id != cut_.id()) return;
  if (ctx_.is_coordinator()) {
    commit_step(id, current_, true, false);
    return;
  }
  mine_.insert(id);
  Request r;
  r.kind = kFinished;
  reports_.fill(r, id, current_);
  reports_.send(r);
  reports_.send_results(r, [this] { return win_.read(kSlotDone) != 0; });
}

void RobustRmaScheduler::end(const std::vector<RankFigures>& /*all*/) {
  stop_listening();
  win_.give_back();
}

// ---- the coordinator -----------------------------------------------------------

void RobustRmaScheduler::stop_listening() {
  int sender = -1;
  Request late;
  if (inbox_ && inbox_->stop(sender, late)) handle(sender, late);  // a late report (a copy's): a duplicate
}

void RobustRmaScheduler::on_complete(int /*slot*/, const MPI_Status& status) {
  const Request report = inbox_->take();
  handle(status.MPI_SOURCE, report);
}

void RobustRmaScheduler::handle(int sender, const Request& report) {
  // Also a kAsk of the two-sided models that carries a finished chunk: a
  // report of the loop before this one on the communicator that came after
  // that loop stopped listening (chunk_reported drops it by its epoch).
  if (reports_finished_chunk(report.kind, report.id)) results_in_.take(sender, report);
}

void RobustRmaScheduler::chunk_reported(const Request& report, const std::vector<std::byte>& results) {
  if (report.epoch != ctx_.epoch) return;  // another execution's: its results drained, dropped
  result_buf_ = &results;
  commit_step(report.id, Chunk{report.begin, report.size}, false, report.result_bytes >= 0);
  result_buf_ = nullptr;
}

void RobustRmaScheduler::commit_step(std::int64_t id, const Chunk& chunk, bool own, bool results) {
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

void RobustRmaScheduler::serve() {
  double t0 = 0.0;
  const int served = ctx_.size > 1 ? ctx_.engine->poll(&t0) : 0;
  const double now = clock_now();
  if (served > 0) ctx_.meter->served(t0, now);
  if (!exhausted_ && (served > 0 || past_end_ || now - last_probe_ >= kProbeLatency)) {
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
  if (now - last_beat_ >= 0.125 * ctx_.config.robust_timeout) {
    (void)win_.fetch_add(kSlotBeat, 1);
    last_beat_ = now;
  }
}

void RobustRmaScheduler::publish() {
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
