// FAC2: practical factoring (what the original LB4MPI calls FAC),
// `001` Eq. 7 (recursive) and Eq. 15 (closed).
#include <cmath>

#include "math.hpp"
#include "rules.hpp"
#include "sequences.hpp"

namespace lb4mpi::detail {
namespace {

class Fac2Rule final : public ChunkRule {
 public:
  explicit Fac2Rule(LoopShape shape) : shape_(shape) {}

  // `001` Eq. 7: at i mod P = 0, K_i = ceil(R_i / (2P)); otherwise K_{i-1}.
  Index next(const StepContext& ctx) override {
    if (ctx.step % shape_.p == 0 || current_ == 0)
      current_ = fac2_batch_chunk(ctx.remaining, shape_.p);
    return current_;
  }

  // `001` Eq. 15: K'_i = ceil(0.5^(floor(i/P) + 1) * N/P).
  [[nodiscard]] Index closed(Index step) const override {
    const Index batch = step / shape_.p;
    if (batch >= 1100) return 0;  // 0.5^1101 * 2^62 underflows to 0 anyway
    const double share = static_cast<double>(shape_.n) / static_cast<double>(shape_.p);
    return ceil_to_index(std::ldexp(share, -static_cast<int>(batch + 1)));
  }

  // Shrinking: batch 0 is the largest.
  [[nodiscard]] Index closed_peak() const override { return closed(0); }

  void restart() override { current_ = 0; }

 private:
  LoopShape shape_;
  Index current_ = 0;
};

std::unique_ptr<ChunkRule> make_fac2(LoopShape shape, const TechniqueParams& /*params*/) {
  return std::make_unique<Fac2Rule>(shape);
}

}  // namespace

extern const Descriptor kFac2Descriptor{
    .info = {.technique = Technique::FAC2,
             .name = "FAC2",
             .legacy_id = 7,
             .has_closed_form = true,
             .batched = true,
             .equation = "001 Eq. 7 (recursive), Eq. 15 (closed)",
             .c_id = 7,
             .c_name = "FAC"},
    .make = make_fac2,
};

}  // namespace lb4mpi::detail
