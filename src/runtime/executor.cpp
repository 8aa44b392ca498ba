#include "runtime/executor.hpp"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "lb4mpi/techniques/chunk_calculator.hpp"
#include "runtime/centralized.hpp"
#include "runtime/distributed.hpp"
#include "runtime/rma.hpp"
#include "runtime/clock.hpp"
#include "runtime/mpi_util.hpp"

namespace lb4mpi {

using detail::check_mpi;
using detail::now;

Executor::Executor(MPI_Comm comm, Index first, Index last, const Options& options, int channel)
    : channel_(&detail::private_channel(comm, channel)),
      comm_(channel_->comm),
      options_(options),
      first_(first),
      n_(last - first) {
  check_mpi(MPI_Comm_rank(comm_, &rank_), "MPI_Comm_rank");
  check_mpi(MPI_Comm_size(comm_, &size_), "MPI_Comm_size");
  // Loops are created collectively, so every rank numbers them alike.
  static int next_loop_id = 0;
  recorder_.configure(options_, next_loop_id++, rank_);
}

namespace {

// Trace times of every loop of the process count from one origin, taken at
// the first loop start — right after a collective, so the ranks' origins
// agree closely — and time steps follow each other on a rank's track.
double trace_origin() {
  static const double origin = now();
  return origin;
}

std::string validate(const Options& o, Index first, Index last, int size, bool channel_busy, int rank) {
  if (std::string e = detail::check_options(o, size); !e.empty()) return "lb4mpi: " + e;
  try {
    if (channel_busy) {
      throw Error("lb4mpi: another loop on this communicator is still in flight on rank " + std::to_string(rank) +
                  " (its next() has not yet returned \"no chunk\"); run a loop to its end before starting "
                  "the next one, or schedule loops in flight together with lb4mpi::LoopSet "
                  "(C: DLS_StartMLoops)");
    }
    if (last < first) {
      throw Error("lb4mpi: invalid loop range [" + std::to_string(first) + ", " + std::to_string(last) +
                  "): first must not exceed last");
    }
    o.params.validate(o.technique, last - first, size);
  } catch (const Error& e) {
    return e.what();
  }
  return {};
}

std::uint64_t hash_of(const Options& o, Index first, Index last) {
  detail::Hasher h;
  h.add(first).add(last);
  detail::add_options(h, o);
  return h.value();
}

}  // namespace

namespace detail {

std::string check_options(const Options& o, int size) {
  const std::string valid = " (valid: 0.." + std::to_string(size - 1) + ")";
  if (o.coordinator < 0 || o.coordinator >= size) {
    return "coordinator rank " + std::to_string(o.coordinator) + " is outside the communicator" + valid;
  }
  if (!(o.inject_delay_us >= 0.0)) {
    return "inject_delay_us (LB4MPI_INJECT_DELAY_US) must be >= 0, got " + std::to_string(o.inject_delay_us);
  }
  for (int r : o.delay_ranks) {
    if (r < 0 || r >= size) {
      return "delay rank " + std::to_string(r) + " (LB4MPI_DELAY_RANKS) is outside the communicator" + valid;
    }
  }
  return {};
}

void add_options(Hasher& h, const Options& o) {
  const auto& p = o.params;
  h.add(o.technique).add(o.mode).add(o.coordinator).add(o.break_after).add(o.request_when).add(p.min_chunk)
      .add(p.max_chunk).add(p.h).add(p.sigma).add(p.mu).add(p.alpha).add(p.fiss_batches).add(p.viss_x)
      .add(p.pls_swr).add(p.rnd_bounds).add(p.seed);
  h.add(p.weights.size());
  for (double w : p.weights) h.add(w);
  // Tracing gathers at the end of a loop: every rank must agree on it.
  h.add(o.trace.empty()).add(o.iterations_info);
}

}  // namespace detail

Executor::~Executor() { release_channel(); }

void Executor::release_channel() {
  if (channel_->busy == this) channel_->busy = nullptr;
}

void Executor::start(Index first, Index last) {
  const bool busy = channel_->busy != nullptr && channel_->busy != this;
  detail::agree(comm_, validate(options_, first, last, size_, busy, rank_), hash_of(options_, first, last));
  // Executions start collectively and in the same order on every rank, so
  // every rank draws the same epoch.
  message_epoch_ = channel_->next_epoch;
  channel_->next_epoch = channel_->next_epoch == INT32_MAX ? 1 : channel_->next_epoch + 1;
  channel_->busy = this;
  first_ = first;
  n_ = last - first;
  mine_ = RankReport{};
  piece_.reset();
  new_chunk_.reset();
  recorder_.begin(options_, n_, size_);  // clears; reserves for this execution
  drained_ = false;
  dropped_ = 0;
  exit_time_ = 0.0;
  delayed_ = options_.inject_delay_us > 0.0 &&
             (options_.delay_ranks.empty() ||
              std::find(options_.delay_ranks.begin(), options_.delay_ranks.end(), rank_) !=
                  options_.delay_ranks.end());
  (void)trace_origin();
  t_start_ = now();
  on_start();
}

void Executor::add_serve_time(double t0, double t1, bool traced) {
  mine_.serve_time += t1 - t0;
  if (traced) recorder_.serve(epoch_, t0 - trace_origin(), t1 - trace_origin());
}

void Executor::chunk_calculation() {
  ++mine_.calculations;
  if (delayed_) detail::spin_for_us(options_.inject_delay_us);
}

void Executor::close_piece() {
  if (!piece_) return;
  const double t = now();
  const double work = t - t_piece_;
  const Chunk piece = *piece_;
  piece_.reset();
  mine_.work_time += work;
  mine_.iterations += piece.size;
  mine_.finish_time = t - t_start_;
  recorder_.chunk_progress(t_piece_ - trace_origin(), t - trace_origin());
  piece_done(piece, work);
}

void Executor::end_chunk() { close_piece(); }

std::optional<Chunk> Executor::obtain(bool nonblocking, Poll& poll) {
  poll = Poll::Done;
  close_piece();
  if (drained_) return std::nullopt;
  const double t0 = now();
  nonblocking_ = nonblocking;
  would_block_ = serving_ = false;
  std::optional<Chunk> c = acquire();
  nonblocking_ = false;
  const double t1 = now();
  mine_.overhead += t1 - t0;
  if (!c) {
    if (would_block_) {
      poll = serving_ ? Poll::Serving : Poll::NotNow;
      return std::nullopt;
    }
    drained_ = true;
    release_channel();
    exit_time_ = t1 - t_start_;
    if (mine_.iterations == 0) mine_.finish_time = exit_time_;
    return std::nullopt;
  }
  if (new_chunk_) {
    recorder_.chunk(epoch_, first_ + new_chunk_->begin, new_chunk_->size, t0 - trace_origin(), t1 - trace_origin());
    new_chunk_.reset();
  }
  poll = Poll::Piece;
  piece_ = c;
  t_piece_ = t1;
  return Chunk{first_ + c->begin, c->size};
}

std::optional<Chunk> Executor::next() {
  Poll poll = Poll::Done;
  return obtain(false, poll);
}

Executor::Poll Executor::try_next(Chunk& piece) {
  Poll poll = Poll::Done;
  const std::optional<Chunk> c = obtain(true, poll);
  if (c) piece = *c;
  return poll;
}

Report Executor::finish() {
  // A rank that stops early still takes part in the protocol, so that no
  // other rank hangs; the iterations it dropped are not counted as executed
  // and are reported as an error on every rank.
  while (!drained_) {
    if (auto c = next()) dropped_ += c->size;
  }
  mine_.iterations -= dropped_;
  struct Row {
    RankReport r;
    double exit;
    Index dropped;
  };
  Row row{mine_, exit_time_, dropped_};
  std::vector<Row> rows(static_cast<std::size_t>(size_));
  detail::allgather(&row, sizeof(Row), MPI_BYTE, rows.data(), comm_);
  Report report;
  report.technique = options_.technique;
  report.mode = options_.mode;
  report.first = first_;
  report.last = first_ + n_;
  report.ranks.reserve(rows.size());
  Index dropped = 0;
  int dropper = -1;
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const Row& x = rows[r];
    report.ranks.push_back(x.r);
    report.t_par = std::max(report.t_par, x.exit);
    if (x.dropped > 0 && dropper < 0) dropper = static_cast<int>(r);
    dropped += x.dropped;
  }
  on_finish(report);
  recorder_.flush(comm_, rank_, options_.technique, options_.mode);
  if (dropped > 0) {
    throw Error("lb4mpi: finish() was called on rank " + std::to_string(dropper) +
                " before next() returned no chunk; " + std::to_string(dropped) + " of the loop's " +
                std::to_string(n_) + " iterations were handed out but not executed");
  }
  return report;
}

void Executor::restart(Index first, Index last) {
  if (!drained_) {
    throw Error("lb4mpi: restart() before the previous execution finished (call finish() first)");
  }
  ++epoch_;
  start(first, last);
}

std::unique_ptr<Executor> make_executor(MPI_Comm comm, Index first, Index last, const Options& options,
                                        int channel, LoopGroup* group) {
  std::unique_ptr<Executor> e;
  switch (options.mode) {
    case Mode::Centralized:
      e = std::make_unique<CentralizedExecutor>(comm, first, last, options, channel);
      break;
    case Mode::Distributed:
      e = std::make_unique<DistributedExecutor>(comm, first, last, options, channel);
      break;
    case Mode::DistributedRMA:
      e = std::make_unique<RmaExecutor>(comm, first, last, options, channel);
      break;
  }
  e->join_group(group);
  e->start(first, last);
  return e;
}

}  // namespace lb4mpi
