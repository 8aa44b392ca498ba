// The chunk calculation of one loop across its executions, shared by every
// execution model: the calculator's lifecycle (made at the first execution,
// restarted — keeping what adaptive techniques learnt — at the next ones,
// also when N changes), this rank's measurements since it last reported
// them, and AWF's learning from whole time steps.
#pragma once
#include <optional>
#include <vector>

#include "lb4mpi/techniques/chunk_calculator.hpp"
#include "runtime/config.hpp"
#include "runtime/figures.hpp"
#include "runtime/scheduler.hpp"

namespace lb4mpi::rt {

class AdaptiveFeedback {
 public:
  AdaptiveFeedback(const ExecConfig& config, int ranks) : config_(config), ranks_(ranks) {}

  /// The calculator of an execution over `n` iterations.
  ChunkCalculator& start(Index n, double now);
  ChunkCalculator& calc() { return *calc_; }
  [[nodiscard]] const ChunkCalculator& calc() const { return *calc_; }
  /// Whether the technique learns from chunk timings (then every piece is timed).
  [[nodiscard]] bool timed() const { return timed_; }

  /// A piece of `size` iterations took `work` seconds on this rank.
  void add(Index size, double work) {
    done_ += size;
    work_ += work;
  }
  /// `003` tExclude: time spent on other loops of a set.
  void exclude(double seconds) { since_ += seconds; }
  /// Seconds the measurements taken in this execution were shorter than
  /// the periods they cover: the tExclude time AWF-D/E did not learn from.
  [[nodiscard]] double excluded() const { return excluded_; }
  /// Whether a measurement is waiting to be reported.
  [[nodiscard]] bool pending() const { return done_ > 0; }
  /// This rank's measurement since it last took one (or since the start),
  /// and a new measuring period from `now`.
  ChunkTiming take(int rank, double now);
  /// Restarts the measuring period at `now`, dropping nothing.
  void restart_period(double now) { since_ = period_ = now; }

  /// AWF: every rank's totals of the execution that ended, learnt before the next.
  void time_step(const std::vector<RankFigures>& all);

 private:
  ExecConfig config_;
  int ranks_;
  bool timed_ = false;
  std::optional<ChunkCalculator> calc_;
  Index done_ = 0;
  double work_ = 0.0;
  double since_ = 0.0;   // the measuring period's start, moved on by exclude()
  double period_ = 0.0;  // ... and where it really started
  double excluded_ = 0.0;
};

/// A scheduler that learns through an AdaptiveFeedback: `003` tExclude
/// (time on other loops of a set) goes to it.
class FedScheduler : public Scheduler {
 public:
  void exclude(double seconds) override { fb_.exclude(seconds); }

 protected:
  explicit FedScheduler(AdaptiveFeedback& feedback) : fb_(feedback) {}
  AdaptiveFeedback& fb_;
};

}  // namespace lb4mpi::rt
