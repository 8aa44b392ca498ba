// The narrow interface every execution model implements ("give me my next
// piece of loop L", "I finished it", "the loop is over"), and the
// bookkeeping they share: timing, report gathering, the start agreement.
#pragma once
#include <mpi.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "lb4mpi/options.hpp"
#include "lb4mpi/report.hpp"
#include "lb4mpi/types.hpp"
#include "runtime/mpi_util.hpp"
#include "runtime/trace.hpp"

namespace lb4mpi {

class LoopGroup;

class Executor {
 public:
  /// `channel` selects lb4mpi's private duplicate of `comm` (loops in flight
  /// together use different channels).
  Executor(MPI_Comm comm, Index first, Index last, const Options& options, int channel = 0);
  virtual ~Executor();
  Executor(const Executor&) = delete;
  Executor& operator=(const Executor&) = delete;

  /// Next piece for this rank (ends the previous one), nullopt when done.
  std::optional<Chunk> next();
  /// Non-blocking next() for loops in flight together: a piece, "nothing
  /// right now" (a reply is still on its way), "serving" (no piece will come
  /// for this rank any more, but it still answers other ranks, so it is not
  /// done), or "done".
  enum class Poll : std::uint8_t { Piece, NotNow, Serving, Done };
  Poll try_next(Chunk& piece);
  [[nodiscard]] bool drained() const { return drained_; }
  /// Seconds this rank spent in other loops of its group since the last call:
  /// excluded from the elapsed times AWF-D/E learn from (`003` tExclude).
  virtual void exclude_time(double /*seconds*/) {}
  // ---- group progress (loops in flight together)
  void join_group(LoopGroup* group) { group_ = group; }
  /// Handles whatever messages are ready without blocking; count handled.
  virtual int progress_local() { return 0; }
  /// The request a blocking wait of this rank would wait on (nullptr: none).
  virtual MPI_Request* waitable() { return nullptr; }
  /// Called after the group completed waitable() with `status`.
  virtual void on_waited(const MPI_Status& /*status*/) {}
  /// Ends the current piece (its time counts as work).
  void end_chunk();
  /// Collective: drains, gathers and returns the report on every rank.
  Report finish();
  /// Collective: next execution of the same loop over [first, last).
  void restart(Index first, Index last);

  [[nodiscard]] const Options& options() const { return options_; }

  /// Collective: validates, agrees with all ranks, starts the execution.
  /// Called by make_executor() and restart(); throws lb4mpi::Error on every rank.
  void start(Index first, Index last);

 protected:
  /// Execution-model specific: the next piece (0-based iteration indices,
  /// relative to first) or nullopt. Time spent here counts as overhead.
  virtual std::optional<Chunk> acquire() = 0;
  /// Called when the rank's current piece has ended (work accounting done).
  virtual void piece_done(const Chunk& piece, double work_time) = 0;
  /// Called after every rank drained, before the report is gathered.
  virtual void on_finish(const Report& report) = 0;
  /// Starts an execution (after the agreement; first_, n_, epoch_ are set):
  /// e.g. the coordinator's initial sends. Called again for every restart().
  virtual void on_start() = 0;

  /// A chunk size is calculated here, on this rank: counted in the report
  /// (RankReport::calculations) and delayed when delay injection is
  /// configured for this rank (`001` §6).
  void chunk_calculation();
  /// A new chunk for this rank (not a sub-piece): counted in the report and
  /// traced. `c` is 0-based within the loop.
  void new_chunk(const Chunk& c) {
    ++mine_.chunks;
    new_chunk_ = c;
  }
  /// Coordinator: time spent serving other ranks' requests, [t0, t1] from now().
  void add_serve_time(double t0, double t1, bool traced);

  /// acquire() in non-blocking mode sets this when it returns nullopt only
  /// because a reply has not arrived yet.
  [[nodiscard]] bool nonblocking() const { return nonblocking_; }
  void would_block() { would_block_ = true; }
  /// Like would_block(), but no piece will ever come for this rank: waiting
  /// for one (idle probing) would wait for nothing.
  void only_serving() { would_block_ = serving_ = true; }
  /// Whether would_block() was called in the current acquire().
  [[nodiscard]] bool blocked() const { return would_block_; }

  LoopGroup* group_ = nullptr;
  detail::Channel* channel_;  ///< lb4mpi's private duplicate of the user's communicator, and its state
  MPI_Comm comm_;             ///< channel_->comm
  int rank_ = 0;
  int size_ = 1;
  Options options_;
  Index first_ = 0;
  Index n_ = 0;
  int epoch_ = 0;  ///< executions of this loop so far (the trace's time step)
  /// Unique per execution on this channel, the same on every rank: every
  /// message carries it, so that a message of another execution (one that
  /// was abandoned by an exception) is recognized and dropped.
  std::int32_t message_epoch_ = 0;

 private:
  void close_piece();
  void release_channel();
  std::optional<Chunk> obtain(bool nonblocking, Poll& poll);
  bool nonblocking_ = false;
  bool would_block_ = false;
  bool serving_ = false;

  RankReport mine_;
  double t_start_ = 0.0;
  double t_piece_ = 0.0;
  double exit_time_ = 0.0;
  std::optional<Chunk> piece_;
  bool drained_ = false;
  bool delayed_ = false;
  Index dropped_ = 0;
  std::optional<Chunk> new_chunk_;  // announced by acquire(), traced by next()
  detail::Recorder recorder_;
};

namespace detail {
/// The checks of `o` that do not depend on a loop's range or technique
/// (coordinator, delay injection): "" when fine, else the message (without
/// the "lb4mpi: " prefix).
std::string check_options(const Options& o, int size);
/// Adds to `h` every option that all ranks must share for a loop.
void add_options(Hasher& h, const Options& o);
}  // namespace detail

/// Creates the executor of options.mode (collective over comm).
std::unique_ptr<Executor> make_executor(MPI_Comm comm, Index first, Index last, const Options& options,
                                        int channel = 0, LoopGroup* group = nullptr);

}  // namespace lb4mpi
