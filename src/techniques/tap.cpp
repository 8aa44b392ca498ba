// TAP: taper, `001` Eq. 5 (recursive, on GSS Eq. 4) and Eq. 16 (closed, on GSS Eq. 14).
#include <algorithm>
#include <cmath>
#include <string>

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
      : shape_(shape), v_(params.alpha * params.sigma / params.mu), closed_n_(closed_n(shape, v_)) {}

  Index next(const StepContext& ctx) override {
    return taper(gss_recursive(ctx.remaining, shape_.p));
  }
  // Eq. 16 over the GSS closed form of closed_n_ >= N iterations (below).
  // P = 1: the series is one chunk, which the taper of N + S brings back to
  // N; said directly, as above 2^62 - S the GSS chunk would be capped at 2^62.
  [[nodiscard]] Index closed(Index step) const override {
    if (shape_.p == 1) return step == 0 ? shape_.n : 0;
    return taper(gss_closed(closed_n_, shape_.p, step));
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

  // The GSS series of Eq. 14 sums to N; the taper takes about v sqrt(2 K)
  // off each of its chunks K, so Eq. 16's sizes fall short of N by
  //   S = sum_i v sqrt(2 K_i) = v sqrt(2 N / P) / (1 - sqrt((P-1)/P))
  // (K_i = ((P-1)/P)^i N/P), and the closed form then handed the rest out
  // one iteration at a time: N = 2^62, P = 4 took 3.4 M chunks where the
  // recursive form takes 150. So the series is that of N + floor(S): the
  // tapered sizes then sum to N up to the ceilings, which only add. For
  // S < 1 (001's Table 2: N = 1000, P = 4 gives S = 0.05) nothing changes.
  static Index closed_n(LoopShape shape, double v) {
    const double p = static_cast<double>(shape.p);
    const double shortfall =
        v * std::sqrt(2.0 * static_cast<double>(shape.n) / p) / (1.0 - std::sqrt((p - 1.0) / p));
    // At most 2^62 - 1 more, so that N + S fits an Index (gss_closed reads
    // it as a real); N <= 2^62.
    return shape.n + std::min(trunc_to_index(shortfall), kMaxIterations - 1);
  }

  LoopShape shape_;
  double v_;
  Index closed_n_;  ///< N + floor(S), the length of the GSS series the closed form tapers
};

std::unique_ptr<ChunkRule> make_tap(LoopShape shape, const TechniqueParams& params) {
  return std::make_unique<TapRule>(shape, params);
}

void check_tap(Technique t, const TechniqueParams& params, int /*p*/) {
  check_positive(t, "mu", params.mu);
  check_positive(t, "sigma", params.sigma, true);
  check_positive(t, "alpha", params.alpha, true);
}

}  // namespace

extern const Descriptor kTapDescriptor{
    .info = {.technique = Technique::TAP,
             .name = "TAP",
             .has_closed_form = true,
             .equation = "001 Eq. 5 (recursive), Eq. 16 (closed)",
             .c_id = 100,
             .c_name = "LB4MPI_TAP"},
    .make = make_tap,
    .check = check_tap,
};

}  // namespace lb4mpi::detail
