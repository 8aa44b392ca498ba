// STATIC: P balanced blocks, `001` Eq. 1 (K = N/P).
#include "math.hpp"
#include "rules.hpp"

namespace lb4mpi::detail {
namespace {

class StaticRule final : public ChunkRule {
 public:
  explicit StaticRule(LoopShape shape)
      : p_(shape.p), base_(shape.n / shape.p), extra_(shape.n % shape.p) {}

  Index next(const StepContext& ctx) override { return closed(ctx.step); }

  // `001` Eq. 1 with the remainder spread: step i < P gets floor(N/P) + 1 for
  // i < N mod P, else floor(N/P). Steps i >= P only occur when a maximum chunk
  // cut the blocks; they get ceil(N/P).
  [[nodiscard]] Index closed(Index step) const override {
    if (step < p_) return base_ + (step < extra_ ? 1 : 0);
    return base_ + (extra_ > 0 ? 1 : 0);
  }

 private:
  Index p_;
  Index base_;
  Index extra_;
};

}  // namespace

std::unique_ptr<ChunkRule> make_static(LoopShape shape, const TechniqueParams& /*params*/) {
  return std::make_unique<StaticRule>(shape);
}

}  // namespace lb4mpi::detail
