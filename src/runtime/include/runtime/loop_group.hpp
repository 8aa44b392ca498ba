// Several loops in flight at once (`003` §4): one Execution per loop, each
// on its own channel, and one progress engine they share — a rank that
// waits in one loop serves and receives for all of them, so no loop waits
// for a rank that is busy in another.
#pragma once
#include <memory>
#include <optional>
#include <vector>

#include "runtime/execution.hpp"

namespace lb4mpi::rt {

class LoopGroup {
 public:
  struct Member {
    ExecConfig config;
    ChunkObserver* observer = nullptr;
    /// When this loop has no piece for the rank right now, next(l) waits for
    /// one (the idle probing of `003`'s implementation) instead of returning.
    bool idle_probing = false;
  };
  /// Not yet collective: start() each loop.
  LoopGroup(MPI_Comm comm, const std::vector<Member>& loops);

  [[nodiscard]] int size() const { return static_cast<int>(execs_.size()); }
  Execution& loop(int l) { return *execs_.at(static_cast<std::size_t>(l)); }
  [[nodiscard]] const Execution& loop(int l) const { return *execs_.at(static_cast<std::size_t>(l)); }

  /// The next piece of loop `l` for this rank, or nullopt when it has none
  /// right now (unless idle probing) or the loop is done for it.
  std::optional<Chunk> next(int l);
  /// The next piece of the lowest-numbered loop that has one for this rank,
  /// waiting when none has; false when every loop is done for this rank
  /// (under recovery: and their ends exchanged, LoopGroup::concluded).
  bool next_any(int& loop, Chunk& piece);
  /// Ends the current piece (of whichever loop).
  void end_piece();
  /// Results of the current piece (of whichever loop): Execution::attach.
  void attach(const void* data, std::size_t bytes);
  [[nodiscard]] bool done(int l) const { return loop(l).drained(); }
  /// True when every loop is done for this rank. When a whole round over the
  /// loops found no work, waits for the next message first (no busy wait).
  bool terminated();
  /// Called before a new time step starts.
  void reset() {
    active_ = -1;
    found_work_ = true;
  }

 private:
  /// poll() of loop `l`; the time it takes is loop l's, not the others' (tExclude).
  /// `copies_later`: a copy waits (Execution::poll); `deferred` set when one did.
  Grab::Kind poll(int l, Chunk& piece, bool copies_later = false, bool* deferred = nullptr);
  void exclude_from_others(int l, double seconds);
  void wait_for_anything();
  /// Whether loop `l` is drained, after reopening it when its coordinator failed since (Execution::reopen).
  bool drained(int l);
  /// Every loop drained: under recovery, their end-of-loop exchanges
  /// (Execution::conclude). False when one reopened: the coordinator failed.
  bool concluded();
  void began(int l);

  ProgressEngine engine_;
  std::vector<std::unique_ptr<Execution>> execs_;
  std::vector<bool> idle_probing_;
  bool bounded_ = false;  // bounded loops (recovery): no wait longer than a nap
  static constexpr double kNap = 1e-3;  // seconds
  double tended_ = 0.0;  // when the loops were last tended (Execution::tend)
  std::vector<char> known_failed_;  // per rank: failed, for every loop (Execution::share_failures)
  int active_ = -1;  // loop whose piece is being executed
  double piece_start_ = 0.0;
  bool found_work_ = true;  // a piece was handed out since the last terminated()
  std::uint64_t seen_completions_ = 0;  // the engine's completions at the last terminated()
};

}  // namespace lb4mpi::rt
