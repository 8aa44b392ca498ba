// Which steps (chunk identities) of a loop are finished, for a coordinator
// that learns of them in any order and may hear of one twice:
// distributed-rma under recovery, where ranks take steps from the window without telling
// it and report each chunk when they finish it. Everything below the low
// mark is finished; the finished steps above it are kept in a set, so the
// memory is the spread of the steps in flight, not the loop.
#pragma once
#include <cstdint>
#include <set>

namespace lb4mpi::rt {

class StepsDone {
 public:
  void start() {
    low_ = 0;
    above_.clear();
  }
  /// Step `id` finished; true the first time.
  bool finish(std::int64_t id) {
    if (id < low_ || !above_.insert(id).second) return false;
    while (!above_.empty() && *above_.begin() == low_) {
      above_.erase(above_.begin());
      ++low_;
    }
    return true;
  }
  [[nodiscard]] bool done(std::int64_t id) const { return id < low_ || above_.count(id) != 0; }

 private:
  std::int64_t low_ = 0;           // steps below are finished
  std::set<std::int64_t> above_;  // finished steps from low_ on
};

}  // namespace lb4mpi::rt
