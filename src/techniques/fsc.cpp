// FSC: fixed-size chunking, `001` Eq. 3.
#include <algorithm>
#include <cmath>
#include <string>

#include "math.hpp"
#include "rules.hpp"

namespace lb4mpi::detail {
namespace {

// `001` Eq. 3 as Table 2 of `001` evaluates it (papers/README.md):
//   K = ceil( (sqrt(2) * N * h / (sigma * P * sqrt(ln P)))^(2/3) ).
// For P = 1, ln P = 0: one rank has nothing to balance, K = N (one chunk).
Index fsc_chunk(LoopShape shape, const TechniqueParams& params) {
  if (shape.p == 1) return std::max<Index>(1, shape.n);
  const double p = static_cast<double>(shape.p);
  const double base = std::sqrt(2.0) * static_cast<double>(shape.n) * params.h /
                      (params.sigma * p * std::sqrt(std::log(p)));
  return std::clamp<Index>(ceil_to_index(std::pow(base, 2.0 / 3.0)), 1,
                           std::max<Index>(1, shape.n));
}

class FscRule final : public ChunkRule {
 public:
  explicit FscRule(Index chunk) : chunk_(chunk) {}
  Index next(const StepContext& /*ctx*/) override { return chunk_; }
  [[nodiscard]] Index closed(Index /*step*/) const override { return chunk_; }

 private:
  Index chunk_;
};

std::unique_ptr<ChunkRule> make_fsc(LoopShape shape, const TechniqueParams& params) {
  return std::make_unique<FscRule>(fsc_chunk(shape, params));
}

void check_fsc(Technique t, const TechniqueParams& params, int /*p*/) {
  check_positive(t, "h", params.h, false, "(scheduling overhead) ");
  check_positive(t, "sigma", params.sigma);
}

}  // namespace

extern const Descriptor kFscDescriptor{
    .info = {.technique = Technique::FSC,
             .name = "FSC",
             .legacy_id = 2,
             .has_closed_form = true,
             .equation = "001 Eq. 3 (to the power 2/3, as its Table 2)",
             .c_id = 2,
             .c_name = "FSC",
             .constant_size = true},
    .make = make_fsc,
    .check = check_fsc,
};

}  // namespace lb4mpi::detail
