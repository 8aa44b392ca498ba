// WF (weighted factoring, `003` §2.2.2.1) and AWF (adaptive weighted factoring
// for time-stepping loops, `003` §2.2.2.2 and Appendix B): FAC2 batches
// (`001` Eq. 7) whose chunk is scaled by the requesting rank's weight.
#include <algorithm>
#include <string>
#include <vector>

#include "math.hpp"
#include "rules.hpp"
#include "sequences.hpp"

namespace lb4mpi::detail {
namespace {

class WeightedFactoringRule final : public ChunkRule {
 public:
  // AWF: weights from whole time steps; chunks feed mu and sigma only.
  // Weights from params.weights normalized to sum to P (empty: all 1).
  WeightedFactoringRule(LoopShape shape, const TechniqueParams& params, bool adaptive)
      : p_(shape.p),
        min_chunk_(params.min_chunk),
        adaptive_(adaptive),
        weights_(static_cast<std::size_t>(shape.p), 1.0) {
    if (static_cast<int>(params.weights.size()) == shape.p) {
      // Scaled by the largest weight first, so that the sum cannot overflow.
      const double largest = *std::max_element(params.weights.begin(), params.weights.end());
      double total = 0.0;
      for (const double w : params.weights) total += w / largest;
      for (std::size_t r = 0; r < weights_.size(); ++r) {
        weights_[r] = params.weights[r] / largest * static_cast<double>(shape.p) / total;
      }
    }
  }

  // A batch opens when the previous one is used up: c = max(min_chunk,
  // ceil(R/(2P))), batch = min(P c, R). Rank r gets round(w_r c) (>= 1); the
  // chunk is taken off the batch, which saturates at 0.
  Index next(const StepContext& ctx) override {
    const SharedInputs in = share(ctx);
    const Index k = evaluate(in);
    commit(ctx, in, k);
    return k;
  }

  // DCA: the coordinator opens the batch and hands over c and w_r; the
  // executing rank computes round(w_r c); the coordinator takes it off the batch.
  SharedInputs share(const StepContext& ctx) override {
    if (reload_weights_) load_learned_weights(ctx.perf);
    batch_.open_if_used_up(ctx.remaining, p_, min_chunk_);
    SharedInputs in;
    in.remaining = ctx.remaining;
    in.a = weights_[static_cast<std::size_t>(ctx.rank)];
    in.b = static_cast<double>(batch_.chunk());
    return in;
  }

  [[nodiscard]] Index evaluate(const SharedInputs& in) const override {
    return std::max<Index>(1, floor_to_index(in.a * in.b + 0.5));
  }

  void commit(const StepContext&, const SharedInputs&, Index raw) override {
    batch_.consume(std::max(raw, min_chunk_));
  }

  void save(std::vector<double>& out) const override {
    put_index(out, batch_.chunk());
    put_index(out, batch_.left());
    out.push_back(reload_weights_ ? 1.0 : 0.0);
    out.insert(out.end(), weights_.begin(), weights_.end());
  }

  void load(const double*& at) override {
    const Index chunk = take_index(at);
    batch_.set(chunk, take_index(at));
    reload_weights_ = *at++ != 0.0;
    for (double& w : weights_) w = *at++;
  }

  // AWF adapts only between executions: the next execution's first chunk
  // takes the weights learned from the finished time steps.
  void restart() override {
    batch_.reset();
    reload_weights_ = adaptive_;
  }

 private:
  // AWF: weights from the time-step weighted performance (PerfTable::weights);
  // as long as no rank has a measurement the current weights stay.
  void load_learned_weights(const PerfTable* perf) {
    reload_weights_ = false;
    if (perf == nullptr || perf->ranks() != p_) return;
    bool any = false;
    for (int r = 0; r < p_ && !any; ++r) any = perf->has_weighted_performance(r);
    if (any) perf->weights_into(weights_);
  }

  int p_;
  Index min_chunk_;
  bool adaptive_;
  bool reload_weights_ = false;
  std::vector<double> weights_;
  Fac2Batch batch_;
};

std::unique_ptr<ChunkRule> make_wf(LoopShape shape, const TechniqueParams& params) {
  return std::make_unique<WeightedFactoringRule>(shape, params, false);
}

std::unique_ptr<ChunkRule> make_awf(LoopShape shape, const TechniqueParams& params) {
  return std::make_unique<WeightedFactoringRule>(shape, params, true);
}

// WF, AWF: one positive finite weight per rank, or none (all 1).
void check_weights(Technique t, const TechniqueParams& params, int p) {
  const std::vector<double>& weights = params.weights;
  if (weights.empty()) return;
  if (weights.size() != static_cast<std::size_t>(p)) {
    throw InvalidParameter("weights", std::string(name(t)) + " needs " + std::to_string(p) +
                                          " weights (one per rank), got " +
                                          std::to_string(weights.size()));
  }
  for (std::size_t r = 0; r < weights.size(); ++r) {
    if (!(std::isfinite(weights[r]) && weights[r] > 0.0)) {
      throw InvalidParameter("weights", std::string(name(t)) +
                                            " needs positive finite weights, got " +
                                            show(weights[r]) + " for rank " + std::to_string(r));
    }
  }
}

}  // namespace

extern const Descriptor kWfDescriptor{
    .info = {.technique = Technique::WF,
             .name = "WF",
             .legacy_id = 8,
             .batched = true,
             .equation = "003 2.2.2.1 (FAC2 batches, fixed weights)",
             .c_id = 8,
             .c_name = "WF"},
    .make = make_wf,
    .check = check_weights,
};
extern const Descriptor kAwfDescriptor{
    .info = {.technique = Technique::AWF,
             .name = "AWF",
             .legacy_id = 9,
             .adaptive = true,
             .batched = true,
             .equation = "003 2.2.2.2, Appendix B (weights per time step)",
             .c_id = 9,
             .c_name = "AWF",
             .feedback = ChunkFeedback::MeanAndSigma,
             .learns_from_time_steps = true},
    .make = make_awf,
    .check = check_weights,
};

}  // namespace lb4mpi::detail
