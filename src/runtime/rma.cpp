#include "runtime/rma.hpp"

#include "runtime/mpi_util.hpp"

namespace lb4mpi {

using detail::check_mpi;

RmaExecutor::RmaExecutor(MPI_Comm comm, Index first, Index last, const Options& options)
    : Executor(comm, first, last, options) {}

RmaExecutor::~RmaExecutor() {
  if (win_ != MPI_WIN_NULL) {
    MPI_Win_unlock_all(win_);
    MPI_Win_free(&win_);  // collective: every rank destroys its Loop
  }
}

void RmaExecutor::on_start() {
  if (win_ == MPI_WIN_NULL) {
    const MPI_Aint bytes = rank_ == options_.coordinator ? static_cast<MPI_Aint>(sizeof(std::int64_t)) : 0;
    check_mpi(MPI_Win_allocate(bytes, sizeof(std::int64_t), MPI_INFO_NULL, comm_, &counter_, &win_),
              "MPI_Win_allocate");
    if (rank_ == options_.coordinator) *counter_ = 0;
    // Make the initial value visible before anybody fetches.
    check_mpi(MPI_Barrier(comm_), "MPI_Barrier");
    check_mpi(MPI_Win_lock_all(MPI_MODE_NOCHECK, win_), "MPI_Win_lock_all");
  }
  if (!calc_ || calc_->shape().n != n_) calc_.emplace(options_.technique, LoopShape{n_, size_}, options_.params);
  walk_.emplace(*calc_);
  done_ = false;
}

Index RmaExecutor::fetch_step() {
  const std::int64_t one = 1;
  std::int64_t step = 0;
  check_mpi(MPI_Fetch_and_op(&one, &step, MPI_INT64_T, options_.coordinator, 0, MPI_SUM, win_),
            "MPI_Fetch_and_op");
  check_mpi(MPI_Win_flush(options_.coordinator, win_), "MPI_Win_flush");
  return step;
}

std::optional<Chunk> RmaExecutor::acquire() {
  if (done_) return std::nullopt;
  if (options_.technique == Technique::STATIC) {
    // STATIC needs no counter: block `rank_` of the balanced partition.
    done_ = true;
    inject_delay();
    std::optional<Chunk> c = walk_->chunk(rank_);
    if (c) new_chunk(*c);
    return c;
  }
  const Index step = fetch_step();
  inject_delay();  // the chunk calculation, on the rank that executes the chunk
  std::optional<Chunk> c = walk_->chunk(step);
  if (!c) {
    done_ = true;
    return std::nullopt;
  }
  new_chunk(*c);
  return c;
}

void RmaExecutor::on_finish(const Report&) {
  // Every rank is past its last fetch (finish() gathered them all): reset the
  // counter for a restart. The next start's agreement orders it before any fetch.
  if (rank_ == options_.coordinator && options_.technique != Technique::STATIC) {
    const std::int64_t zero = 0;
    std::int64_t old = 0;
    check_mpi(MPI_Fetch_and_op(&zero, &old, MPI_INT64_T, rank_, 0, MPI_REPLACE, win_), "MPI_Fetch_and_op");
    check_mpi(MPI_Win_flush(rank_, win_), "MPI_Win_flush");
  }
}

}  // namespace lb4mpi
