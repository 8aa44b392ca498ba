// VISS: variable increase size chunking, `001` Eq. 10 (recursive) and Eq. 20 (closed).
#include <cmath>
#include <string>

#include "math.hpp"
#include "rules.hpp"

namespace lb4mpi::detail {
namespace {

class VissRule final : public ChunkRule {
 public:
  // K_0 = floor(N / (X P)) (`001` Eq. 10 with K_0^FISS = N/((2+B)P) read as
  // N/(X P), X = viss_x; papers/README.md).
  VissRule(LoopShape shape, const TechniqueParams& params)
      : p_(shape.p),
        first_(floor_to_index(static_cast<double>(shape.n) /
                              (params.viss_x * static_cast<double>(shape.p)))) {}

  // `001` Eq. 10 literally, per batch: K_b = K_{b-1} + floor(K_{b-1} / 2).
  // (For N = 1000, P = 4, X = 4: 62, 93, 139, ...)
  Index next(const StepContext& ctx) override {
    if (ctx.step == 0 || !started_) {
      current_ = first_;
      started_ = true;
    } else if (ctx.step % p_ == 0) {
      current_ = add_sat(current_, current_ / 2);
    }
    return current_;
  }

  // `001` Eq. 20 with the batch index b = floor(i/P) for "i mod P" (README):
  // K'_b = floor(K_0 (1 - 0.5^(b+1)) / 0.5). (62, 93, 108, ...)
  [[nodiscard]] Index closed(Index step) const override {
    const Index batch = step / p_;
    const double factor =
        batch >= 1100 ? 2.0 : (1.0 - std::ldexp(1.0, -static_cast<int>(batch + 1))) / 0.5;
    return floor_to_index(static_cast<double>(first_) * factor);
  }

  void restart() override { started_ = false; }

 private:
  Index p_;
  Index first_;
  Index current_ = 0;
  bool started_ = false;
};

std::unique_ptr<ChunkRule> make_viss(LoopShape shape, const TechniqueParams& params) {
  return std::make_unique<VissRule>(shape, params);
}

void check_viss(Technique t, const TechniqueParams& params, int /*p*/) {
  check_positive(t, "viss_x", params.viss_x);
}

}  // namespace

extern const Descriptor kVissDescriptor{
    .info = {.technique = Technique::VISS,
             .name = "VISS",
             .has_closed_form = true,
             .batched = true,
             .equation = "001 Eq. 10 (recursive), Eq. 20 (closed)",
             .c_id = 104,
             .c_name = "LB4MPI_VISS"},
    .make = make_viss,
    .check = check_viss,
};

}  // namespace lb4mpi::detail
