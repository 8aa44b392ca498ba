#include "rma.hpp"

#include <algorithm>

#include "runtime/mpi.hpp"

namespace lb4mpi::rt {

RmaScheduler::RmaScheduler(Context& ctx, AdaptiveFeedback& feedback)
    : FedScheduler(feedback), ctx_(ctx), granting_(!info(ctx.config.technique).has_closed_form) {}

RmaScheduler::~RmaScheduler() {
  // Only an execution that did not finish still holds its window.
  if (win_ != MPI_WIN_NULL) {
    MPI_Win_unlock_all(win_);
    MPI_Win_free(&win_);  // collective: every rank destroys its Loop
  }
}

void RmaScheduler::take_window(std::size_t doubles) {
  doubles_ = doubles;
  auto& pool = ctx_.channel->windows;
  for (auto w = pool.rbegin(); w != pool.rend(); ++w) {
    if (w->owner == ctx_.config.coordinator && w->doubles >= doubles) {
      win_ = w->win;
      capacity_ = w->doubles;
      pool.erase(std::next(w).base());
      return;  // as given back: its first word is 0
    }
  }
  const bool mine = ctx_.is_coordinator();
  const MPI_Aint bytes = mine ? static_cast<MPI_Aint>(doubles * sizeof(double)) : 0;
  void* base = nullptr;
  check_mpi(MPI_Win_allocate(bytes, sizeof(double), MPI_INFO_NULL, ctx_.comm, &base, &win_), "MPI_Win_allocate");
  capacity_ = doubles;
  check_mpi(MPI_Win_set_errhandler(win_, MPI_ERRORS_RETURN), "MPI_Win_set_errhandler");
  if (mine) std::fill_n(static_cast<double*>(base), doubles, 0.0);
  barrier(ctx_.comm);  // the zeroed memory is visible before any access
  check_mpi(MPI_Win_lock_all(MPI_MODE_NOCHECK, win_), "MPI_Win_lock_all");
}

void RmaScheduler::give_back_window() {
  if (ctx_.is_coordinator()) {
    // The first word to 0 (the step counter, or the lock word, free anyway),
    // whatever the next loop on the window uses it for. Every rank is past
    // its last access (the figures were exchanged), and the next start's
    // agreement orders this before any access.
    const std::int64_t zero = 0;
    std::int64_t old = 0;
    check_mpi(MPI_Fetch_and_op(&zero, &old, MPI_INT64_T, ctx_.rank, 0, MPI_REPLACE, win_), "MPI_Fetch_and_op");
    check_mpi(MPI_Win_flush(ctx_.rank, win_), "MPI_Win_flush");
  }
  ctx_.channel->windows.push_back({win_, ctx_.config.coordinator, capacity_});
  win_ = MPI_WIN_NULL;
}

void RmaScheduler::put_state(int target) {
  const int count = static_cast<int>(state_.size());
  check_mpi(MPI_Put(state_.data(), count, MPI_DOUBLE, target, kStateSlot, count, MPI_DOUBLE, win_), "MPI_Put");
  check_mpi(MPI_Win_flush(target, win_), "MPI_Win_flush");
}

void RmaScheduler::get_state(int target) {
  state_.resize(doubles_ - kStateSlot);
  const int count = static_cast<int>(state_.size());
  check_mpi(MPI_Get(state_.data(), count, MPI_DOUBLE, target, kStateSlot, count, MPI_DOUBLE, win_), "MPI_Get");
  check_mpi(MPI_Win_flush(target, win_), "MPI_Win_flush");
}

// The state's lock: a test-and-set word at the coordinator, 0 when free. A
// rank swaps in 1 (fetch-and-op MPI_REPLACE) and holds the lock when it got
// 0 back; it releases by swapping in 0. Only fetch-and-op is used: Open MPI
// 4.1's emulated compare-and-swap crashes when a rank targets its own window
// over shared memory. Not first-come first-served on purpose: with more
// ranks than cores a ticket lock made everybody wait for a descheduled
// rank whose turn it was (MPICH, 4 ranks on 2 cores: 1.5x slower). Unlike
// MPI_Win_lock(MPI_LOCK_EXCLUSIVE) a waiting rank polls politely
// (rt::backoff), inside the window's one lock_all epoch.
std::int64_t RmaScheduler::swap(int slot, std::int64_t value) {
  std::int64_t old = 0;
  check_mpi(MPI_Fetch_and_op(&value, &old, MPI_INT64_T, ctx_.config.coordinator, slot, MPI_REPLACE, win_),
            "MPI_Fetch_and_op");
  check_mpi(MPI_Win_flush(ctx_.config.coordinator, win_), "MPI_Win_flush");
  return old;
}

void RmaScheduler::lock_state() {
  if (ctx_.is_coordinator()) {
    // Where atomics are carried out by the target's progress engine (MPICH
    // over UCX), another rank's swap has waited here since this rank began
    // its last chunk; taking the lock first, the coordinator would find it
    // inside MPI only while it holds the lock, and starve it. Progress first.
    int flag = 0;
    check_mpi(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, ctx_.comm, &flag, MPI_STATUS_IGNORE), "MPI_Iprobe");
  }
  for (int polls = 0; swap(kLockSlot, 1) != 0; ++polls) backoff(polls);
}

void RmaScheduler::unlock_state() { (void)swap(kLockSlot, 0); }

void RmaScheduler::start(Index /*n*/) {
  done_ = false;
  cut_.clear();
  in_pieces_ = ctx_.is_coordinator() && ctx_.size > 1;
  cadence_.configure(ctx_.config.break_after);
  if (in_pieces_ && cadence_.automatic()) cadence_.checked(ctx_.meter->now());
  if (!granting_) {
    seq_.emplace(fb_.calc());
    take_window(1);  // the step counter (an int64 in a double-sized slot), 0 when taken
    return;
  }
  // The lock word, then the technique's state in the coordinator's window.
  // The coordinator's calculator holds what the technique learnt so far
  // (end() carried it over), so it writes the state at every start: the
  // window may have served another loop since.
  fb_.calc().save_state(state_);
  take_window(kStateSlot + state_.size());
  if (ctx_.is_coordinator()) put_state(ctx_.rank);
  barrier(ctx_.comm);  // the state is in place before anyone reads it
}

std::int64_t RmaScheduler::fetch_step() {
  const std::int64_t one = 1;
  std::int64_t step = 0;
  check_mpi(MPI_Fetch_and_op(&one, &step, MPI_INT64_T, ctx_.config.coordinator, 0, MPI_SUM, win_),
            "MPI_Fetch_and_op");
  check_mpi(MPI_Win_flush(ctx_.config.coordinator, win_), "MPI_Win_flush");
  return step;
}

std::optional<Chunk> RmaScheduler::next_granted(std::int64_t& id) {
  const int coord = ctx_.config.coordinator;
  lock_state();
  get_state(coord);
  ChunkCalculator& calc = fb_.calc();
  calc.load_state(state_);
  if (fb_.timed()) {
    const double t = ctx_.meter->now();
    if (fb_.pending()) {
      calc.record(fb_.take(ctx_.rank, t));
    } else {
      fb_.restart_period(t);
    }
  }
  std::optional<Chunk> c;
  if (const std::optional<ChunkCalculator::Grant> g = calc.grant(ctx_.rank)) {
    ctx_.meter->calculation();  // on the rank that executes the chunk
    c = calc.evaluate(*g);
    calc.commit(*g, c->size);
    id = g->step;
  }
  calc.save_state(state_);
  put_state(coord);
  unlock_state();
  return c;
}

// The coordinator's memory holds the window. Where the MPI carries out
// atomics through the target's progress engine (MPICH over UCX: active
// messages), another rank's fetch-and-op waits until the coordinator calls
// MPI — so the coordinator runs its chunks in pieces, as in the two-sided
// models (break_after, automatic: about every kServeLatency), and lets the
// MPI progress between them. Other ranks run a chunk in one piece.
void RmaScheduler::let_others_progress() {
  cadence_.checked(cadence_.automatic() ? ctx_.meter->now() : 0.0);
  int flag = 0;
  check_mpi(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, ctx_.comm, &flag, MPI_STATUS_IGNORE), "MPI_Iprobe");
}

Grab RmaScheduler::acquire(bool /*may_wait*/) {
  Grab grab;
  if (!cut_.empty()) {
    if (cadence_.due()) let_others_progress();
    grab.kind = Grab::Kind::Piece;
    grab.piece = cut_.take(in_pieces_ ? cadence_.budget() : cut_.left());
    grab.chunk_id = cut_.id();
    if (in_pieces_) cadence_.executed(grab.piece.size);
    return grab;
  }
  if (done_) return Grab::of(Grab::Kind::Done);
  const bool timed_here = !ctx_.meter->whole_acquires();
  const double t0 = timed_here ? ctx_.meter->now() : 0.0;
  std::optional<Chunk> c;
  std::int64_t id = -1;
  if (granting_) {
    c = next_granted(id);
  } else {
    id = fetch_step();
    ctx_.meter->calculation();  // on the rank that executes the chunk
    c = seq_->chunk(id);
  }
  if (timed_here) ctx_.meter->spent(t0, ctx_.meter->now());
  if (!c) {
    done_ = true;
    return Grab::of(Grab::Kind::Done);
  }
  cut_.begin(*c, id);
  grab.kind = Grab::Kind::Piece;
  grab.piece = cut_.take(in_pieces_ ? cadence_.budget() : c->size);
  if (in_pieces_) cadence_.executed(grab.piece.size);
  grab.chunk_id = id;
  grab.new_chunk = true;
  grab.chunk = *c;
  return grab;
}

void RmaScheduler::finished(std::int64_t /*id*/, Index size, double work) {
  if (fb_.timed()) fb_.add(size, work);
}

void RmaScheduler::end(const std::vector<RankFigures>& all) {
  // Every rank is past its last access (the figures were exchanged).
  if (ctx_.is_coordinator() && granting_) {
    // Carry what the technique learnt into the next execution of the loop.
    get_state(ctx_.rank);
    fb_.calc().load_state(state_);
    fb_.time_step(all);
  }
  give_back_window();
}

}  // namespace lb4mpi::rt
