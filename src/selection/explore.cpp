// Explore-then-exploit with change detection: every candidate runs once (in
// the order given), then the one with the lowest T_par per iteration runs
// on. Its figure is followed (a moving average); when it moves by more than
// kDrift twice in a row, or by more than kJump once, conditions changed (a
// slowed rank, another input): the candidates that were within kRecheck of
// the best before the change run once more — and the adaptive ones too when
// a rank became slower per iteration than the others (Measurement::
// speed_spread above kSlowRank), the case they are made for — and the best
// is chosen again (the figures of the others are scaled by the change seen).
#include <algorithm>
#include <cmath>
#include <deque>
#include <optional>
#include <string>

#include "policies.hpp"

namespace lb4mpi::selection {
namespace {

constexpr double kDrift = 0.25;    // a change this large, twice in a row, is a change of conditions
constexpr double kJump = 0.6;      // ... this large, once
constexpr double kRecheck = 0.3;   // after a change: recheck the candidates that were this close to the best
constexpr double kSmoothing = 0.3; // weight of the newest figure in the moving average
constexpr double kSlowRank = 0.5;  // speed spread at which the adaptive candidates are rechecked too

class Explore final : public Policy {
 public:
  explicit Explore(std::vector<Technique> c) : cand_(std::move(c)), est_(cand_.size()) {
    for (std::size_t i = 0; i < cand_.size(); ++i) queue_.push_back(i);
  }

  Choice choose() override {
    if (!queue_.empty()) {
      const std::size_t i = queue_.front();
      const std::size_t of = rechecking_ ? recheck_total_ : cand_.size();
      const std::size_t nth = of - queue_.size() + 1;
      return {cand_[i], std::string(rechecking_ ? "re-explore after a change: trying " : "explore: trying ") +
                            std::string(name(cand_[i])) + " (" + std::to_string(nth) + " of " + std::to_string(of) +
                            ")"};
    }
    const std::size_t b = best();
    std::string reason = "exploit: " + std::string(name(cand_[b])) + " has the lowest T_par per iteration (" +
                         fmt_us(*est_[b]);
    if (const auto s = second(b)) reason += "; next " + std::string(name(cand_[*s])) + " " + fmt_us(*est_[*s]);
    return {cand_[b], reason + ")"};
  }

  void learn(const Measurement& m) override {
    const double c = m.cost();
    if (!std::isfinite(c)) return;
    const auto it = std::find(cand_.begin(), cand_.end(), m.technique);
    if (it == cand_.end()) return;
    const auto i = static_cast<std::size_t>(it - cand_.begin());
    if (!queue_.empty()) {
      if (queue_.front() == i) queue_.pop_front();
      est_[i] = c;
      if (queue_.empty()) rechecking_ = false;
      return;
    }
    // Exploiting: follow the figure; watch for a change of conditions.
    const double prev = *est_[i];
    const double moved = std::abs(c / prev - 1.0);
    drifts_ = moved > kDrift ? drifts_ + 1 : 0;
    if (moved > kJump || drifts_ >= 2) {
      drifts_ = 0;
      recheck(i, prev, c, m.speed_spread() > kSlowRank);
      return;
    }
    est_[i] = (1.0 - kSmoothing) * prev + kSmoothing * c;
  }

 private:
  std::size_t best() const {
    std::size_t b = 0;
    for (std::size_t k = 1; k < cand_.size(); ++k) {
      if (est_[k] && (!est_[b] || *est_[k] < *est_[b])) b = k;
    }
    return b;
  }
  std::optional<std::size_t> second(std::size_t b) const {
    std::optional<std::size_t> s;
    for (std::size_t k = 0; k < cand_.size(); ++k) {
      if (k != b && est_[k] && (!s || *est_[k] < *est_[*s])) s = k;
    }
    return s;
  }
  // Conditions changed while candidate i ran: its figure is now `now`; the
  // others' figures are from before, so those that were close to i's
  // (`before`) run again, the closest first.
  void recheck(std::size_t i, double before, double now, bool slow_rank) {
    std::vector<std::size_t> again;
    for (std::size_t k = 0; k < cand_.size(); ++k) {
      const bool close = est_[k] && *est_[k] <= before * (1.0 + kRecheck);
      if (k != i && est_[k] && (close || (slow_rank && info(cand_[k]).adaptive))) again.push_back(k);
    }
    std::sort(again.begin(), again.end(), [this](std::size_t a, std::size_t b) { return *est_[a] < *est_[b]; });
    est_[i] = now;
    for (std::size_t k = 0; k < cand_.size(); ++k) {  // the others: assume they changed alike
      if (k != i && est_[k]) *est_[k] *= now / before;
    }
    for (std::size_t k : again) est_[k].reset();
    queue_.assign(again.begin(), again.end());
    rechecking_ = !queue_.empty();
    recheck_total_ = queue_.size();
  }

  std::vector<Technique> cand_;
  std::vector<std::optional<double>> est_;  // moving average of the cost per iteration
  std::deque<std::size_t> queue_;           // candidates to run next, before exploiting
  bool rechecking_ = false;
  std::size_t recheck_total_ = 0;
  int drifts_ = 0;
};

}  // namespace

std::unique_ptr<Policy> make_explore(std::vector<Technique> candidates) {
  return std::make_unique<Explore>(std::move(candidates));
}

}  // namespace lb4mpi::selection
