// What a rank of A2WS publishes as its time per task (`002` §2.1's t_j):
// the expected time of the tasks it still holds, estimated per owner of
// the tasks. Pure bookkeeping; no MPI.
//
// Why per owner. `002`'s equations read t_j as the speed of rank j: every
// task costs about the same, ranks differ. Over distributed data the tasks
// of one owner can cost several times those of another (lb4mpi-pisolver
// --imbalance 30 on 2 ranks: rank 0's tasks 4 times rank 1's). With the
// mean of all the tasks a rank ran, the overloaded rank's mean fell while
// it ran the light tasks it had taken, its own remaining (heavy) work
// looked short, and it stole again from the lightly loaded rank, which
// still published its light tasks' mean for the heavy tasks it now held:
// the two passed tasks back and forth (issue 34). Here n_j t_j is the sum,
// over the tasks j holds, of what a task of their owner took on j (before
// j ran one of an owner: what the rank it stole them from published).
#pragma once
#include <cstdint>
#include <vector>

#include "a2ws/smart.hpp"

namespace lb4mpi::a2ws {

class HeldWork {
 public:
  /// Rank `self` of `ranks` starts holding `own_tasks` tasks of its own.
  HeldWork(int ranks, int self, std::int64_t own_tasks);
  /// A task of `owner` left the deque to run here.
  void take(int owner);
  /// It ran in `seconds` (the time per task of an owner is the mean over
  /// its recent tasks here: older ones weigh less, held_work.cpp).
  void ran(int owner, double seconds);
  /// A stolen task of `owner` entered the deque; `victim_time`: the
  /// victim's published time per task (0: not measured yet).
  void took_in(int owner, double victim_time);
  /// The deque holds `held` tasks: thieves take from the tail, where a
  /// rank's own tasks lie (stolen ones are pushed at the head), so the
  /// missing ones are counted off its own first, then off the oldest taken in.
  void sync(std::int64_t held);
  /// The expected time of one task of `owner` here (0: nothing known).
  [[nodiscard]] double time_of(int owner) const;
  /// The entry to publish: n = tasks held (+1 with `running_owner` >= 0, a
  /// task of that owner running), t = their expected time per task, `left`
  /// = `stealable`. t stays 0 until a task ran here (the thieves then
  /// estimate it, `002` §2.2.1).
  [[nodiscard]] PeerView view(std::int64_t stealable, int running_owner) const;

 private:
  struct Owner {
    std::int64_t held = 0;
    std::int64_t ran = 0;
    double seconds = 0.0;
    double reference = 0.0;  // the victim's time per task when stolen
  };
  std::vector<Owner> owners_;  // by rank
  std::vector<int> order_;     // other owners with tasks taken in, oldest first
  int self_;
  std::int64_t held_ = 0;  // the sum of owners_[].held
  std::int64_t ran_ = 0;
  double seconds_ = 0.0;
};

}  // namespace lb4mpi::a2ws
