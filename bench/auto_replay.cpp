// Replays automatic selection on measured steps (issue 16).
//
// bench/run_auto_bench.py records, for every run of a fixed technique, what
// each of its time steps measured (T_par and the per-rank iterations, work
// and overhead: what a selection policy is fed). This tool runs a policy —
// the library's own code, lb4mpi::selection — over those steps: at step s
// the policy picks a technique, the step s of that technique's run in the
// same repeat is what it "ran", and the policy learns from it, as the
// runtime's AutoSelection does (the first execution teaches nothing). The
// replayed total is compared with the best fixed technique in hindsight.
//
// What a replay leaves out: switching techniques costs nothing here, and an
// adaptive technique's state is that of its own fixed run at that step. It
// is a tool for designing policies; the figures in docs/PERFORMANCE.md are
// from real `--technique auto` runs.
//
//   auto_replay RUNS.jsonl [--policy explore|bandit|rule] [--candidates FAC2,GSS,...]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "lb4mpi/techniques/selection.hpp"
#include "lb4mpi/techniques/technique.hpp"

namespace {

using lb4mpi::Technique;
namespace sel = lb4mpi::selection;

using Cell = std::tuple<int, std::string, std::string>;  // ranks, app, scenario
using Steps = std::vector<sel::Measurement>;
// cell -> repeat -> technique -> steps
using Data = std::map<Cell, std::map<int, std::map<Technique, Steps>>>;

Data load(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  Data d;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    const auto j = nlohmann::json::parse(line);
    if (j.at("kind") != "fixed" || !j.contains("steps")) continue;
    const Technique t = lb4mpi::parse_technique(j.at("what").get<std::string>());
    Steps steps;
    for (const auto& s : j.at("steps")) {
      sel::Measurement m;
      m.technique = t;
      m.t_par = s.at("t_par_s").get<double>();
      for (const auto& v : s.at("iterations_per_rank")) m.rank_iterations.push_back(v.get<lb4mpi::Index>());
      for (const auto& v : s.at("work_time_per_rank")) m.rank_work.push_back(v.get<double>());
      for (const auto& v : s.at("overhead_per_rank")) m.rank_overhead.push_back(v.get<double>());
      for (auto n : m.rank_iterations) m.iterations += n;
      steps.push_back(std::move(m));
    }
    d[{j.at("ranks").get<int>(), j.at("app").get<std::string>(), j.at("scenario").get<std::string>()}]
     [j.at("repeat").get<int>()][t] = std::move(steps);
  }
  return d;
}

double total(const Steps& s) {
  double t = 0.0;
  for (const auto& m : s) t += m.t_par;
  return t;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// One replay of the policy over one repeat's runs; empty when a technique it
// picks was not recorded.
std::optional<double> replay(const std::map<Technique, Steps>& runs, sel::PolicyKind kind,
                             const std::vector<Technique>& candidates, std::string* picks) {
  auto policy = sel::make_policy(kind, candidates);
  std::size_t steps = runs.begin()->second.size();
  double sum = 0.0;
  for (std::size_t s = 0; s < steps; ++s) {
    const Technique t = policy->choose().technique;
    const auto it = runs.find(t);
    if (it == runs.end() || it->second.size() <= s) return std::nullopt;
    const sel::Measurement& m = it->second[s];
    sum += m.t_par;
    if (picks) *picks += std::string(s ? " " : "") + std::string(lb4mpi::name(t));
    if (s > 0) policy->learn(m);  // the first execution warms up and teaches nothing
  }
  return sum;
}

}  // namespace

int main(int argc, char** argv) {
  std::string path, policy = "explore", cands, show;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--policy" && i + 1 < argc) policy = argv[++i];
    else if (a == "--candidates" && i + 1 < argc) cands = argv[++i];
    else if (a == "--picks") show = "yes";
    else if (a[0] != '-') path = a;
    else {
      std::cerr << "usage: auto_replay RUNS.jsonl [--policy explore|bandit|rule] [--candidates A,B,...] [--picks]\n";
      return 2;
    }
  }
  try {
    const sel::PolicyKind kind = sel::parse_policy(policy);
    std::vector<Technique> candidates;
    for (std::size_t p = 0; p < cands.size();) {
      const std::size_t q = std::min(cands.find(',', p), cands.size());
      candidates.push_back(lb4mpi::parse_technique(cands.substr(p, q - p)));
      p = q + 1;
    }
    if (candidates.empty()) candidates = sel::default_candidates();
    const Data d = load(path);
    std::printf("| P | app | scenario | best fixed | best candidate / best | auto / best |\n|---|---|---|---|--:|--:|\n");
    double log_sum = 0.0, worst = 0.0;
    int cells = 0, within = 0;
    for (const auto& [cell, repeats] : d) {
      // Best in hindsight: the lowest median total over repeats.
      std::map<Technique, std::vector<double>> totals;
      for (const auto& [r, runs] : repeats)
        for (const auto& [t, s] : runs) totals[t].push_back(total(s));
      Technique best = totals.begin()->first, best_cand = candidates.front();
      for (const auto& [t, v] : totals) {
        if (median(v) < median(totals[best])) best = t;
        if (std::find(candidates.begin(), candidates.end(), t) != candidates.end() && totals.count(best_cand) &&
            median(v) < median(totals[best_cand]))
          best_cand = t;
      }
      std::vector<double> ratios, cand_ratios;
      std::string picks;
      for (const auto& [r, runs] : repeats) {
        if (!runs.count(best)) continue;
        const auto t = replay(runs, kind, candidates, show.empty() || !picks.empty() ? nullptr : &picks);
        if (!t) continue;
        ratios.push_back(*t / total(runs.at(best)));
        if (runs.count(best_cand)) cand_ratios.push_back(total(runs.at(best_cand)) / total(runs.at(best)));
      }
      if (ratios.empty()) continue;
      const double q = median(ratios);
      std::printf("| %d | %s | %s | %s | %.3f | %.3f |\n", std::get<0>(cell), std::get<1>(cell).c_str(),
                  std::get<2>(cell).c_str(), std::string(lb4mpi::name(best)).c_str(),
                  cand_ratios.empty() ? NAN : median(cand_ratios), q);
      if (!picks.empty()) std::printf("    %s\n", picks.c_str());
      log_sum += std::log(q);
      worst = std::max(worst, q);
      ++cells;
      within += q <= 1.05;
    }
    std::printf("\n%s: geometric mean %.3f, within 5 %% in %d of %d cells, worst %.3f\n", policy.c_str(),
                cells ? std::exp(log_sum / cells) : NAN, within, cells, worst);
  } catch (const std::exception& e) {
    std::cerr << "auto_replay: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
