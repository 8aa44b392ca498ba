// TFSS: trapezoid factoring self-scheduling, `001` Eq. 8 (recursive) and Eq. 18 (closed).
#include <algorithm>

#include "rules.hpp"
#include "sequences.hpp"

namespace lb4mpi::detail {
namespace {

class TfssRule final : public ChunkRule {
 public:
  explicit TfssRule(LoopShape shape) : p_(shape.p), tss_(shape.n, shape.p) {}

  // `001` Eq. 8: at i mod P = 0 the mean of the next P TSS chunks, else K_{i-1}.
  // The mean depends on the batch only, so both forms coincide.
  Index next(const StepContext& ctx) override {
    if (ctx.step % p_ == 0 || current_ == 0) current_ = closed(ctx.step);
    return current_;
  }

  // `001` Eq. 18: batch b gets floor((K^TSS_{bP} + ... + K^TSS_{bP+P-1}) / P),
  // summing the unclipped TSS sequence (each term >= 1) in O(1).
  [[nodiscard]] Index closed(Index step) const override {
    // Past index K_0 every TSS term is K_{S-1} (C >= 1) or K_0 (C = 0): the
    // sum of any later batch is that of the batch at K_0, and the range
    // summed stays far from overflowing for any step (a step near 2^63 did).
    const Index from = std::min((step / p_) * p_, tss_.first());
    return tss_.sum(from, p_) / p_;
  }

  // Shrinking: batch 0 is the largest.
  [[nodiscard]] Index closed_peak() const override { return closed(0); }

  void restart() override { current_ = 0; }

 private:
  Index p_;
  TssSequence tss_;
  Index current_ = 0;
};

std::unique_ptr<ChunkRule> make_tfss(LoopShape shape, const TechniqueParams& /*params*/) {
  return std::make_unique<TfssRule>(shape);
}

}  // namespace

extern const Descriptor kTfssDescriptor{
    .info = {.technique = Technique::TFSS,
             .name = "TFSS",
             .has_closed_form = true,
             .batched = true,
             .equation = "001 Eq. 8 (recursive), Eq. 18 (closed)",
             .c_id = 102,
             .c_name = "LB4MPI_TFSS",
             .step_only = true},
    .make = make_tfss,
};

}  // namespace lb4mpi::detail
