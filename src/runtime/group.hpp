// Several loops in flight at once (`003` §4): one executor per loop, each on
// its own channel (private communicator), and the progress they share — a
// rank that waits in one loop serves and receives for all of them, so no
// loop waits for a rank that is busy in another.
#pragma once
#include <memory>
#include <vector>

#include "runtime/executor.hpp"

namespace lb4mpi {

class LoopGroup {
 public:
  struct Member {
    Index first = 0;
    Index last = 0;
    Options options;
  };
  /// Collective over `comm`.
  LoopGroup(MPI_Comm comm, const std::vector<Member>& loops);

  [[nodiscard]] int size() const { return static_cast<int>(execs_.size()); }
  /// Non-blocking: the next piece of loop `l` for this rank, or nullopt when
  /// it has none right now (a reply is on its way) or the loop is done.
  std::optional<Chunk> next(int l);
  /// Blocking: the next piece of the lowest-numbered loop that has one for
  /// this rank; false when every loop is done for this rank.
  bool next_any(int& loop, Chunk& piece);
  /// Ends the current piece (of whichever loop).
  void end_chunk();
  [[nodiscard]] bool done(int l) const { return execs_.at(static_cast<std::size_t>(l))->drained(); }
  /// True when every loop is done for this rank. When a whole round over the
  /// loops found no work, waits for the next message first (no busy wait).
  bool terminated();
  /// Collective: the reports of all loops.
  std::vector<Report> finish();
  /// Collective: the next time step, with new ranges.
  void restart(const std::vector<std::pair<Index, Index>>& ranges);

  // Progress shared by the executors.
  int progress_all();
  /// Waits until one message of any loop arrives and handles it; false when
  /// no loop waits for a message (one-sided loops): the caller polls.
  bool wait_any();

 private:
  /// try_next of loop `l`; the time it takes (obtaining a piece, serving the
  /// requests that arrived) is loop l's, not the other loops' (tExclude).
  Executor::Poll poll(int l, Chunk& piece);
  /// `003` tExclude: `seconds` spent on loop `l` do not count in the elapsed
  /// times the other loops' AWF-D/E learn from.
  void exclude_from_others(int l, double seconds);

  std::vector<std::unique_ptr<Executor>> execs_;
  int active_ = -1;           // loop whose piece is being executed
  double piece_start_ = 0.0;
  bool found_work_ = true;    // a piece was handed out since the last terminated()
};

}  // namespace lb4mpi
