// TAP: taper, `001` Eq. 5 (recursive, on GSS Eq. 4) and Eq. 16 (closed, on GSS Eq. 14).
#include <cmath>

#include "math.hpp"
#include "rules.hpp"
#include "sequences.hpp"

namespace lb4mpi::detail {
namespace {

class TapRule final : public ChunkRule {
 public:
  // v_alpha = alpha * sigma / mu (`001` Eq. 5). The text of `001` swaps the
  // values of sigma and alpha; only their product enters, so it does not matter.
  TapRule(LoopShape shape, const TechniqueParams& params)
      : shape_(shape), v_(params.alpha * params.sigma / params.mu) {}

  Index next(const StepContext& ctx) override {
    return taper(gss_recursive(ctx.remaining, shape_.p));
  }
  [[nodiscard]] Index closed(Index step) const override {
    return taper(gss_closed(shape_.n, shape_.p, step));
  }
  // Shrinking (the taper grows with the GSS chunk): the first is the largest.
  [[nodiscard]] Index closed_peak() const override { return closed(0); }

 private:
  // `001` Eq. 5 / 16: K = K_GSS + v^2/2 - v * sqrt(2 K_GSS + v^2/4), then ceil.
  // K_GSS is the (ceiled) GSS chunk of the same form.
  [[nodiscard]] Index taper(Index gss) const {
    const double k = static_cast<double>(gss);
    const double v2 = v_ * v_;
    return ceil_to_index(k + v2 / 2.0 - v_ * std::sqrt(2.0 * k + v2 / 4.0));
  }

  LoopShape shape_;
  double v_;
};

}  // namespace

std::unique_ptr<ChunkRule> make_tap(LoopShape shape, const TechniqueParams& params) {
  return std::make_unique<TapRule>(shape, params);
}

}  // namespace lb4mpi::detail
