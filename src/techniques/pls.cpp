// PLS: performance-based loop scheduling, `001` Eq. 13 (recursive) and Eq. 21 (closed).
// A static part of P equal chunks, then GSS over the rest.
#include <algorithm>
#include <cmath>
#include <string>

#include "math.hpp"
#include "rules.hpp"
#include "sequences.hpp"

namespace lb4mpi::detail {
namespace {

class PlsRule final : public ChunkRule {
 public:
  // K_s = floor(N * SWR / P); with K_s >= 1 the first P steps get K_s each, the
  // static part holds P*K_s iterations and the dynamic part N_d = N - P*K_s.
  PlsRule(LoopShape shape, const TechniqueParams& params)
      : shape_(shape),
        static_chunk_(std::min(shape.n / shape.p,
                               floor_to_index(static_cast<double>(shape.n) * params.pls_swr /
                                              static_cast<double>(shape.p)))),
        dynamic_part_(shape.n - static_chunk_ * shape.p) {}

  // `001` Eq. 13: K_s while R_i > N - (static part), then GSS Eq. 4 ceil(R_i/P).
  // The static part is the integer P*K_s that the static chunks cover
  // (Eq. 13 writes N*SWR; see docs/TECHNIQUES.md).
  Index next(const StepContext& ctx) override {
    if (static_chunk_ >= 1 && ctx.remaining > dynamic_part_) return static_chunk_;
    return gss_recursive(ctx.remaining, shape_.p);
  }

  // `001` Eq. 21 (K'^SS there means P): steps i < P get K_s; step i >= P gets
  // the GSS closed form Eq. 14 over the dynamic part: ceil(((P-1)/P)^(i-P) N_d/P).
  [[nodiscard]] Index closed(Index step) const override {
    if (static_chunk_ < 1) return gss_closed(shape_.n, shape_.p, step);
    if (step < shape_.p) return static_chunk_;
    return gss_closed(dynamic_part_, shape_.p, step - shape_.p);
  }

  // The static chunk or the first dynamic one (step P), whichever is larger
  // (SWR < 0.5 makes the dynamic part start above K_s); the rest shrinks.
  [[nodiscard]] Index closed_peak() const override {
    if (static_chunk_ < 1) return closed(0);
    return std::max(static_chunk_, closed(shape_.p));
  }

 private:
  LoopShape shape_;
  Index static_chunk_;
  Index dynamic_part_;
};

std::unique_ptr<ChunkRule> make_pls(LoopShape shape, const TechniqueParams& params) {
  return std::make_unique<PlsRule>(shape, params);
}

void check_pls(Technique t, const TechniqueParams& params, int /*p*/) {
  if (!(params.pls_swr >= 0.0 && params.pls_swr <= 1.0))
    fail(t, "pls_swr", "in [0, 1], got " + show(params.pls_swr));
}

}  // namespace

extern const Descriptor kPlsDescriptor{
    .info = {.technique = Technique::PLS,
             .name = "PLS",
             .has_closed_form = true,
             .equation = "001 Eq. 13 (recursive), Eq. 21 (closed)",
             .c_id = 106,
             .c_name = "LB4MPI_PLS"},
    .make = make_pls,
    .check = check_pls,
};

}  // namespace lb4mpi::detail
