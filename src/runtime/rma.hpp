// DCA over MPI-3 one-sided communication (`001` §4, Fig. 3): the
// coordinator's CPU takes no part.
//
// Techniques with a closed form: the step counter lives in a window at the
// coordinator; every rank takes the next step with MPI_Fetch_and_op in a
// passive-target lock_all epoch, and computes its chunk from the closed form
// (ClosedSequence), as the two-sided DCA does. The first P steps need no
// atomic: rank r takes step r first, and the counter counts the steps after
// them (P + its value), so that P ranks do not queue at one window at the
// start (4096 simulated ranks: 256 leaders at the global level waited up
// to 0.4 ms for their first step).
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
#include "rma_window.hpp"
#include "runtime/pieces.hpp"
#include "runtime/scheduler.hpp"

namespace lb4mpi::rt {

class RmaScheduler final : public FedScheduler {
 public:
  RmaScheduler(Context& ctx, AdaptiveFeedback& feedback);
  RmaScheduler(const RmaScheduler&) = delete;
  RmaScheduler& operator=(const RmaScheduler&) = delete;

  void start(Index n) override;
  Grab acquire(bool may_wait) override;
  void finished(std::int64_t id, Index size, double work) override;
  void end(const std::vector<RankFigures>& all) override;

 private:
  std::optional<Chunk> next_granted(std::int64_t& id);
  // Granting: the window is [lock word | the technique's state].
  static constexpr int kLockSlot = 0;
  static constexpr int kStateSlot = 1;
  void lock_state();
  void unlock_state();
  void put_state(int target);  // state_ to the window at `target`, flushed
  void get_state(int target);  // the window at `target` into state_, flushed

  Context& ctx_;
  bool granting_ = false;  // the technique has no closed form
  RmaWindow win_;
  std::optional<ClosedSequence> seq_;
  std::vector<double> state_;
  PieceCutter cut_;
  ServeCadence cadence_;    // the coordinator's pieces (in_pieces_)
  bool in_pieces_ = false;  // the coordinator, with other ranks to let progress
  void let_others_progress();
  bool done_ = false;
  bool first_step_ = false;  // the closed form: this rank's first step (its rank) not yet taken
};

}  // namespace lb4mpi::rt
