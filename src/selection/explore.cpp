// Explore-then-exploit with change detection: every candidate runs once (in
// the order given), then the one with the lowest estimated T_par per
// iteration runs on. A candidate's estimate is the lower median of its last
// kKeep figures, so that one execution disturbed by the machine (another
// job's time slice) neither condemns a candidate nor moves the choice.
//
// Conditions change (a slowed rank, another input) when the exploited
// candidate's figure moves by more than kDrift twice in a row the same way.
// One figure of a non-adaptive candidate more than kJump up is checked at
// once: the best adaptive candidate runs one execution (the probe). If its
// figure rose by more than kConfirm, or the exploited candidate's next
// figure jumps again, conditions changed; else it was a passing disturbance
// (another job's time slice) and the jump's figure is dropped.
//
// After a change the candidates that were within kRecheck of the best
// before it run once more — after a rise the adaptive ones too, and first:
// a rise is most often a rank that became slower, the case they are made
// for — and the best is chosen again. The figures of the candidates not
// rechecked are scaled by the change seen; a technique that splits the loop
// up front is instead charged what the ranks' new speeds say it costs
// (Measurement::upfront_cost), and a candidate still to recheck whose
// figure so estimated is worse than a new figure by more than kSkip is left
// out (after a rise, not the adaptive ones).
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
constexpr double kJump = 0.5;      // one figure this far up is checked at once by a probe ...
constexpr double kConfirm = 0.1;   // ... which confirms a change when its own figure rose this much
constexpr double kRecheck = 0.3;   // after a change: recheck the candidates that were this close to the best
constexpr double kSkip = 0.1;      // ... but not those whose scaled figure is this much worse than a new one

class Explore final : public Policy {
 public:
  explicit Explore(std::vector<Technique> c) : cand_(std::move(c)), figures_(cand_.size()), stale_(cand_.size()) {
    for (std::size_t i = 0; i < cand_.size(); ++i) queue_.push_back(i);
  }

  Choice choose() override {
    if (probe_) {
      return {cand_[probe_->with], "check: " + std::string(name(cand_[probe_->of])) + " took " +
                                       fmt_ratio(probe_->rise) + " its usual time; trying " +
                                       std::string(name(cand_[probe_->with])) +
                                       " to tell a change from a passing disturbance"};
    }
    if (!queue_.empty()) {
      const std::size_t i = queue_.front();
      const std::size_t nth = tried_ + 1, of = tried_ + queue_.size();
      return {cand_[i], std::string(rechecking_ ? "re-explore after a change: trying " : "explore: trying ") +
                            std::string(name(cand_[i])) + " (" + std::to_string(nth) + " of " + std::to_string(of) +
                            ")"};
    }
    const std::size_t b = best();
    // Right after a change that no other candidate needs a new run for, say so once.
    std::string reason = settled_ ? "re-explore after a change: no other candidate needs a new run; " : "";
    settled_ = false;
    reason += "exploit: " + std::string(name(cand_[b])) + " has the lowest T_par per iteration (" +
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
    if (probe_) {
      // The probe ran: did its figure rise too?
      const Probe pr = *probe_;
      probe_.reset();
      if (i != pr.with) return;
      const double was = *estimate(i);
      add(i, c);
      if (c / was - 1.0 > kConfirm) {
        recheck(pr.of, pr.before, true, 1, m);
        measured_since_change(i, c);
      } else {
        figures_[pr.of].pop_back();  // the disturbance's figure, unless it comes again
        jumped_ = pr;
        jumped_->seen = c;
      }
      return;
    }
    if (!queue_.empty()) {
      if (queue_.front() == i) {
        queue_.pop_front();
        ++tried_;
      }
      if (stale_[i]) figures_[i].clear();
      stale_[i] = false;
      add(i, c);
      if (rechecking_) prune();
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
    // A jump right after a probe that saw none: it stays, a change.
    const std::optional<Probe> again = jumped_ && jumped_->of == i && moved > kJump ? jumped_ : std::nullopt;
    jumped_.reset();
    if (streak_ >= 2 || again) {
      recheck(i, before, moved > 0.0, again ? 1 : 2, m);
      if (again) measured_since_change(again->with, again->seen);
      streak_ = 0;
      direction_ = 0;
    } else if (moved > kJump && !info(cand_[i]).adaptive) {
      // One figure far up: a rank slowed down, or a passing disturbance. The
      // best adaptive candidate runs once: if its figure rose too, it is a
      // change (and it was the right thing to run); if not, nothing changed.
      std::optional<std::size_t> a;
      for (std::size_t k = 0; k < cand_.size(); ++k) {
        if (info(cand_[k]).adaptive && estimate(k) && (!a || *estimate(k) < *estimate(*a))) a = k;
      }
      if (a) probe_ = Probe{i, *a, before, c / before};
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
  // its last `changed` figures are the new conditions'. The others' figures are
  // from before: those that were close to i's run again, the closest first.
  void recheck(std::size_t i, double before, bool rise, std::size_t changed, const Measurement& m) {
    const std::deque<double> recent(figures_[i].end() - static_cast<std::ptrdiff_t>(changed), figures_[i].end());
    figures_[i] = recent;
    const double now = *estimate(i);
    std::vector<std::size_t> again;
    for (std::size_t k = 0; k < cand_.size(); ++k) {
      if (k == i || figures_[k].empty()) continue;
      const bool close = *estimate(k) <= before * (1.0 + kRecheck);
      if (close || (rise && info(cand_[k]).adaptive)) again.push_back(k);
    }
    const auto first = [&](std::size_t a, std::size_t b) {
      if (rise && info(cand_[a]).adaptive != info(cand_[b]).adaptive) return info(cand_[a]).adaptive;
      return *estimate(a) < *estimate(b);
    };
    std::sort(again.begin(), again.end(), first);
    // The others: assume they changed alike; but a technique that splits
    // the loop up front waits for the slowest rank's share, so it is charged
    // what the ranks' new speeds say it costs.
    const double upfront = m.upfront_cost();
    for (std::size_t k = 0; k < cand_.size(); ++k) {
      if (k != i) {
        for (double& f : figures_[k]) f *= now / before;
      }
      if (k != i && info(cand_[k]).upfront && !figures_[k].empty() && upfront > *estimate(k))
        figures_[k].assign(1, upfront);
    }
    for (std::size_t k : again) stale_[k] = true;
    queue_.assign(again.begin(), again.end());
    rechecking_ = !queue_.empty();
    tried_ = 0;
    rise_ = rise;
    prune();
    settled_ = queue_.empty();
    rechecking_ = !queue_.empty();
  }
  // Candidate k measured `c` after the change: it need not run again.
  void measured_since_change(std::size_t k, double c) {
    figures_[k].assign(1, c);
    stale_[k] = false;
    queue_.erase(std::remove(queue_.begin(), queue_.end(), k), queue_.end());
    prune();
    rechecking_ = !queue_.empty();
  }
  // While rechecking: a candidate still to run whose scaled figure is worse
  // than the best figure measured since the change by more than kSkip is
  // left out — after a rise, not the adaptive ones (their old figures say
  // little of how they cope with a slower rank).
  void prune() {
    std::optional<double> fresh;
    for (std::size_t k = 0; k < cand_.size(); ++k) {
      if (!stale_[k] && estimate(k) && (!fresh || *estimate(k) < *fresh)) fresh = estimate(k);
    }
    if (!fresh) return;
    std::deque<std::size_t> keep;
    for (std::size_t k : queue_) {
      if ((rise_ && info(cand_[k]).adaptive) || *estimate(k) <= *fresh * (1.0 + kSkip)) keep.push_back(k);
    }
    queue_ = std::move(keep);
  }

  std::vector<Technique> cand_;
  std::vector<std::deque<double>> figures_;  // per candidate: its last kKeep costs per iteration
  std::deque<std::size_t> queue_;            // candidates to run next, before exploiting
  struct Probe {
    std::size_t of;    // the exploited candidate whose figure jumped ...
    std::size_t with;  // ... the adaptive candidate that runs once to check
    double before;     // of's estimate before the jump
    double rise;       // the jump: new figure over `before`
    double seen = 0.0;  // the probe's figure
  };
  std::optional<Probe> probe_;
  std::optional<Probe> jumped_;  // the probe that saw no change, just before
  std::vector<bool> stale_;                  // per candidate: its figures are from before a change, scaled
  bool rechecking_ = false;
  bool rise_ = false;  // the change being rechecked made the figures rise
  std::size_t tried_ = 0;  // candidates of the queue run so far
  bool settled_ = false;  // a change was rechecked and every other candidate left out: said at the next choice
  int streak_ = 0;     // consecutive surprising figures of the exploited candidate ...
  int direction_ = 0;  // ... all up (+1) or all down (-1)
  std::size_t followed_ = 0;  // the candidate the streak is of
};

}  // namespace

std::unique_ptr<Policy> make_explore(std::vector<Technique> candidates) {
  return std::make_unique<Explore>(std::move(candidates));
}

}  // namespace lb4mpi::selection
