// What every selection policy shares: the measurement's figures, the policy
// names, the default candidates and the factory.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <string>

#include "lb4mpi/techniques/selection.hpp"
#include "policies.hpp"

namespace lb4mpi::selection {

double Measurement::cost() const {
  if (iterations <= 0) return std::numeric_limits<double>::infinity();
  return t_par / static_cast<double>(iterations);
}

double Measurement::speed_spread() const {
  double fastest = std::numeric_limits<double>::infinity(), slowest = 0.0;
  for (std::size_t r = 0; r < rank_iterations.size() && r < rank_work.size(); ++r) {
    if (rank_iterations[r] <= 0 || !(rank_work[r] > 0.0)) continue;
    const double per_iteration = rank_work[r] / static_cast<double>(rank_iterations[r]);
    fastest = std::min(fastest, per_iteration);
    slowest = std::max(slowest, per_iteration);
  }
  if (!(slowest > 0.0) || !std::isfinite(fastest)) return 0.0;
  return slowest / fastest - 1.0;
}

double Measurement::upfront_cost() const {
  double slowest = 0.0;
  for (std::size_t r = 0; r < rank_iterations.size() && r < rank_work.size(); ++r) {
    if (rank_iterations[r] > 0) slowest = std::max(slowest, rank_work[r] / static_cast<double>(rank_iterations[r]));
  }
  if (!(slowest > 0.0) || rank_iterations.empty()) return std::numeric_limits<double>::infinity();
  return slowest / static_cast<double>(rank_iterations.size());
}

double Measurement::overhead_share() const {
  double work = 0.0, overhead = 0.0;
  for (double w : rank_work) work += w;
  for (double o : rank_overhead) overhead += o;
  return work + overhead > 0.0 ? overhead / (work + overhead) : 0.0;
}

std::string_view name(PolicyKind p) {
  switch (p) {
    case PolicyKind::Explore: return "explore";
    case PolicyKind::Bandit: return "bandit";
    case PolicyKind::Rule: return "rule";
  }
  return "?";
}

PolicyKind parse_policy(std::string_view text) {
  std::string s(text);
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  for (PolicyKind p : {PolicyKind::Explore, PolicyKind::Bandit, PolicyKind::Rule}) {
    if (s == name(p)) return p;
  }
  throw Error("unknown selection policy '" + std::string(text) + "'; valid: explore, bandit, rule");
}

std::vector<Technique> default_candidates() {
  return {kDefaultCandidates.begin(), kDefaultCandidates.end()};
}

std::unique_ptr<Policy> make_policy(PolicyKind kind, std::vector<Technique> candidates, std::uint64_t seed) {
  std::vector<Technique> unique;
  for (Technique t : candidates) {
    if (t == Technique::Auto) throw Error("auto cannot be a candidate of automatic selection");
    (void)info(t);  // throws for an id out of range
    if (std::find(unique.begin(), unique.end(), t) == unique.end()) unique.push_back(t);
  }
  if (unique.empty()) throw Error("automatic selection needs at least one candidate technique");
  switch (kind) {
    case PolicyKind::Explore: return make_explore(std::move(unique));
    case PolicyKind::Bandit: return make_bandit(std::move(unique), seed);
    case PolicyKind::Rule: return make_rule_policy(std::move(unique));
  }
  throw Error("unknown selection policy id " + std::to_string(static_cast<int>(kind)));
}

std::string fmt_us(double seconds) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g us", seconds * 1e6);
  return buf;
}

std::string fmt_ratio(double ratio) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2gx", ratio);
  return buf;
}

}  // namespace lb4mpi::selection
