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
  if (win_ != MPI_WIN_NULL) {
    if (!granting_) MPI_Win_unlock_all(win_);
    MPI_Win_free(&win_);  // collective: every rank destroys its Loop
  }
}

void RmaExecutor::create_window(std::size_t doubles) {
  doubles_ = doubles;
  const bool mine = rank_ == options_.coordinator;
  const MPI_Aint bytes = mine ? static_cast<MPI_Aint>(doubles * sizeof(double)) : 0;
  check_mpi(MPI_Win_allocate(bytes, sizeof(double), MPI_INFO_NULL, comm_, &base_, &win_), "MPI_Win_allocate");
  if (mine) std::fill_n(static_cast<double*>(base_), doubles, 0.0);
}

void RmaExecutor::write_state(const std::vector<double>& state) {
  check_mpi(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank_, 0, win_), "MPI_Win_lock");
  check_mpi(MPI_Put(state.data(), static_cast<int>(state.size()), MPI_DOUBLE, rank_, 0,
                    static_cast<int>(state.size()), MPI_DOUBLE, win_),
            "MPI_Put");
  check_mpi(MPI_Win_unlock(rank_, win_), "MPI_Win_unlock");
}

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
    if (win_ == MPI_WIN_NULL) {
      create_window(1);  // the step counter (an int64 in a double-sized slot)
      check_mpi(MPI_Barrier(comm_), "MPI_Barrier");  // initial value visible before any fetch
      check_mpi(MPI_Win_lock_all(MPI_MODE_NOCHECK, win_), "MPI_Win_lock_all");
    }
    return;
  }
  // The technique's state goes into the coordinator's window; on a restart
  // of the same loop it was carried over by on_finish (what AWF learned).
  if (win_ == MPI_WIN_NULL) {
    calc_->save_state(state_);
    create_window(state_.size());
  }
  if (rank_ == options_.coordinator && fresh) {
    calc_->save_state(state_);
    write_state(state_);
  }
  check_mpi(MPI_Barrier(comm_), "MPI_Barrier");  // the state is in place before anyone reads it
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
  const int count = static_cast<int>(doubles_);
  state_.resize(doubles_);
  check_mpi(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, coord, 0, win_), "MPI_Win_lock");
  check_mpi(MPI_Get(state_.data(), count, MPI_DOUBLE, coord, 0, count, MPI_DOUBLE, win_), "MPI_Get");
  check_mpi(MPI_Win_flush(coord, win_), "MPI_Win_flush");
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
  check_mpi(MPI_Put(state_.data(), count, MPI_DOUBLE, coord, 0, count, MPI_DOUBLE, win_), "MPI_Put");
  check_mpi(MPI_Win_unlock(coord, win_), "MPI_Win_unlock");
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
  if (rank_ != options_.coordinator) return;
  if (granting_) {
    // Carry what the technique learned into the next execution of the loop.
    state_.resize(doubles_);
    check_mpi(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank_, 0, win_), "MPI_Win_lock");
    check_mpi(MPI_Get(state_.data(), static_cast<int>(doubles_), MPI_DOUBLE, rank_, 0, static_cast<int>(doubles_),
                      MPI_DOUBLE, win_),
              "MPI_Get");
    check_mpi(MPI_Win_unlock(rank_, win_), "MPI_Win_unlock");
    calc_->load_state(state_);
    for (int r = 0; r < static_cast<int>(report.ranks.size()); ++r) {
      const RankReport& rr = report.ranks[static_cast<std::size_t>(r)];
      if (rr.iterations > 0) calc_->record_time_step(r, rr.iterations, rr.work_time);
    }
    calc_->restart();
    calc_->save_state(state_);
    write_state(state_);
  } else if (options_.technique != Technique::STATIC) {
    // Reset the step counter; the next start's agreement orders it before any fetch.
    const std::int64_t zero = 0;
    std::int64_t old = 0;
    check_mpi(MPI_Fetch_and_op(&zero, &old, MPI_INT64_T, rank_, 0, MPI_REPLACE, win_), "MPI_Fetch_and_op");
    check_mpi(MPI_Win_flush(rank_, win_), "MPI_Win_flush");
  }
}

}  // namespace lb4mpi
