// The expected time of the tasks a rank of A2WS holds: see a2ws/held_work.hpp.
#include "a2ws/held_work.hpp"

#include <algorithm>

namespace lb4mpi::a2ws {

HeldWork::HeldWork(int ranks, int self, std::int64_t own_tasks)
    : owners_(static_cast<std::size_t>(ranks)), self_(self), held_(own_tasks) {
  owners_[static_cast<std::size_t>(self)].held = own_tasks;
}

namespace {

// A mean over the recent tasks: once `ran` reaches twice kRecentTasks, both
// sums are halved (the mean stays, older tasks weigh half as much). A start
// that ran slow (caches, page faults, a peer still setting up: on 2 ranks of
// pisolver the first 8 ms ran the heavy tasks at 2.7 times their steady
// time) then fades within a few hundred tasks instead of lasting the loop,
// while one task's noise (a preemption) moves the mean by 1/64 at most.
constexpr std::int64_t kRecentTasks = 64;

void add_recent(std::int64_t& ran, double& seconds, double task) {
  if (ran >= 2 * kRecentTasks) {
    ran /= 2;
    seconds /= 2.0;
  }
  ++ran;
  seconds += task;
}

}  // namespace

void HeldWork::take(int owner) {
  Owner& o = owners_[static_cast<std::size_t>(owner)];
  if (o.held > 0) {
    --o.held;
    --held_;
  }
}

void HeldWork::ran(int owner, double seconds) {
  Owner& o = owners_[static_cast<std::size_t>(owner)];
  add_recent(o.ran, o.seconds, seconds);
  add_recent(ran_, seconds_, seconds);
}

void HeldWork::took_in(int owner, double victim_time) {
  Owner& o = owners_[static_cast<std::size_t>(owner)];
  if (owner != self_ && std::find(order_.begin(), order_.end(), owner) == order_.end()) order_.push_back(owner);
  ++o.held;
  ++held_;
  if (victim_time > 0.0) o.reference = victim_time;
}

void HeldWork::sync(std::int64_t held) {
  std::int64_t excess = held_ - std::max<std::int64_t>(0, held);
  const auto drop = [this, &excess](Owner& o) {
    const std::int64_t d = std::min(excess, o.held);
    o.held -= d;
    held_ -= d;
    excess -= d;
  };
  if (excess <= 0) return;
  drop(owners_[static_cast<std::size_t>(self_)]);
  for (int r : order_) {
    if (excess <= 0) break;
    drop(owners_[static_cast<std::size_t>(r)]);
  }
}

double HeldWork::time_of(int owner) const {
  const Owner& o = owners_[static_cast<std::size_t>(owner)];
  if (o.ran > 0) return o.seconds / static_cast<double>(o.ran);
  if (o.reference > 0.0) return o.reference;
  return ran_ > 0 ? seconds_ / static_cast<double>(ran_) : 0.0;
}

PeerView HeldWork::view(std::int64_t stealable, int running_owner) const {
  double remaining = 0.0;
  double tasks = 0.0;
  const auto add = [&](int owner, std::int64_t n) {
    if (n <= 0) return;
    tasks += static_cast<double>(n);
    remaining += static_cast<double>(n) * time_of(owner);
  };
  add(self_, owners_[static_cast<std::size_t>(self_)].held);
  for (int r : order_) add(r, owners_[static_cast<std::size_t>(r)].held);
  if (running_owner >= 0) add(running_owner, 1);
  PeerView v;
  v.tasks = tasks;
  v.left = static_cast<double>(stealable);
  if (ran_ > 0) v.task_time = tasks > 0.0 ? remaining / tasks : seconds_ / static_cast<double>(ran_);
  return v;
}

}  // namespace lb4mpi::a2ws
