// An expert rule from measured figures, not from trials: the first
// execution runs the first candidate (TSS by default); after each one
//   - a rank slower per iteration than another by more than kWeighSpread
//     (speed_spread) -> a technique that weighs the ranks by their measured
//     speed: the first adaptive candidate (AWF*, AF), else the first one;
//   - else scheduling overhead above kOverhead of the busy time -> the
//     non-adaptive candidate with the fewest chunks on the measured loop
//     (STATIC when it is a candidate), as the technique layer counts them;
//   - else the first candidate.
// It needs no exploration, but it knows only what its rule says.
#include <algorithm>
#include <cstdio>
#include <optional>
#include <string>

#include "lb4mpi/techniques/chunk_calculator.hpp"
#include "policies.hpp"

namespace lb4mpi::selection {
namespace {

constexpr double kWeighSpread = 0.5;   // speed spread that calls for weighting the ranks
constexpr double kOverhead = 0.08;  // overhead share that calls for fewer chunks
constexpr Index kCountUpTo = 1 << 16;  // iterations of the loop its chunks are counted on

class Rule final : public Policy {
 public:
  explicit Rule(std::vector<Technique> c) : cand_(std::move(c)), next_{cand_.front(), "rule: no figures yet, "
                                                                        "starting with " +
                                                                        std::string(name(cand_.front()))} {}

  Choice choose() override { return next_; }

  void learn(const Measurement& m) override {
    const double spread = m.speed_spread(), share = m.overhead_share();
    char figures[96];
    std::snprintf(figures, sizeof figures, "speed spread %.2f, overhead %.1f %%", spread, 100.0 * share);
    if (spread > kWeighSpread) {
      if (auto t = first_adaptive()) {
        next_ = {*t, "rule: a rank is slower per iteration (" + std::string(figures) + "): weighted " +
                         std::string(name(*t))};
        return;
      }
    }
    if (share > kOverhead) {
      if (auto t = fewest_chunks(m)) {
        next_ = {*t, "rule: scheduling overhead is high (" + std::string(figures) + "): fewer chunks with " +
                         std::string(name(*t))};
        return;
      }
    }
    next_ = {cand_.front(), "rule: balanced and cheap (" + std::string(figures) + "): " +
                                std::string(name(cand_.front()))};
  }

 private:
  std::optional<Technique> first_adaptive() const {
    for (Technique t : cand_) {
      if (info(t).adaptive) return t;
    }
    return std::nullopt;
  }
  // The non-adaptive candidate that cuts the measured loop (at most
  // kCountUpTo of its iterations, so that counting stays cheap) into the
  // fewest chunks; the first of equals.
  std::optional<Technique> fewest_chunks(const Measurement& m) const {
    const LoopShape shape{std::min<Index>(std::max<Index>(m.iterations, 1), kCountUpTo),
                          std::max(1, static_cast<int>(m.rank_iterations.size()))};
    std::optional<Technique> best;
    std::size_t fewest = 0;
    for (Technique t : cand_) {
      if (info(t).adaptive) continue;
      std::size_t chunks = 0;
      try {
        chunks = simulate_chunks(t, shape, TechniqueParams{}, Form::Recursive).size();
      } catch (const Error&) {
        continue;  // its default parameters do not fit this loop
      }
      if (!best || chunks < fewest) {
        best = t;
        fewest = chunks;
      }
    }
    return best;
  }

  std::vector<Technique> cand_;
  Choice next_;
};

}  // namespace

std::unique_ptr<Policy> make_rule_policy(std::vector<Technique> candidates) {
  return std::make_unique<Rule>(std::move(candidates));
}

}  // namespace lb4mpi::selection
