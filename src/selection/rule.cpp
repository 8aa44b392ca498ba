// An expert rule from measured figures, not from trials: the first
// execution runs the first candidate (FAC2 by default); after each one
//   - a rank slower per iteration than another by more than kWeighSpread
//     (speed_spread) -> a technique that weighs the ranks by their measured
//     speed (AWF-B, else AWF-D, AF, AWF-C, AWF-E, else the first candidate);
//   - else scheduling overhead above kOverhead of the busy time -> the
//     candidate with the fewest chunks (STATIC, else GSS, ...);
//   - else the first candidate.
// It needs no exploration, but it knows only what its rule names.
#include <algorithm>
#include <cstdio>
#include <optional>
#include <string>

#include "policies.hpp"

namespace lb4mpi::selection {
namespace {

constexpr double kWeighSpread = 0.5;   // speed spread that calls for weighting the ranks
constexpr double kOverhead = 0.08;  // overhead share that calls for fewer chunks

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
      if (auto t = first_of({Technique::AWF_B, Technique::AWF_D, Technique::AF, Technique::AWF_C, Technique::AWF_E})) {
        next_ = {*t, "rule: a rank is slower per iteration (" + std::string(figures) + "): weighted " +
                         std::string(name(*t))};
        return;
      }
    }
    if (share > kOverhead) {
      if (auto t = first_of({Technique::STATIC, Technique::GSS, Technique::TSS, Technique::FAC2})) {
        next_ = {*t, "rule: scheduling overhead is high (" + std::string(figures) + "): fewer chunks with " +
                         std::string(name(*t))};
        return;
      }
    }
    next_ = {cand_.front(), "rule: balanced and cheap (" + std::string(figures) + "): " +
                                std::string(name(cand_.front()))};
  }

 private:
  std::optional<Technique> first_of(std::initializer_list<Technique> wanted) const {
    for (Technique t : wanted) {
      if (std::find(cand_.begin(), cand_.end(), t) != cand_.end()) return t;
    }
    return std::nullopt;
  }

  std::vector<Technique> cand_;
  Choice next_;
};

}  // namespace

std::unique_ptr<Policy> make_rule_policy(std::vector<Technique> candidates) {
  return std::make_unique<Rule>(std::move(candidates));
}

}  // namespace lb4mpi::selection
