// RND: random chunk sizes, `001` Eq. 12 (and `004` for the original bounds).
#include <algorithm>
#include <cstdint>
#include <string>

#include "math.hpp"
#include "rules.hpp"

namespace lb4mpi::detail {
namespace {

class RndRule final : public ChunkRule {
 public:
  // Bounds from the loop's N and P (not from R_i):
  //   Unit      `001` Eq. 12: [1, max(1, floor(N/P))]
  //   Paper004  [max(1, floor(N/(100P))), max(lo, floor(N/(2P)))]
  RndRule(LoopShape shape, const TechniqueParams& params) : seed_(params.seed) {
    if (params.rnd_bounds == RndBounds::Paper004) {
      low_ = std::max<Index>(1, shape.n / (Index{100} * shape.p));
      high_ = std::max<Index>(low_, shape.n / (Index{2} * shape.p));
    } else {
      low_ = 1;
      high_ = std::max<Index>(1, shape.n / shape.p);
    }
  }

  Index next(const StepContext& ctx) override { return closed(ctx.step); }

  // The draw is a pure function of (seed, step): both forms give the same
  // sequence, every rank computes it alike (DCA), and a seed reproduces it.
  [[nodiscard]] Index closed(Index step) const override {
    const std::uint64_t bits = mix64(mix64(seed_) ^ static_cast<std::uint64_t>(step));
    const auto span = static_cast<std::uint64_t>(high_ - low_) + 1U;
    // Multiply-shift maps 64 random bits to [0, span); bias < span / 2^64.
    const auto offset = static_cast<std::uint64_t>((static_cast<UInt128>(bits) * span) >> 64U);
    return low_ + static_cast<Index>(offset);
  }

 private:
  std::uint64_t seed_;
  Index low_ = 1;
  Index high_ = 1;
};

std::unique_ptr<ChunkRule> make_rnd(LoopShape shape, const TechniqueParams& params) {
  return std::make_unique<RndRule>(shape, params);
}

void check_rnd(Technique t, const TechniqueParams& params, int /*p*/) {
  if (params.rnd_bounds != RndBounds::Unit && params.rnd_bounds != RndBounds::Paper004) {
    fail(t, "rnd_bounds",
         "Unit or Paper004, got " + std::to_string(static_cast<int>(params.rnd_bounds)));
  }
}

}  // namespace

extern const Descriptor kRndDescriptor{
    .info = {.technique = Technique::RND,
             .name = "RND",
             .has_closed_form = true,
             .equation = "001 Eq. 12",
             .c_id = 105,
             .c_name = "LB4MPI_RND"},
    .make = make_rnd,
    .check = check_rnd,
};

}  // namespace lb4mpi::detail
