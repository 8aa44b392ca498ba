// AWF-B, AWF-C, AWF-D, AWF-E: adaptive weighted factoring with weights learned
// during the execution (`003` §2.2.2.2 and Appendix B).
//   B, D: weights fixed per FAC2 batch (recomputed at each batch start);
//   C, E: weights recomputed at every chunk, chunk base ceil(R_i/(2P)).
//   B, C measure work time; D, E elapsed time (ChunkCalculator::record).
#include <algorithm>
#include <vector>

#include "math.hpp"
#include "rules.hpp"
#include "sequences.hpp"

namespace lb4mpi::detail {
namespace {

// AWF-B / AWF-D.
class AwfBatchRule final : public ChunkRule {
 public:
  AwfBatchRule(LoopShape shape, const TechniqueParams& params)
      : p_(shape.p),
        min_chunk_(params.min_chunk),
        weights_(static_cast<std::size_t>(shape.p), 1.0) {}

  // A rank without a measurement gets min_chunk (the batch is not touched).
  // Otherwise, at a batch start (previous batch used up) the weights are
  // recomputed from the table (O(P) once per batch) and c = max(min_chunk,
  // ceil(R/(2P))); rank r gets max(min_chunk, floor(w_r c + 0.55)).
  Index next(const StepContext& ctx) override {
    const SharedInputs in = share(ctx);
    const Index k = evaluate(in);
    commit(ctx, in, k);
    return k;
  }

  // DCA: the coordinator opens the batch (recomputing the weights) and hands
  // over w_r and c; the executing rank evaluates; the coordinator consumes.
  SharedInputs share(const StepContext& ctx) override {
    SharedInputs in;
    in.remaining = ctx.remaining;
    const PerfTable* perf = ctx.perf;
    in.measured = perf != nullptr && perf->ranks() == p_ && perf->has_weighted_performance(ctx.rank);
    if (!in.measured) return in;
    if (batch_.open_if_used_up(ctx.remaining, p_, min_chunk_)) perf->weights_into(weights_);
    in.a = weights_[static_cast<std::size_t>(ctx.rank)];
    in.b = static_cast<double>(batch_.chunk());
    return in;
  }

  [[nodiscard]] Index evaluate(const SharedInputs& in) const override {
    if (!in.measured) return min_chunk_;
    return std::max(min_chunk_, round55_to_index(in.a * in.b));
  }

  void commit(const StepContext&, const SharedInputs& in, Index raw) override {
    if (in.measured) batch_.consume(raw);
  }

  void save(std::vector<double>& out) const override {
    put_index(out, batch_.chunk());
    put_index(out, batch_.left());
    out.insert(out.end(), weights_.begin(), weights_.end());
  }

  void load(const double*& at) override {
    const Index chunk = take_index(at);
    batch_.set(chunk, take_index(at));
    for (double& w : weights_) w = *at++;
  }

  void restart() override { batch_.reset(); }

 private:
  int p_;
  Index min_chunk_;
  std::vector<double> weights_;
  Fac2Batch batch_;
};

// AWF-C / AWF-E.
class AwfChunkRule final : public ChunkRule {
 public:
  AwfChunkRule(LoopShape shape, const TechniqueParams& params)
      : p_(shape.p), min_chunk_(params.min_chunk) {}

  // A rank without a measurement gets min_chunk; otherwise
  // max(min_chunk, floor(w_r ceil(R_i/(2P)) + 0.55)) with w_r current (O(1)).
  Index next(const StepContext& ctx) override { return evaluate(share(ctx)); }

  // DCA: the coordinator hands over w_r and ceil(R_i/(2P)).
  SharedInputs share(const StepContext& ctx) override {
    SharedInputs in;
    in.remaining = ctx.remaining;
    const PerfTable* perf = ctx.perf;
    in.measured = perf != nullptr && perf->ranks() == p_ && perf->has_weighted_performance(ctx.rank);
    if (!in.measured) return in;
    in.a = perf->weight(ctx.rank);
    in.b = static_cast<double>(fac2_batch_chunk(ctx.remaining, p_));
    return in;
  }

  [[nodiscard]] Index evaluate(const SharedInputs& in) const override {
    if (!in.measured) return min_chunk_;
    return std::max(min_chunk_, round55_to_index(in.a * in.b));
  }

 private:
  int p_;
  Index min_chunk_;
};

std::unique_ptr<ChunkRule> make_batch(LoopShape shape, const TechniqueParams& params) {
  return std::make_unique<AwfBatchRule>(shape, params);
}
std::unique_ptr<ChunkRule> make_chunk(LoopShape shape, const TechniqueParams& params) {
  return std::make_unique<AwfChunkRule>(shape, params);
}

}  // namespace

// B and C learn from work time, D and E from elapsed time (`003` Appendix B).
extern const Descriptor kAwfBDescriptor{
    .info = {.technique = Technique::AWF_B,
             .name = "AWF-B",
             .legacy_id = 10,
             .adaptive = true,
             .batched = true,
             .equation = "003 2.2.2.2, Appendix B (weights per batch, work time)",
             .c_id = 10,
             .c_name = "AWF_B"},
    .make = make_batch,
};
extern const Descriptor kAwfCDescriptor{
    .info = {.technique = Technique::AWF_C,
             .name = "AWF-C",
             .legacy_id = 11,
             .adaptive = true,
             .equation = "003 2.2.2.2, Appendix B (weights per chunk, work time)",
             .c_id = 11,
             .c_name = "AWF_C"},
    .make = make_chunk,
};
extern const Descriptor kAwfDDescriptor{
    .info = {.technique = Technique::AWF_D,
             .name = "AWF-D",
             .legacy_id = 12,
             .adaptive = true,
             .batched = true,
             .equation = "003 2.2.2.2, Appendix B (weights per batch, elapsed time)",
             .c_id = 12,
             .c_name = "AWF_D",
             .feedback = ChunkFeedback::ElapsedTime},
    .make = make_batch,
};
extern const Descriptor kAwfEDescriptor{
    .info = {.technique = Technique::AWF_E,
             .name = "AWF-E",
             .legacy_id = 13,
             .adaptive = true,
             .equation = "003 2.2.2.2, Appendix B (weights per chunk, elapsed time)",
             .c_id = 13,
             .c_name = "AWF_E",
             .feedback = ChunkFeedback::ElapsedTime},
    .make = make_chunk,
};

}  // namespace lb4mpi::detail
