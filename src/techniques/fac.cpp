// FAC: probabilistic factoring of Flynn Hummel et al., `000` Eq. 2.2.
// Batches of P equal chunks; each batch takes a share of the remaining
// iterations that depends on P, R and the coefficient of variation sigma/mu.
#include <algorithm>
#include <cmath>
#include <vector>

#include "math.hpp"
#include "rules.hpp"

namespace lb4mpi::detail {
namespace {

class FacRule final : public ChunkRule {
 public:
  FacRule(LoopShape shape, const TechniqueParams& params)
      : p_(shape.p), cv_(params.sigma / params.mu) {
    replay(shape.n);
  }

  // Recursive form: at the start of batch j (i mod P = 0) the chunk is
  // computed from the iterations R_i that are really left.
  Index next(const StepContext& ctx) override {
    if (ctx.step % p_ == 0 || current_ == 0) current_ = batch_chunk(ctx.step / p_, ctx.remaining);
    return current_;
  }

  // No closed form in the papers: the batch recurrence R_{j+1} = R_j - P*K_j
  // is deterministic, so it is replayed once at construction (O(batches),
  // about log2 N of them) and looked up here.
  [[nodiscard]] Index closed(Index step) const override {
    const Index batch = step / p_;
    const auto known = static_cast<Index>(table_.size());
    if (batch < known) return table_[static_cast<std::size_t>(batch)];
    if (complete_) return 1;
    // Only for extreme sigma/mu (tens of thousands of batches): replay on.
    Index remaining = table_end_remaining_;
    Index chunk = 1;
    for (Index j = known; j <= batch && remaining > 0; ++j) {
      chunk = batch_chunk(j, remaining);
      remaining -= std::min(remaining, mul_sat(chunk, p_));
    }
    return chunk;
  }

  // Chunks never grow from batch to batch (see replay): batch 0 is the largest.
  [[nodiscard]] Index closed_peak() const override { return closed(0); }

  void restart() override { current_ = 0; }

 private:
  static constexpr std::size_t kTableLimit = 4096;

  // `000` Eq. 2.2: b_j = P / (2 sqrt(R_j)) * sigma/mu,
  //   x_0 = 1 + b^2 + b sqrt(b^2 + 2)   (first batch, Flynn Hummel's rule;
  //                                        `000` prints only j > 0),
  //   x_j = 2 + b^2 + b sqrt(b^2 + 4)   (j > 0),
  //   K_j = ceil(R_j / (x_j P)).
  [[nodiscard]] Index batch_chunk(Index batch, Index remaining) const {
    const double r = static_cast<double>(remaining);
    const double p = static_cast<double>(p_);
    const double b = p / (2.0 * std::sqrt(r)) * cv_;
    const double x = batch == 0 ? 1.0 + b * b + b * std::sqrt(b * b + 2.0)
                                : 2.0 + b * b + b * std::sqrt(b * b + 4.0);
    const Index k = ceil_to_index(r / (x * p));
    return k < 1 ? 1 : k;
  }

  void replay(Index n) {
    Index remaining = n;
    Index chunk = 2;
    while (remaining > 0 && chunk > 1 && table_.size() < kTableLimit) {
      chunk = batch_chunk(static_cast<Index>(table_.size()), remaining);
      table_.push_back(chunk);
      remaining -= std::min(remaining, mul_sat(chunk, p_));
    }
    // Chunks never grow from one batch to the next (R shrinks, x grows), so
    // after a batch of 1s every later batch is 1s too.
    complete_ = remaining == 0 || chunk <= 1;
    table_end_remaining_ = remaining;
  }

  Index p_;
  double cv_;
  std::vector<Index> table_;
  Index table_end_remaining_ = 0;
  bool complete_ = true;
  Index current_ = 0;
};

}  // namespace

std::unique_ptr<ChunkRule> make_fac(LoopShape shape, const TechniqueParams& params) {
  return std::make_unique<FacRule>(shape, params);
}

}  // namespace lb4mpi::detail
