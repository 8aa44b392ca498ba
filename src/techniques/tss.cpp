// TSS: trapezoid self-scheduling, `001` Eq. 6 (recursive) and Eq. 17 (closed).
#include "rules.hpp"
#include "sequences.hpp"

namespace lb4mpi::detail {
namespace {

class TssRule final : public ChunkRule {
 public:
  explicit TssRule(LoopShape shape) : seq_(shape.n, shape.p) {}

  // `001` Eq. 6: K_i = K_{i-1} - C, K_0 = ceil(N/(2P)), never below K_{S-1} = 1.
  Index next(const StepContext& ctx) override {
    if (ctx.step == 0) {
      current_ = seq_.first();
    } else if (current_ - seq_.last() >= seq_.delta()) {
      current_ -= seq_.delta();
    } else {
      current_ = seq_.last();
    }
    return current_;
  }
  // `001` Eq. 17: K'_i = K_0 - i*C.
  [[nodiscard]] Index closed(Index step) const override { return seq_.at(step); }
  [[nodiscard]] Index closed_peak() const override { return seq_.first(); }
  void restart() override { current_ = seq_.first(); }

 private:
  TssSequence seq_;
  Index current_ = 0;
};

std::unique_ptr<ChunkRule> make_tss(LoopShape shape, const TechniqueParams& /*params*/) {
  return std::make_unique<TssRule>(shape);
}

}  // namespace

extern const Descriptor kTssDescriptor{
    .info = {.technique = Technique::TSS,
             .name = "TSS",
             .legacy_id = 5,
             .has_closed_form = true,
             .equation = "001 Eq. 6 (recursive), Eq. 17 (closed)",
             .c_id = 5,
             .c_name = "TSS",
             .step_only = true},
    .make = make_tss,
};

}  // namespace lb4mpi::detail
