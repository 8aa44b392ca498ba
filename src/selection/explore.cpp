// Explore-then-exploit with change detection: every candidate runs once (in
// the order given), then the one with the lowest estimated T_par per
// iteration runs on. A candidate's estimate is the lower median of its last
// kKeep figures, so that one execution disturbed by the machine (another
// job's time slice: 4x the usual T_par is common on a loaded node) neither
// condemns a candidate nor moves the choice.
//
// Conditions change (a slowed rank, another input) when the exploited
// candidate's figure moves by more than kDrift from its estimate, in the
// same direction, twice in a row. Then the candidates that were within
// kRecheck of the best before the change run once more — and the adaptive
// ones too when a rank became slower per iteration than the others
// (Measurement::speed_spread above kSlowRank), the case they are made for —
// and the best is chosen again; the figures of the candidates not rechecked
// are scaled by the change seen.
#include <algorithm>
#include <cmath>
#include <deque>
#include <optional>
#include <string>
#include <vector>

#include "policies.hpp"

namespace lb4mpi::selection {
namespace {

constexpr std::size_t kKeep = 3;   // figures kept per candidate
constexpr double kDrift = 0.25;    // a move this large, twice in a row the same way, is a change of conditions
constexpr double kRecheck = 0.3;   // after a change: recheck the candidates that were this close to the best
constexpr double kSlowRank = 0.5;  // speed spread at which the adaptive candidates are rechecked too

class Explore final : public Policy {
 public:
  explicit Explore(std::vector<Technique> c) : cand_(std::move(c)), figures_(cand_.size()) {
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
                         fmt_us(*estimate(b));
    if (const auto s = second(b)) reason += "; next " + std::string(name(cand_[*s])) + " " + fmt_us(*estimate(*s));
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
      add(i, c);
      if (queue_.empty()) rechecking_ = false;
      return;
    }
    // Exploiting: follow the figure; watch for a change of conditions.
    const double before = *estimate(i);
    const double moved = c / before - 1.0;
    const int direction = moved > kDrift ? 1 : (moved < -kDrift ? -1 : 0);
    if (i != followed_) direction_ = 0;  // another candidate is exploited now: its own streak
    followed_ = i;
    streak_ = (direction != 0 && direction == direction_) ? streak_ + 1 : (direction != 0 ? 1 : 0);
    direction_ = direction;
    add(i, c);
    if (streak_ >= 2) {
      streak_ = 0;
      direction_ = 0;
      recheck(i, before, m.speed_spread() > kSlowRank);
    }
  }

 private:
  void add(std::size_t i, double c) {
    figures_[i].push_back(c);
    if (figures_[i].size() > kKeep) figures_[i].pop_front();
  }
  // The lower median of a candidate's kept figures; none before it ran.
  std::optional<double> estimate(std::size_t i) const {
    if (figures_[i].empty()) return std::nullopt;
    std::vector<double> v(figures_[i].begin(), figures_[i].end());
    std::sort(v.begin(), v.end());
    return v[(v.size() - 1) / 2];
  }
  std::size_t best() const {
    std::size_t b = 0;
    for (std::size_t k = 1; k < cand_.size(); ++k) {
      const auto ek = estimate(k), eb = estimate(b);
      if (ek && (!eb || *ek < *eb)) b = k;
    }
    return b;
  }
  std::optional<std::size_t> second(std::size_t b) const {
    std::optional<std::size_t> s;
    for (std::size_t k = 0; k < cand_.size(); ++k) {
      if (k != b && estimate(k) && (!s || *estimate(k) < *estimate(*s))) s = k;
    }
    return s;
  }
  // Conditions changed while candidate i ran: its estimate was `before`;
  // its last two figures are the new conditions'. The others' figures are
  // from before: those that were close to i's run again, the closest first.
  void recheck(std::size_t i, double before, bool slow_rank) {
    const std::deque<double> recent(figures_[i].end() - 2, figures_[i].end());
    figures_[i] = recent;
    const double now = *estimate(i);
    std::vector<std::size_t> again;
    for (std::size_t k = 0; k < cand_.size(); ++k) {
      if (k == i || figures_[k].empty()) continue;
      const bool close = *estimate(k) <= before * (1.0 + kRecheck);
      if (close || (slow_rank && info(cand_[k]).adaptive)) again.push_back(k);
    }
    std::sort(again.begin(), again.end(), [this](std::size_t a, std::size_t b) { return *estimate(a) < *estimate(b); });
    for (std::size_t k = 0; k < cand_.size(); ++k) {  // the others: assume they changed alike
      if (k != i) {
        for (double& f : figures_[k]) f *= now / before;
      }
    }
    for (std::size_t k : again) figures_[k].clear();
    queue_.assign(again.begin(), again.end());
    rechecking_ = !queue_.empty();
    recheck_total_ = queue_.size();
  }

  std::vector<Technique> cand_;
  std::vector<std::deque<double>> figures_;  // per candidate: its last kKeep costs per iteration
  std::deque<std::size_t> queue_;            // candidates to run next, before exploiting
  bool rechecking_ = false;
  std::size_t recheck_total_ = 0;
  int streak_ = 0;     // consecutive surprising figures of the exploited candidate ...
  int direction_ = 0;  // ... all up (+1) or all down (-1)
  std::size_t followed_ = 0;  // the candidate the streak is of
};

}  // namespace

std::unique_ptr<Policy> make_explore(std::vector<Technique> candidates) {
  return std::make_unique<Explore>(std::move(candidates));
}

}  // namespace lb4mpi::selection
