// DCA over MPI-3 one-sided communication (`001` §4, Fig. 3): the
// coordinator's CPU takes no part.
//
// Techniques with a closed form: the step counter lives in a window at the
// coordinator; every rank takes the next step with MPI_Fetch_and_op in a
// passive-target lock_all epoch, and computes its chunk from the closed form
// (ClosedSequence), as the two-sided DCA does.
//
// Techniques without one: the extra synchronization `001` §4 describes for
// AF. The window holds a lock word and the technique's whole state (step,
// start, batch, every rank's statistics: 9 numbers per rank). A rank takes
// the lock (an atomic swap of 1 that returns 0), reads the state, adds its
// own latest measurement, computes its chunk, writes the state back and
// releases the lock (a swap of 0) — O(P) data per chunk.
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

#include "context.hpp"
#include "feedback.hpp"
#include "runtime/pieces.hpp"
#include "runtime/scheduler.hpp"

namespace lb4mpi::rt {

class RmaScheduler final : public FedScheduler {
 public:
  RmaScheduler(Context& ctx, AdaptiveFeedback& feedback);
  ~RmaScheduler() override;
  RmaScheduler(const RmaScheduler&) = delete;
  RmaScheduler& operator=(const RmaScheduler&) = delete;

  void start(Index n) override;
  Grab acquire(bool may_wait) override;
  void finished(std::int64_t id, Index size, double work) override;
  void end(const std::vector<RankFigures>& all) override;

 private:
  [[nodiscard]] std::int64_t fetch_step();
  std::optional<Chunk> next_granted(std::int64_t& id);
  /// A window of at least `doubles` numbers at the coordinator, zeroed, in
  /// a lock_all epoch: one the channel kept (see rt::Channel::windows), else
  /// a new one (collective). Every rank takes the same.
  void take_window(std::size_t doubles);
  /// Gives the window back to the channel at the end of an execution.
  void give_back_window();
  /// Atomically replaces the int64 at `slot` of the coordinator's window
  /// with `value`, flushed; returns the value before.
  std::int64_t swap(int slot, std::int64_t value);
  // Granting: the window is [lock word | the technique's state].
  static constexpr int kLockSlot = 0;
  static constexpr int kStateSlot = 1;
  void lock_state();
  void unlock_state();
  void put_state(int target);  // state_ to the window at `target`, flushed
  void get_state(int target);  // the window at `target` into state_, flushed

  Context& ctx_;
  bool granting_ = false;  // the technique has no closed form
  MPI_Win win_ = MPI_WIN_NULL;
  std::size_t doubles_ = 0;   // of the window, this execution's part
  std::size_t capacity_ = 0;  // of the window, at the coordinator
  std::optional<ClosedSequence> seq_;
  std::vector<double> state_;
  PieceCutter cut_;
  ServeCadence cadence_;    // the coordinator's pieces (in_pieces_)
  bool in_pieces_ = false;  // the coordinator, with other ranks to let progress
  void let_others_progress();
  bool done_ = false;
};

}  // namespace lb4mpi::rt
