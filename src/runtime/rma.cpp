#include "runtime/rma.hpp"

#include <algorithm>

#include "runtime/clock.hpp"
#include "runtime/mpi_util.hpp"

namespace lb4mpi {

using detail::check_mpi;
using detail::now;

RmaExecutor::RmaExecutor(MPI_Comm comm, Index first, Index last, const Options& options, int channel)
    : Executor(comm, first, last, options, channel) {}

RmaExecutor::~RmaExecutor() {
  // Only an execution that did not finish still holds its window.
  if (win_ != MPI_WIN_NULL) {
    MPI_Win_unlock_all(win_);
    MPI_Win_free(&win_);  // collective: every rank destroys its Loop
  }
}

void RmaExecutor::take_window(std::size_t doubles) {
  doubles_ = doubles;
  auto& pool = channel_->windows;
  for (auto w = pool.rbegin(); w != pool.rend(); ++w) {
    if (w->owner == options_.coordinator && w->doubles >= doubles) {
      win_ = w->win;
      capacity_ = w->doubles;
      pool.erase(std::next(w).base());
      return;  // as given back: its counters are 0
    }
  }
  const bool mine = rank_ == options_.coordinator;
  const MPI_Aint bytes = mine ? static_cast<MPI_Aint>(doubles * sizeof(double)) : 0;
  void* base = nullptr;
  check_mpi(MPI_Win_allocate(bytes, sizeof(double), MPI_INFO_NULL, comm_, &base, &win_), "MPI_Win_allocate");
  capacity_ = doubles;
  if (mine) std::fill_n(static_cast<double*>(base), doubles, 0.0);
  detail::barrier(comm_);  // the zeroed memory is visible before any access
  check_mpi(MPI_Win_lock_all(MPI_MODE_NOCHECK, win_), "MPI_Win_lock_all");
}

void RmaExecutor::give_back_window() {
  if (rank_ == options_.coordinator) {
    // The first word to 0 (the step counter, or the lock word, free anyway),
    // whatever the next loop on the window uses it for. Every
    // rank is past its last access (finish() gathered them all), and the
    // next start's agreement orders this before any access.
    const std::int64_t zero = 0;
    for (int slot = 0; slot < static_cast<int>(std::min<std::size_t>(capacity_, kStateSlot)); ++slot) {
      std::int64_t old = 0;
      check_mpi(MPI_Fetch_and_op(&zero, &old, MPI_INT64_T, rank_, slot, MPI_REPLACE, win_), "MPI_Fetch_and_op");
    }
    check_mpi(MPI_Win_flush(rank_, win_), "MPI_Win_flush");
  }
  channel_->windows.push_back({win_, options_.coordinator, capacity_});
  win_ = MPI_WIN_NULL;
}

void RmaExecutor::put_state(int target) {
  const int count = static_cast<int>(state_.size());
  check_mpi(MPI_Put(state_.data(), count, MPI_DOUBLE, target, kStateSlot, count, MPI_DOUBLE, win_), "MPI_Put");
  check_mpi(MPI_Win_flush(target, win_), "MPI_Win_flush");
}

void RmaExecutor::get_state(int target) {
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
// (detail::backoff), inside the window's one lock_all epoch.
std::int64_t RmaExecutor::swap(int slot, std::int64_t value) {
  std::int64_t old = 0;
  check_mpi(MPI_Fetch_and_op(&value, &old, MPI_INT64_T, options_.coordinator, slot, MPI_REPLACE, win_),
            "MPI_Fetch_and_op");
  check_mpi(MPI_Win_flush(options_.coordinator, win_), "MPI_Win_flush");
  return old;
}

void RmaExecutor::lock_state() {
  for (int polls = 0; swap(kLockSlot, 1) != 0; ++polls) detail::backoff(polls);
}

void RmaExecutor::unlock_state() { (void)swap(kLockSlot, 0); }

void RmaExecutor::on_start() {
  granting_ = !info(options_.technique).has_closed_form;
  // A new N keeps what the technique learned (ChunkCalculator::restart(n));
  // the coordinator then rewrites the window's state for the new loop.
  const bool fresh = !calc_ || calc_->shape().n != n_;
  if (!calc_) {
    calc_.emplace(options_.technique, LoopShape{n_, size_}, options_.params);
  } else if (fresh) {
    calc_->restart(n_);
  }
  done_ = false;
  meas_done_ = 0;
  meas_work_ = 0.0;
  meas_since_ = now();
  if (!granting_) {
    walk_.emplace(*calc_);
    // The step counter (an int64 in a double-sized slot), 0 when taken; not
    // needed by STATIC, whose blocks follow from the rank.
    if (options_.technique != Technique::STATIC) take_window(1);
    return;
  }
  // The lock word, then the technique's state in the coordinator's window.
  // The coordinator's calculator holds what the technique learned so far
  // (on_finish carried it over), so it writes the state at every start: the
  // window may have served another loop since.
  calc_->save_state(state_);
  take_window(kStateSlot + state_.size());
  if (rank_ == options_.coordinator) put_state(rank_);
  detail::barrier(comm_);  // the state is in place before anyone reads it
}

Index RmaExecutor::fetch_step() {
  const std::int64_t one = 1;
  std::int64_t step = 0;
  check_mpi(MPI_Fetch_and_op(&one, &step, MPI_INT64_T, options_.coordinator, 0, MPI_SUM, win_),
            "MPI_Fetch_and_op");
  check_mpi(MPI_Win_flush(options_.coordinator, win_), "MPI_Win_flush");
  return step;
}

std::optional<Chunk> RmaExecutor::acquire_granted() {
  const int coord = options_.coordinator;
  lock_state();
  get_state(coord);
  calc_->load_state(state_);
  if (meas_done_ > 0) {
    calc_->record(ChunkTiming{rank_, meas_done_, meas_work_, now() - meas_since_});
    meas_done_ = 0;
    meas_work_ = 0.0;
  }
  meas_since_ = now();
  std::optional<Chunk> c;
  if (const std::optional<ChunkCalculator::Grant> g = calc_->grant(rank_)) {
    chunk_calculation();  // the chunk calculation, on the rank that executes the chunk
    c = calc_->evaluate(*g);
    calc_->commit(*g, c->size);
  }
  calc_->save_state(state_);
  put_state(coord);
  unlock_state();
  return c;
}

std::optional<Chunk> RmaExecutor::acquire() {
  if (done_) return std::nullopt;
  std::optional<Chunk> c;
  if (options_.technique == Technique::STATIC) {
    // STATIC needs no counter: block `rank_` of the balanced partition.
    done_ = true;
    chunk_calculation();
    c = walk_->chunk(rank_);
  } else if (granting_) {
    c = acquire_granted();
  } else {
    const Index step = fetch_step();
    chunk_calculation();  // the chunk calculation, on the rank that executes the chunk
    c = walk_->chunk(step);
  }
  if (!c) {
    done_ = true;
    return std::nullopt;
  }
  new_chunk(*c);
  return c;
}

void RmaExecutor::piece_done(const Chunk& piece, double work_time) {
  meas_done_ += piece.size;
  meas_work_ += work_time;
}

void RmaExecutor::on_finish(const Report& report) {
  // Every rank is past its last access (finish() gathered them all).
  if (win_ == MPI_WIN_NULL) return;  // STATIC
  if (rank_ != options_.coordinator) {
    give_back_window();
    return;
  }
  if (granting_) {
    // Carry what the technique learned into the next execution of the loop.
    get_state(rank_);
    calc_->load_state(state_);
    for (int r = 0; r < static_cast<int>(report.ranks.size()); ++r) {
      const RankReport& rr = report.ranks[static_cast<std::size_t>(r)];
      if (rr.iterations > 0) calc_->record_time_step(r, rr.iterations, rr.work_time);
    }
    calc_->restart();
    calc_->save_state(state_);
    put_state(rank_);
  }
  give_back_window();
}

}  // namespace lb4mpi
