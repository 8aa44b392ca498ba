// distributed-rma under recovery: what both roles share (rma_roles.hpp).
#include <algorithm>

#include "recovery/policy.hpp"
#include "recovery/rma_roles.hpp"
#include "runtime/mpi.hpp"

namespace lb4mpi::rt {
namespace {

// How often a rank that is not the coordinator checks, between pieces of a
// chunk, whether the chunk is still needed: one atomic on the coordinator's
// window each time, so rarer than the coordinator's serve cadence.
constexpr double kCheckLatency = 10 * kServeLatency;

}  // namespace

std::unique_ptr<Scheduler> make_recovering_rma(Context& ctx, AdaptiveFeedback& feedback) {
  // Closed forms keep the one-sided assignment. A technique without one
  // would lock the window's state while a rank computes its chunk, and a
  // rank that failed holding the lock would stop the loop: its chunks are
  // granted and evaluated as in robust distributed mode (two-sided,
  // nothing locked) — nullptr tells the caller so.
  if (!info(ctx.config.technique).has_closed_form) return nullptr;
  if (ctx.is_coordinator()) return std::make_unique<RmaRecoveryCoordinator>(ctx, feedback);
  return std::make_unique<RmaRecoveryWorker>(ctx, feedback);
}

void RmaRecoveryRank::start(Index n) {
  n_ = n;
  seq_.emplace(fb_.calc());
  cut_.clear();
  past_end_ = copy_ = done_ = false;
  reissued_ = 0;
  list_max_ = std::max(16, 2 * ctx_.size);
  wait_polls_ = 0;
  cadence_.configure(ctx_.config.break_after, ctx_.is_coordinator() ? kServeLatency : kCheckLatency);
  win_.take(static_cast<std::size_t>(kSlotList + 3 * list_max_));
  start_role();
  barrier(ctx_.comm);  // the zeroed words are in place before anyone reads them
  if (cadence_.automatic()) cadence_.checked(ctx_.meter->now());
}

void RmaRecoveryRank::end(const std::vector<RankFigures>& /*all*/) { win_.give_back(); }

Grab RmaRecoveryRank::next_piece() {
  Grab g;
  g.kind = Grab::Kind::Piece;
  g.piece = cut_.take(cadence_.budget());
  cadence_.executed(g.piece.size);
  g.chunk_id = cut_.id();
  return g;
}

bool RmaRecoveryRank::continue_chunk(Grab& g) {
  if (cut_.empty()) return false;
  if (cadence_.due()) {
    cadence_.checked(cadence_.automatic() ? ctx_.meter->now() : 0.0);
    if (!check_needed()) {  // finished elsewhere first: the rest is not needed
      ctx_.results->drop(cut_.id());
      cut_.clear();
      return false;
    }
  }
  g = next_piece();
  return true;
}

Grab RmaRecoveryRank::begin_chunk(const Chunk& c, std::int64_t id, bool copy) {
  cut_.begin(c, id);
  current_ = c;
  copy_ = copy;
  wait_polls_ = 0;
  Grab g = next_piece();
  g.new_chunk = true;
  g.chunk = c;
  return g;
}

Grab RmaRecoveryRank::acquire(bool may_wait) {
  for (;;) {
    if (Grab g; continue_chunk(g)) return g;
    if (done_) return Grab::of(Grab::Kind::Done);
    const bool timed_here = !ctx_.meter->whole_acquires();
    const double t0 = timed_here ? ctx_.meter->now() : 0.0;
    const auto spent = [&] {
      if (timed_here) ctx_.meter->spent(t0, ctx_.meter->now());
    };
    const auto over = [&] {
      done_ = true;
      spent();
      return Grab::of(Grab::Kind::Done);
    };
    if (over_before_step()) return over();
    if (!past_end_) {
      std::int64_t id = -1;
      const std::optional<Chunk> c = take_step(id);
      spent();
      if (c) return begin_chunk(*c, id, false);
      if (again_past_end()) continue;
    }
    // Every step is taken: a copy of one not finished yet, or the end.
    if (over_after_steps()) return over();
    if (const std::optional<Listed> l = spread(copy_candidates())) {
      ++reissued_;
      spent();
      return begin_chunk(l->chunk, l->step, true);
    }
    if (!may_wait) {
      spent();
      polled();
      return Grab::of(Grab::Kind::NotNow);
    }
    wait_a_little(wait_polls_++);
    spent();
  }
}

std::optional<Chunk> RmaRecoveryRank::take_step(std::int64_t& id) {
  id = win_.fetch_add(kSlotStep, 1);
  ctx_.meter->calculation();  // on the rank that executes the chunk
  std::optional<Chunk> c = seq_->chunk(id);
  if (!c) past_end_ = true;
  return c;
}

std::optional<RmaRecoveryRank::Listed> RmaRecoveryRank::spread(const std::vector<Listed>& candidates) {
  if (candidates.empty()) return std::nullopt;
  // The oldest first, spread over the ranks that ask.
  const std::int64_t k = win_.fetch_add(kSlotCursor, 1);
  return candidates[static_cast<std::size_t>(k) % candidates.size()];
}

// ---- every rank but the coordinator --------------------------------------------

void RmaRecoveryWorker::start_role() {
  copy_version_ = -1;
  mine_.clear();
  beat_seen_ = -1;
  beat_changed_ = clock_now();
}

std::vector<RmaRecoveryRank::Listed> RmaRecoveryWorker::read_list() {
  std::vector<Listed> out;
  scratch_.resize(static_cast<std::size_t>(1 + 3 * list_max_));
  const double deadline = clock_now() + ctx_.patience();
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

bool RmaRecoveryWorker::check_needed() {
  ctx_.engine->poll();  // a failover message
  check_takeover(ctx_);
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

void RmaRecoveryWorker::wait_a_little(int polls) {
  backoff(polls);
  polled();
}

void RmaRecoveryWorker::polled() {
  ctx_.engine->poll();  // a failover message
  check_takeover(ctx_);
  const std::int64_t beat = win_.read(kSlotBeat);
  const double now = clock_now();
  if (beat != beat_seen_) {
    beat_seen_ = beat;
    beat_changed_ = now;
  } else if (now - beat_changed_ > ctx_.patience()) {
    coordinator_silent(ctx_, "while waiting for work");
  }
}

bool RmaRecoveryWorker::over_after_steps() { return win_.read(kSlotDone) != 0; }

std::vector<RmaRecoveryRank::Listed> RmaRecoveryWorker::copy_candidates() {
  std::vector<Listed> candidates;
  for (const Listed& l : read_list()) {
    if (!mine_.contains(l.step)) candidates.push_back(l);
  }
  return candidates;
}

void RmaRecoveryWorker::finished(std::int64_t id, Index size, double work) {
  if (fb_.timed()) fb_.add(size, work);
  if (!cut_.empty() || id != cut_.id()) return;
  mine_.add(id);
  FinishedMessage f;
  reports_.fill(f.report, id, current_);
  Request r = Request::of(f);
  reports_.send(r);
  reports_.send_results(r, [this] { return win_.read(kSlotDone) != 0; });
}

}  // namespace lb4mpi::rt
