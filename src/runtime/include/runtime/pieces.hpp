// How a rank executes a chunk in pieces, so that it can do something
// between them: a coordinator serves requests (break_after), a worker asks
// for its next chunk before the current one ends (request_when). One cutter
// for both (and for a stealing victim that answers thieves).
#pragma once
#include <algorithm>
#include <cstdint>

#include "lb4mpi/types.hpp"
#include "runtime/config.hpp"
#include "runtime/waiting.hpp"

namespace lb4mpi::rt {

/// The chunk being executed and what is left of it.
class PieceCutter {
 public:
  void begin(const Chunk& c, std::int64_t id) {
    pos_ = c.begin;
    end_ = c.end();
    id_ = id;
  }
  void clear() { pos_ = end_ = 0; }
  [[nodiscard]] bool empty() const { return pos_ >= end_; }
  [[nodiscard]] Index left() const { return end_ - pos_; }
  [[nodiscard]] std::int64_t id() const { return id_; }
  /// The next piece, of at most `at_most` (>= 1) iterations.
  Chunk take(Index at_most) {
    const Index k = std::min(std::max<Index>(1, at_most), end_ - pos_);
    const Chunk piece{pos_, k};
    pos_ += k;
    return piece;
  }

 private:
  Index pos_ = 0;
  Index end_ = 0;
  std::int64_t id_ = -1;
};

/// When a coordinator that executes its own chunks checks for requests: after
/// `break_after` iterations when it is set (>= 0, as LB4MPI), otherwise every
/// kServeLatency seconds — counted in iterations from the iteration time
/// measured between two checks, so that no clock is read between them and a
/// request waits about kServeLatency at most, whatever an iteration costs.
class ServeCadence {
 public:
  /// `latency`: seconds between automatic checks.
  /// Under the Block wait policy both latencies are kBlockLatencyFactor
  /// times longer (waiting.hpp).
  void configure(int break_after, double latency = kServeLatency) {
    latency_ = latency * latency_factor();
    answer_latency_ = kAnswerLatency * latency_factor();
    fixed_ = break_after >= 0;
    every_ = fixed_ ? std::max<Index>(1, break_after) : 1;
    left_ = every_;
    last_ = -1.0;
    per_iteration_ = 0.0;
    since_answer_ = 0;
  }
  /// Iterations the coordinator may execute before the next check.
  [[nodiscard]] Index budget() const { return std::max<Index>(1, left_); }
  [[nodiscard]] bool due() const { return left_ <= 0; }
  void executed(Index iterations) {
    left_ -= iterations;
    since_answer_ += iterations;
  }
  /// Between two of its own chunks, whether the coordinator looks for
  /// requests: automatically once it executed about kAnswerLatency of work
  /// since it last looked (counted in iterations like the checks, no
  /// clock read): a waiting worker then waits about a round trip more at
  /// most, while chunks far shorter than a round trip (SS over an empty
  /// body) no longer pay for a test and an answer each (issue 32). With a
  /// fixed break_after: always, as LB4MPI.
  [[nodiscard]] bool answer_due() const {
    if (fixed_) return true;
    const double every = static_cast<double>(every_) * (answer_latency_ / latency_);
    return static_cast<double>(since_answer_) >= every;
  }
  /// The coordinator looked for requests.
  void answered() { since_answer_ = 0; }
  /// A check happens at `now` (seconds); the next is planned.
  void checked(double now) {
    if (!fixed_ && last_ >= 0.0) {
      const Index ran = every_ - left_;  // iterations since the last check
      const double dt = now - last_;
      if (ran > 0 && dt > 0.0) {
        // The estimate of an iteration's time follows a rise at once and
        // a fall slowly (x0.8 per check): iterations of one loop can differ
        // 100-fold (Mandelbrot: points inside the set and outside), and
        // a count learnt on cheap ones must not stretch a piece over
        // expensive ones.
        const double per_iteration = dt / static_cast<double>(ran);
        per_iteration_ = std::max(per_iteration, 0.8 * per_iteration_);
        every_ = static_cast<Index>(std::clamp(latency_ / per_iteration_, 1.0, 1.0e9));
      }
    }
    last_ = now;
    left_ = every_;
  }
  [[nodiscard]] bool automatic() const { return !fixed_; }
  /// The rank did something else (waited, communicated) since the last
  /// check: the next estimate measures from `now`, so that only the time of
  /// the iterations executed counts (a stealing owner between pieces).
  void resume(double now) {
    if (last_ >= 0.0) last_ = now;
  }

 private:
  bool fixed_ = false;
  Index every_ = 1;
  Index left_ = 1;
  double last_ = -1.0;
  double per_iteration_ = 0.0;  // seconds: the estimate the count comes from
  double latency_ = kServeLatency;
  double answer_latency_ = kAnswerLatency;
  Index since_answer_ = 0;      // iterations since the coordinator last looked for requests
};

/// requestWhen: the iterations of a chunk left when a worker asks for its
/// next one (so that the reply travels while they execute).
inline Index request_point(int request_when, Index chunk_size) {
  if (request_when >= 0) return request_when;
  return std::max<Index>(1, (15 * chunk_size) / 100);  // automatic: 15 %, as the original
}

}  // namespace lb4mpi::rt
