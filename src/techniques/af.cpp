// AF: adaptive factoring, `001` Eq. 11. Needs R_i and every rank's mu and
// sigma, so it has no closed form.
#include <algorithm>
#include <cmath>

#include "math.hpp"
#include "rules.hpp"

namespace lb4mpi::detail {
namespace {

class AfRule final : public ChunkRule {
 public:
  // Without a user maximum, AF caps its chunks at ceil(N/(2P)) as the
  // original LB4MPI does (early estimates from one chunk are rough).
  AfRule(LoopShape shape, const TechniqueParams& params)
      : p_(shape.p),
        min_chunk_(params.min_chunk),
        cap_(params.max_chunk > 0 ? kMaxIterations
                                  : std::max<Index>(1, ceil_div(shape.n, Index{2} * shape.p))) {}

  // `001` Eq. 11: D = sum_p sigma_p^2/mu_p, E = (sum_p 1/mu_p)^-1,
  //   K = (D + 2 E R - sqrt(D^2 + 4 D E R)) / (2 mu_r),   chunk floor(K + 0.55).
  // Rationalized, K = 2 E^2 R^2 / (mu_r (D + 2 E R + sqrt(D^2 + 4 D E R))):
  // the same value without the cancellation of the difference, which loses
  // whole iterations when D / mu_r is huge (chunk means that differ a lot
  // over long chunks). With s = sum_p 1/mu_p = 1/E and u = s D this is
  //   K = 2 R^2 / (mu_r s (u + 2 R + sqrt(u (u + 4 R)))),
  // one division and one square root. D and s come from the table in O(1).
  // A rank that has not measured a chunk yet gets min_chunk; ranks without
  // figures count as the slowest measured rank.
  Index next(const StepContext& ctx) override { return evaluate(share(ctx)); }

  // The coordinator's part (O(1)): R_i, D, s = 1/E and the rank's mu.
  SharedInputs share(const StepContext& ctx) override {
    SharedInputs in;
    in.remaining = ctx.remaining;
    const PerfTable* perf = ctx.perf;
    in.measured = perf != nullptr && perf->ranks() == p_ && perf->measured(ctx.rank);
    if (in.measured) {
      in.a = perf->sum_sigma2_over_mu();
      in.b = perf->sum_inv_mu();
      in.c = perf->effective_mu(ctx.rank);
    }
    return in;
  }

  // The executing rank's part: Eq. 11 itself.
  [[nodiscard]] Index evaluate(const SharedInputs& in) const override {
    if (!in.measured) return min_chunk_;
    const double r = static_cast<double>(in.remaining);
    const double u = in.b * in.a;  // s D = D / E
    const double k = 2.0 * r * r / (in.c * in.b * (u + 2.0 * r + std::sqrt(u * (u + 4.0 * r))));
    return std::min(cap_, round55_to_index(k));
  }

 private:
  int p_;
  Index min_chunk_;
  Index cap_;
};

std::unique_ptr<ChunkRule> make_af(LoopShape shape, const TechniqueParams& params) {
  return std::make_unique<AfRule>(shape, params);
}

}  // namespace

extern const Descriptor kAfDescriptor{
    .info = {.technique = Technique::AF,
             .name = "AF",
             .legacy_id = 14,
             .adaptive = true,
             .equation = "001 Eq. 11",
             .c_id = 14,
             .c_name = "AF",
             .feedback = ChunkFeedback::MeanAndSigma},
    .make = make_af,
};

}  // namespace lb4mpi::detail
