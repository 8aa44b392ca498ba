#include "feedback.hpp"

namespace lb4mpi::rt {

ChunkCalculator& AdaptiveFeedback::start(Index n, double now) {
  if (calc_) {
    calc_->restart(n);  // keeps what adaptive techniques learnt, also when N changed
  } else {
    calc_.emplace(config_.technique, LoopShape{n, ranks_}, config_.params);
    timed_ = calc_->needs_timing();
  }
  done_ = 0;
  work_ = 0.0;
  since_ = period_ = now;
  excluded_ = 0.0;
  return *calc_;
}

ChunkTiming AdaptiveFeedback::take(int rank, double now) {
  const ChunkTiming t{rank, done_, work_, now - since_};
  excluded_ += (now - period_) - t.elapsed_time;
  done_ = 0;
  work_ = 0.0;
  since_ = period_ = now;
  return t;
}

void AdaptiveFeedback::time_step(const std::vector<RankFigures>& all) {
  if (!calc_) return;
  for (int r = 0; r < static_cast<int>(all.size()); ++r) {
    const RankFigures& f = all[static_cast<std::size_t>(r)];
    if (f.iterations > 0) calc_->record_time_step(r, f.iterations, f.work_time);
  }
}

}  // namespace lb4mpi::rt
