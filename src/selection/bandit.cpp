// Discounted UCB1 (a bandit that forgets): every candidate runs once, then
// the one with the lowest optimistic cost: its discounted mean cost, relative
// to the best mean, minus an exploration bonus that grows while it is not
// tried. The discount (kGamma per execution) lets old figures fade, so the
// choice follows a change of conditions.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "policies.hpp"

namespace lb4mpi::selection {
namespace {

constexpr double kGamma = 0.85;  // weight of a figure one execution older
constexpr double kBonus = 0.15;  // exploration: relative cost a rarely tried candidate may have

class Bandit final : public Policy {
 public:
  Bandit(std::vector<Technique> c, std::uint64_t seed)
      : cand_(std::move(c)), n_(cand_.size(), 0.0), sum_(cand_.size(), 0.0), tie_(seed % cand_.size()) {}

  Choice choose() override {
    for (std::size_t i = 0; i < cand_.size(); ++i) {
      if (n_[i] == 0.0) {
        return {cand_[i], "bandit: trying " + std::string(name(cand_[i])) + " (" + std::to_string(i + 1) + " of " +
                              std::to_string(cand_.size()) + ")"};
      }
    }
    double total = 0.0, best_mean = std::numeric_limits<double>::infinity();
    for (std::size_t i = 0; i < cand_.size(); ++i) {
      total += n_[i];
      best_mean = std::min(best_mean, sum_[i] / n_[i]);
    }
    std::size_t pick = tie_;
    double pick_index = std::numeric_limits<double>::infinity();
    for (std::size_t k = 0; k < cand_.size(); ++k) {
      const std::size_t i = (tie_ + k) % cand_.size();
      const double index = (sum_[i] / n_[i]) / best_mean - kBonus * std::sqrt(2.0 * std::log(total) / n_[i]);
      if (index < pick_index) {
        pick_index = index;
        pick = i;
      }
    }
    const double mean = sum_[pick] / n_[pick];
    return {cand_[pick], "bandit: " + std::string(name(cand_[pick])) + " has the lowest optimistic cost (mean " +
                             fmt_us(mean) + " per iteration, " + std::to_string(mean / best_mean).substr(0, 4) +
                             "x the best mean)"};
  }

  void learn(const Measurement& m) override {
    const double c = m.cost();
    if (!std::isfinite(c)) return;
    const auto it = std::find(cand_.begin(), cand_.end(), m.technique);
    if (it == cand_.end()) return;
    for (std::size_t i = 0; i < cand_.size(); ++i) {
      n_[i] *= kGamma;
      sum_[i] *= kGamma;
    }
    const auto i = static_cast<std::size_t>(it - cand_.begin());
    n_[i] += 1.0;
    sum_[i] += c;
  }

 private:
  std::vector<Technique> cand_;
  std::vector<double> n_, sum_;  // discounted count and sum of costs per candidate
  std::size_t tie_;              // where the search for the lowest index starts (ties)
};

}  // namespace

std::unique_ptr<Policy> make_bandit(std::vector<Technique> candidates, std::uint64_t seed) {
  return std::make_unique<Bandit>(std::move(candidates), seed);
}

}  // namespace lb4mpi::selection
