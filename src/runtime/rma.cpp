#include "rma.hpp"

#include <algorithm>

#include "runtime/mpi.hpp"

namespace lb4mpi::rt {

RmaScheduler::RmaScheduler(Context& ctx, AdaptiveFeedback& feedback)
    : FedScheduler(feedback), ctx_(ctx), granting_(!info(ctx.config.technique).has_closed_form), win_(ctx) {}

void RmaScheduler::put_state(int target) { win_.put(state_.data(), static_cast<int>(state_.size()), kStateSlot, target); }

void RmaScheduler::get_state(int target) {
  state_.resize(win_.size() - kStateSlot);
  win_.get(state_.data(), static_cast<int>(state_.size()), kStateSlot, target);
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
void RmaScheduler::lock_state() {
  if (ctx_.is_coordinator()) {
    // Where atomics are carried out by the target's progress engine (MPICH
    // over UCX), another rank's swap has waited here since this rank began
    // its last chunk; taking the lock first, the coordinator would find it
    // inside MPI only while it holds the lock, and starve it. Progress first.
    int flag = 0;
    check_mpi(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, ctx_.comm, &flag, MPI_STATUS_IGNORE), "MPI_Iprobe");
  }
  for (int polls = 0; win_.swap(kLockSlot, 1) != 0; ++polls) backoff(polls);
}

void RmaScheduler::unlock_state() { (void)win_.swap(kLockSlot, 0); }

void RmaScheduler::start(Index /*n*/) {
  done_ = false;
  cut_.clear();
  in_pieces_ = ctx_.is_coordinator() && ctx_.size > 1;
  cadence_.configure(ctx_.config.break_after);
  if (in_pieces_ && cadence_.automatic()) cadence_.checked(ctx_.meter->now());
  if (!granting_) {
    seq_.emplace(fb_.calc());
    win_.take(1);  // the step counter (an int64 in a double-sized slot), 0 when taken
    first_step_ = true;
    return;
  }
  // The lock word, then the technique's state in the coordinator's window.
  // The coordinator's calculator holds what the technique learnt so far
  // (end() carried it over), so it writes the state at every start: the
  // window may have served another loop since.
  fb_.calc().save_state(state_);
  win_.take(kStateSlot + state_.size());
  if (ctx_.is_coordinator()) put_state(ctx_.rank);
  barrier(ctx_.comm);  // the state is in place before anyone reads it
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
    // Steps 0 .. P-1 one per rank, the rest by the counter (rma.hpp).
    id = first_step_ ? ctx_.rank : ctx_.size + win_.fetch_add(0, 1);
    first_step_ = false;
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
  win_.give_back();
}

}  // namespace lb4mpi::rt
