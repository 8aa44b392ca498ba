// Which steps (chunk identities) of a loop are finished, for a coordinator
// that learns of them in any order and may hear of one twice:
// distributed-rma under recovery, where ranks take steps from the window without telling
// it and report each chunk when they finish it. Everything below the low
// mark is finished; from it on, one flag per step, so the memory is the
// spread of the steps in flight, not the loop, and a step finished costs no
// allocation (a set's node each did: SS reports every iteration).
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <vector>

namespace lb4mpi::rt {

class StepsDone {
 public:
  void start() {
    low_ = 0;
    above_.clear();
  }
  /// Step `id` finished; true the first time.
  bool finish(std::int64_t id) {
    if (id < low_) return false;
    const auto k = static_cast<std::size_t>(id - low_);
    if (k >= above_.size()) above_.resize(k + 1, 0);
    if (above_[k] != 0) return false;
    above_[k] = 1;
    while (!above_.empty() && above_.front() != 0) {
      above_.pop_front();
      ++low_;
    }
    return true;
  }
  [[nodiscard]] bool done(std::int64_t id) const {
    if (id < low_) return true;
    const auto k = static_cast<std::size_t>(id - low_);
    return k < above_.size() && above_[k] != 0;
  }

 private:
  std::int64_t low_ = 0;            // steps below are finished
  std::deque<std::uint8_t> above_;  // from low_ on: 1 finished (the front never is)
};

/// The steps one rank finished: 8 bytes each, in order. A rank takes its
/// steps from the counter in increasing order, so a step is appended; only
/// a copy (an older step) is inserted in the middle.
class StepList {
 public:
  void clear() { steps_.clear(); }
  void add(std::int64_t id) {
    if (steps_.empty() || steps_.back() < id) {
      steps_.push_back(id);
      return;
    }
    const auto it = std::lower_bound(steps_.begin(), steps_.end(), id);
    if (it == steps_.end() || *it != id) steps_.insert(it, id);
  }
  [[nodiscard]] bool contains(std::int64_t id) const { return std::binary_search(steps_.begin(), steps_.end(), id); }

 private:
  std::vector<std::int64_t> steps_;
};

}  // namespace lb4mpi::rt
