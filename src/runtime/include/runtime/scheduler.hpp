// The one narrow interface every execution model implements on a rank:
// "give me my next piece of this loop" (acquire, whose outcome is a value),
// "I finished a piece of chunk C" (finished), and the two collective points
// of an execution (start, end). Execution models are peers behind it:
// centralized coordinator and worker, distributed two-sided coordinator and
// worker, distributed RMA, and ranks that need no assignment (STATIC).
#pragma once
#include <cstdint>
#include <vector>

#include "lb4mpi/types.hpp"
#include "runtime/figures.hpp"

namespace lb4mpi::rt {

/// The outcome of acquire().
struct Grab {
  enum class Kind : std::uint8_t {
    Piece,    ///< `piece` is this rank's next piece of work
    NotNow,   ///< nothing right now (a reply is on its way); only when acquire(may_wait = false)
    Serving,  ///< no piece will come for this rank any more, but it still serves others
    Done,     ///< the loop is over for this rank
  };
  Kind kind = Kind::Done;
  Chunk piece;                 ///< 0-based within the loop
  std::int64_t chunk_id = -1;  ///< the chunk the piece belongs to (its scheduling step)
  bool new_chunk = false;      ///< the piece starts a new chunk ...
  Chunk chunk;                 ///< ... which is this one (0-based)

  static Grab of(Kind k) {
    Grab g;
    g.kind = k;
    return g;
  }
};

class Scheduler {
 public:
  virtual ~Scheduler() = default;
  /// A new execution over [0, n) (collective: every rank, after the
  /// agreement; posts what the model keeps posted, sends first chunks).
  virtual void start(Index n) = 0;
  /// This rank's next piece. may_wait = false (loops in flight together):
  /// never waits, answers NotNow instead.
  virtual Grab acquire(bool may_wait) = 0;
  /// A piece of chunk `id` of `size` iterations ended; `work` is its time in
  /// the loop body [s] when the execution times pieces (else 0).
  virtual void finished(std::int64_t id, Index size, double work) = 0;
  /// Collective, after every rank's figures were exchanged: what is learnt
  /// across executions (AWF) and what is kept for the next one.
  virtual void end(const std::vector<RankFigures>& /*all*/) {}
  /// `003` tExclude: `seconds` this rank spent on other loops of its set do
  /// not count in the elapsed times this loop learns from.
  virtual void exclude(double /*seconds*/) {}
  /// Loops in flight together, bounded waits (Context::bounded): this rank
  /// works on another loop of its set; a coordinator answers what arrived
  /// and says it is alive, so that its silence in this loop is not taken
  /// for a failure.
  virtual void tend() {}
  /// Loops in flight together, bounded waits: the loop ended on this rank,
  /// but its coordinator failed since (another loop of the set found it, or
  /// a successor announced itself) — what it committed is gone with it.
  [[nodiscard]] virtual bool orphaned() const { return false; }
  /// An orphaned loop goes on under the successor (which commits again what
  /// the survivors kept, and has the rest executed).
  virtual void recover() {}
  /// Whether the model carries results to a coordinator (two-sided models);
  /// otherwise they are committed on the rank that executed them.
  [[nodiscard]] virtual bool ships_results() const { return false; }
  /// Recovery, on the coordinator: chunks handed out again this execution.
  [[nodiscard]] virtual Index reissued() const { return 0; }
};

}  // namespace lb4mpi::rt
