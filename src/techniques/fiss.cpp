// FISS: fixed increase size chunking, `001` Eq. 9 (recursive) and Eq. 19 (closed).
#include <cmath>
#include <string>

#include "math.hpp"
#include "rules.hpp"

namespace lb4mpi::detail {
namespace {

class FissRule final : public ChunkRule {
 public:
  FissRule(LoopShape shape, const TechniqueParams& params) : p_(shape.p) {
    const double n = static_cast<double>(shape.n);
    const double p = static_cast<double>(shape.p);
    const double b = params.fiss_batches;
    first_ = n / ((2.0 + b) * p);                                        // K_0 (Eq. 9)
    increment_ = 2.0 * n * (1.0 - b / (2.0 + b)) / (p * b * (b - 1.0));  // A (Eq. 9)
  }

  // `001` Eq. 9 literally, per batch: K_0 = floor(N/((2+B)P)),
  // K_b = K_{b-1} + ceil(A). (For N = 1000, P = 4, B = 3: 50, 84, 118, ...)
  Index next(const StepContext& ctx) override {
    if (ctx.step == 0 || !started_) {
      current_ = floor_to_index(first_);
      started_ = true;
    } else if (ctx.step % p_ == 0) {
      current_ = add_sat(current_, ceil_to_index(increment_));
    }
    return current_;
  }

  // `001` Eq. 19 as Table 2 evaluates it (papers/README.md): batch b gets
  // floor(K_0 + b*A) with the real-valued K_0 and A. (50, 83, 116, ...)
  [[nodiscard]] Index closed(Index step) const override {
    const double batch = static_cast<double>(step / p_);
    return floor_to_index(first_ + batch * increment_);
  }

  void restart() override { started_ = false; }

 private:
  Index p_;
  double first_ = 0.0;
  double increment_ = 0.0;
  Index current_ = 0;
  bool started_ = false;
};

std::unique_ptr<ChunkRule> make_fiss(LoopShape shape, const TechniqueParams& params) {
  return std::make_unique<FissRule>(shape, params);
}

void check_fiss(Technique t, const TechniqueParams& params, int /*p*/) {
  if (params.fiss_batches < 2)
    fail(t, "fiss_batches", ">= 2, got " + std::to_string(params.fiss_batches));
}

}  // namespace

extern const Descriptor kFissDescriptor{
    .info = {.technique = Technique::FISS,
             .name = "FISS",
             .has_closed_form = true,
             .batched = true,
             .equation = "001 Eq. 9 (recursive), Eq. 19 (closed)",
             .c_id = 103,
             .c_name = "LB4MPI_FISS"},
    .make = make_fiss,
    .check = check_fiss,
};

}  // namespace lb4mpi::detail
