// GSS: guided self-scheduling, `001` Eq. 4 (recursive) and Eq. 14 (closed).
#include "rules.hpp"
#include "sequences.hpp"

namespace lb4mpi::detail {
namespace {

class GssRule final : public ChunkRule {
 public:
  explicit GssRule(LoopShape shape) : shape_(shape) {}
  // `001` Eq. 4: K_i = ceil(R_i / P).
  Index next(const StepContext& ctx) override { return gss_recursive(ctx.remaining, shape_.p); }
  // `001` Eq. 14: K'_i = ceil(((P-1)/P)^i * N/P); the last chunk is the rest.
  [[nodiscard]] Index closed(Index step) const override {
    return gss_closed(shape_.n, shape_.p, step);
  }
  // Shrinking: the first chunk is the largest.
  [[nodiscard]] Index closed_peak() const override { return closed(0); }

 private:
  LoopShape shape_;
};

std::unique_ptr<ChunkRule> make_gss(LoopShape shape, const TechniqueParams& /*params*/) {
  return std::make_unique<GssRule>(shape);
}

}  // namespace

extern const Descriptor kGssDescriptor{
    .info = {.technique = Technique::GSS,
             .name = "GSS",
             .legacy_id = 4,
             .has_closed_form = true,
             .equation = "001 Eq. 4 (recursive), Eq. 14 (closed)",
             .c_id = 4,
             .c_name = "GSS"},
    .make = make_gss,
};

}  // namespace lb4mpi::detail
