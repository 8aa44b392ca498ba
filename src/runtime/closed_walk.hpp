// DCA's assignment without a coordinator-held start index: the start of
// step i is the sum of the (bounded) closed-form sizes of steps 0..i-1, so a
// rank that knows i knows its chunk. Each rank walks the sequence forward
// (its steps only increase), so a whole loop costs O(steps) per rank; fixed
// sizes and STATIC have a closed prefix and cost O(1).
#pragma once
#include <optional>

#include "lb4mpi/techniques/chunk_calculator.hpp"

namespace lb4mpi::detail {

class ClosedWalk {
 public:
  explicit ClosedWalk(const ChunkCalculator& calc) : calc_(&calc) {
    const Technique t = calc.technique();
    fixed_ = (t == Technique::SS || t == Technique::FSC || t == Technique::mFSC);
    if (fixed_) fixed_size_ = calc.closed_size(0);
  }

  /// The chunk of step `step` (steps must not decrease between calls), or
  /// nullopt when the step starts at or beyond the end of the loop.
  std::optional<Chunk> chunk(Index step) {
    const Index n = calc_->shape().n;
    Index start = 0;
    Index size = 0;
    if (fixed_) {
      // Guard the product: beyond n / size the step is past the end anyway.
      if (step > n / fixed_size_) return std::nullopt;
      start = step * fixed_size_;
      size = fixed_size_;
    } else if (calc_->technique() == Technique::STATIC) {
      const int p = calc_->shape().p;
      if (step >= p) return std::nullopt;
      const Index q = n / p;
      const Index r = n % p;
      start = step * q + std::min<Index>(step, r);
      size = q + (step < r ? 1 : 0);
    } else {
      while (step_ < step && start_ < n) {
        start_ += calc_->closed_size(step_);
        ++step_;
      }
      if (step_ < step) return std::nullopt;  // the loop ended before this step
      start = start_;
      size = calc_->closed_size(step);
    }
    if (start >= n || size <= 0) return std::nullopt;
    return Chunk{start, std::min(size, n - start)};
  }

 private:
  const ChunkCalculator* calc_;
  bool fixed_ = false;
  Index fixed_size_ = 1;
  Index step_ = 0;   // steps summed so far
  Index start_ = 0;  // start of step_
};

}  // namespace lb4mpi::detail
