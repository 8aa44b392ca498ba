// STATIC: P balanced blocks, `001` Eq. 1 (K = N/P).
#include "math.hpp"
#include "rules.hpp"

namespace lb4mpi::detail {
namespace {

class StaticRule final : public ChunkRule {
 public:
  // The start of block i: i blocks of floor(N/P), plus one per earlier block
  // that got one of the N mod P extra iterations.
  [[nodiscard]] Index closed_start(Index step) const override {
    return step < p_ ? step * base_ + (step < extra_ ? step : extra_) : p_ * base_ + extra_;
  }
  explicit StaticRule(LoopShape shape)
      : p_(shape.p), base_(shape.n / shape.p), extra_(shape.n % shape.p) {}

  Index next(const StepContext& ctx) override { return closed(ctx.step); }

  // `001` Eq. 1 with the remainder spread: step i < P gets floor(N/P) + 1 for
  // i < N mod P, else floor(N/P). The P blocks cover N; ChunkCalculator does
  // not bound them by min_chunk / max_chunk, so no step i >= P occurs.
  [[nodiscard]] Index closed(Index step) const override {
    return step < p_ ? base_ + (step < extra_ ? 1 : 0) : 0;
  }

 private:
  Index p_;
  Index base_;
  Index extra_;
};

std::unique_ptr<ChunkRule> make_static(LoopShape shape, const TechniqueParams& /*params*/) {
  return std::make_unique<StaticRule>(shape);
}

}  // namespace

extern const Descriptor kStaticDescriptor{
    .info = {.technique = Technique::STATIC,
             .name = "STATIC",
             .legacy_id = 0,
             .has_closed_form = true,
             .upfront = true,
             .equation = "001 Eq. 1",
             .c_id = 0,
             .c_name = "STATIC"},
    .make = make_static,
};

}  // namespace lb4mpi::detail
