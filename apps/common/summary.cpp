#include "summary.hpp"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <numeric>

#include "lb4mpi/techniques/technique.hpp"

namespace lb4mpi::apps {

std::string hex64(std::uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%016" PRIx64, v);
  return buf;
}

double percent_imbalance(const std::vector<double>& xs) {
  if (xs.empty()) return 0.0;
  const double mean = std::accumulate(xs.begin(), xs.end(), 0.0) / static_cast<double>(xs.size());
  if (!(mean > 0.0)) return 0.0;
  return (*std::max_element(xs.begin(), xs.end()) / mean - 1.0) * 100.0;
}

double coefficient_of_variation(const std::vector<double>& xs) {
  if (xs.size() < 2) return 0.0;
  const double n = static_cast<double>(xs.size());
  const double mean = std::accumulate(xs.begin(), xs.end(), 0.0) / n;
  if (!(mean > 0.0)) return 0.0;
  double sq = 0.0;
  for (double x : xs) sq += (x - mean) * (x - mean);
  return std::sqrt(sq / n) / mean;
}

double waiting_time(const RankReport& r) { return std::max(0.0, r.overhead - r.serve_time); }

Balance balance_of(const Report& r) {
  Balance b;
  std::vector<double> busy;
  busy.reserve(r.ranks.size());
  double sum_busy = 0.0, sum_sched = 0.0, sum_idle = 0.0;
  std::size_t finished = 0;
  for (const RankReport& rr : r.ranks) {
    if (rr.failed) continue;  // robust mode: its figures are unknown
    ++finished;
    busy.push_back(rr.work_time);
    sum_busy += rr.work_time;
    sum_sched += waiting_time(rr) + rr.serve_time;
    sum_idle += rr.idle_time(r.t_par);
  }
  b.busy_imbalance_pct = percent_imbalance(busy);
  b.busy_cov = coefficient_of_variation(busy);
  b.finish_imbalance_pct = r.load_imbalance_percent();
  b.finish_cov = r.finish_cov();
  const double total = static_cast<double>(finished) * r.t_par;
  if (total > 0.0) {
    b.busy_pct = 100.0 * sum_busy / total;
    b.scheduling_pct = 100.0 * sum_sched / total;
    b.idle_pct = 100.0 * sum_idle / total;
  }
  return b;
}

Balance mean_balance(const std::vector<Balance>& bs) {
  Balance m;
  if (bs.empty()) return m;
  for (const Balance& b : bs) {
    m.busy_imbalance_pct += b.busy_imbalance_pct;
    m.busy_cov += b.busy_cov;
    m.finish_imbalance_pct += b.finish_imbalance_pct;
    m.finish_cov += b.finish_cov;
    m.busy_pct += b.busy_pct;
    m.scheduling_pct += b.scheduling_pct;
    m.idle_pct += b.idle_pct;
  }
  const double k = static_cast<double>(bs.size());
  for (double* f : {&m.busy_imbalance_pct, &m.busy_cov, &m.finish_imbalance_pct, &m.finish_cov, &m.busy_pct,
                    &m.scheduling_pct, &m.idle_pct}) {
    *f /= k;
  }
  return m;
}

void put_balance(nlohmann::ordered_json& j, const Balance& b) {
  j["busy_imbalance_pct"] = b.busy_imbalance_pct;
  j["busy_cov"] = b.busy_cov;
  j["finish_imbalance_pct"] = b.finish_imbalance_pct;
  j["finish_cov"] = b.finish_cov;
  j["busy_pct"] = b.busy_pct;
  j["scheduling_pct"] = b.scheduling_pct;
  j["idle_pct"] = b.idle_pct;
}

Totals::Totals(std::size_t p)
    : iterations(p, 0),
      calculations(p, 0),
      work(p, 0.0),
      overhead(p, 0.0),
      finish(p, 0.0),
      idle(p, 0.0),
      serve(p, 0.0),
      waiting(p, 0.0) {}

void Totals::add(const Report& r) {
  for (std::size_t k = 0; k < r.ranks.size() && k < iterations.size(); ++k) {
    const RankReport& rr = r.ranks[k];
    iterations[k] += rr.iterations;
    calculations[k] += rr.calculations;
    work[k] += rr.work_time;
    overhead[k] += rr.overhead;
    finish[k] = std::max(finish[k], rr.finish_time);
    idle[k] += rr.idle_time(r.t_par);
    serve[k] += rr.serve_time;
    waiting[k] += waiting_time(rr);
  }
  for (int f : r.failed_ranks) {
    if (std::find(failed_ranks.begin(), failed_ranks.end(), f) == failed_ranks.end()) failed_ranks.push_back(f);
  }
  reissued_chunks += r.reissued_chunks;
  coordinator = r.coordinator;
  t_par += r.t_par;
  chunks += r.chunks();
  imbalance_sum += r.load_imbalance_percent();
  cov_sum += r.finish_cov();
  balances.push_back(balance_of(r));
}

void Totals::put(nlohmann::ordered_json& j, bool per_execution) const {
  const double k = balances.empty() ? 1.0 : static_cast<double>(balances.size());
  j["failed_ranks"] = failed_ranks;
  j["coordinator"] = coordinator;
  j["reissued_chunks"] = reissued_chunks;
  j["chunks"] = chunks;
  j["load_imbalance_pct"] = imbalance_sum / k;
  j["cov_finish"] = cov_sum / k;
  j["iterations_per_rank"] = iterations;
  j["work_time_per_rank"] = work;
  j["overhead_per_rank"] = overhead;
  if (per_execution) j["finish_time_per_rank"] = finish;
  j["idle_time_per_rank"] = idle;
  j["serve_time_per_rank"] = serve;
  if (per_execution) j["calculations_per_rank"] = calculations;
  j["waiting_time_per_rank"] = waiting;
  put_balance(j, mean_balance(balances));
}

nlohmann::ordered_json summary_header(const AppContext& ctx, std::string_view app, std::string_view technique,
                                      std::string_view mode) {
  nlohmann::ordered_json j;
  j["app"] = std::string(app);
  j["technique"] = std::string(technique);
  j["mode"] = std::string(mode);
  j["ranks"] = ctx.size();
  j["hosts"] = ctx.hosts();
  return j;
}

nlohmann::ordered_json options_json(const Options& opt) {
  return {
      {"min_chunk", opt.params.min_chunk},      {"max_chunk", opt.params.max_chunk},
      {"break_after", opt.break_after},         {"request_when", opt.request_when},
      {"chunks_per_reply", opt.chunks_per_reply},
      {"inject_delay_us", opt.inject_delay_us}, {"delay_ranks", opt.delay_ranks},
      {"coordinator", opt.coordinator},
  };
}

std::string ranks_per_host(const std::vector<std::string>& hosts) {
  std::vector<std::pair<std::string, std::vector<int>>> groups;  // in order of first appearance
  for (std::size_t r = 0; r < hosts.size(); ++r) {
    auto g = std::find_if(groups.begin(), groups.end(), [&](const auto& x) { return x.first == hosts[r]; });
    if (g == groups.end()) g = groups.insert(groups.end(), {hosts[r], {}});
    g->second.push_back(static_cast<int>(r));
  }
  std::string out = std::to_string(hosts.size()) + (hosts.size() == 1 ? " rank" : " ranks") + " on " +
                    std::to_string(groups.size()) + (groups.size() == 1 ? " host:" : " hosts:");
  for (const auto& [host, ranks] : groups) {
    out += " " + host + " (" + std::to_string(ranks.size()) + (ranks.size() == 1 ? " rank: " : " ranks: ");
    // Runs of consecutive ranks as "a-b".
    for (std::size_t i = 0; i < ranks.size();) {
      std::size_t e = i;
      while (e + 1 < ranks.size() && ranks[e + 1] == ranks[e] + 1) ++e;
      out += (i == 0 ? "" : ",") + std::to_string(ranks[i]) + (e > i ? "-" + std::to_string(ranks[e]) : "");
      i = e + 1;
    }
    out += ")";
  }
  return out;
}

nlohmann::ordered_json make_summary(const AppContext& ctx, std::string_view app, const Options& opt,
                                    Index n, const std::vector<StepResult>& steps) {
  using json = nlohmann::ordered_json;
  const std::size_t p = static_cast<std::size_t>(ctx.size());
  Totals total(p);
  double wall = 0.0;
  bool consistent = true;
  json jsteps = json::array();
  for (const StepResult& s : steps) {
    const Report& r = s.report;
    Totals one(p);
    one.add(r);
    total.add(r);
    json js;
    js["technique"] = std::string(name(r.technique));  // the one automatic selection picked, with its reason
    if (!r.selection.empty()) js["selection"] = r.selection;
    js["t_par_s"] = r.t_par;
    js["wall_s"] = s.wall_s;
    js["checksum"] = hex64(s.checksum);
    one.put(js, true);
    jsteps.push_back(std::move(js));
    wall += s.wall_s;
    consistent = consistent && s.checksum == steps.front().checksum;
  }

  json j = summary_header(ctx, app, name(opt.technique), name(opt.mode));
  j["repeat"] = steps.size();
  j["loop_iterations"] = n;
  j["iterations"] = n * static_cast<Index>(steps.size());
  j["t_par_s"] = total.t_par;
  j["wall_s"] = wall;
  j["checksum"] = hex64(steps.empty() ? 0 : steps.front().checksum);
  j["checksum_consistent"] = consistent;
  j["robust"] = opt.robust;
  total.put(j, false);
  j["steps"] = std::move(jsteps);
  j["options"] = options_json(opt);
  return j;
}

void print_summary(const AppContext& ctx, const nlohmann::ordered_json& summary) {
  if (ctx.rank() != ctx.reporter()) return;
  std::cout << summary.dump() << '\n' << std::flush;
  std::cerr << ctx.name() << ": " << ranks_per_host(ctx.hosts()) << '\n' << std::flush;
}

}  // namespace lb4mpi::apps
