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

nlohmann::ordered_json make_summary(const AppContext& ctx, std::string_view app, const Options& opt,
                                    Index n, const std::vector<StepResult>& steps) {
  using json = nlohmann::ordered_json;
  const std::size_t p = static_cast<std::size_t>(ctx.size());
  std::vector<Index> iterations(p, 0);
  std::vector<double> work(p, 0.0), overhead(p, 0.0), idle_total(p, 0.0), serve_total(p, 0.0),
      waiting_total(p, 0.0);
  double t_par = 0.0, wall = 0.0, imbalance = 0.0, cov = 0.0;
  std::vector<Balance> balances;  // one per execution
  Index chunks = 0;
  bool consistent = true;
  json jsteps = json::array();
  std::vector<int> failed_ranks;
  Index reissued = 0;
  for (const StepResult& s : steps) {
    for (int f : s.report.failed_ranks) {
      if (std::find(failed_ranks.begin(), failed_ranks.end(), f) == failed_ranks.end()) failed_ranks.push_back(f);
    }
    reissued += s.report.reissued_chunks;
    const Report& r = s.report;
    json js;
    js["technique"] = std::string(name(r.technique));  // the one automatic selection picked, with its reason
    if (!r.selection.empty()) js["selection"] = r.selection;
    js["t_par_s"] = r.t_par;
    js["wall_s"] = s.wall_s;
    js["checksum"] = hex64(s.checksum);
    js["chunks"] = r.chunks();
    js["load_imbalance_pct"] = r.load_imbalance_percent();
    js["cov_finish"] = r.finish_cov();
    js["failed_ranks"] = r.failed_ranks;
    js["reissued_chunks"] = r.reissued_chunks;
    json it = json::array(), wt = json::array(), ov = json::array(), fin = json::array(),
         idle = json::array(), serve = json::array(), calc = json::array(), waiting = json::array();
    for (std::size_t k = 0; k < r.ranks.size(); ++k) {
      const RankReport& rr = r.ranks[k];
      it.push_back(rr.iterations);
      wt.push_back(rr.work_time);
      ov.push_back(rr.overhead);
      fin.push_back(rr.finish_time);
      idle.push_back(rr.idle_time(r.t_par));
      serve.push_back(rr.serve_time);
      calc.push_back(rr.calculations);
      waiting.push_back(waiting_time(rr));
      if (k < p) {
        iterations[k] += rr.iterations;
        work[k] += rr.work_time;
        overhead[k] += rr.overhead;
        idle_total[k] += rr.idle_time(r.t_par);
        serve_total[k] += rr.serve_time;
        waiting_total[k] += waiting_time(rr);
      }
    }
    js["iterations_per_rank"] = it;
    js["work_time_per_rank"] = wt;
    js["overhead_per_rank"] = ov;
    js["finish_time_per_rank"] = fin;
    js["idle_time_per_rank"] = idle;
    js["serve_time_per_rank"] = serve;
    js["calculations_per_rank"] = calc;
    js["waiting_time_per_rank"] = waiting;
    balances.push_back(balance_of(r));
    put_balance(js, balances.back());
    jsteps.push_back(std::move(js));
    t_par += r.t_par;
    wall += s.wall_s;
    chunks += r.chunks();
    imbalance += r.load_imbalance_percent();
    cov += r.finish_cov();
    consistent = consistent && s.checksum == steps.front().checksum;
  }
  const double k = steps.empty() ? 1.0 : static_cast<double>(steps.size());

  json j;
  j["app"] = std::string(app);
  j["technique"] = std::string(name(opt.technique));
  j["mode"] = std::string(name(opt.mode));
  j["ranks"] = ctx.size();
  j["repeat"] = steps.size();
  j["loop_iterations"] = n;
  j["iterations"] = n * static_cast<Index>(steps.size());
  j["t_par_s"] = t_par;
  j["wall_s"] = wall;
  j["checksum"] = hex64(steps.empty() ? 0 : steps.front().checksum);
  j["checksum_consistent"] = consistent;
  j["robust"] = opt.robust;
  j["failed_ranks"] = failed_ranks;
  j["coordinator"] = steps.empty() ? 0 : steps.back().report.coordinator;
  j["reissued_chunks"] = reissued;
  j["chunks"] = chunks;
  j["iterations_per_rank"] = iterations;
  j["load_imbalance_pct"] = imbalance / k;
  j["cov_finish"] = cov / k;
  j["work_time_per_rank"] = work;
  j["overhead_per_rank"] = overhead;
  j["idle_time_per_rank"] = idle_total;
  j["serve_time_per_rank"] = serve_total;
  j["waiting_time_per_rank"] = waiting_total;
  put_balance(j, mean_balance(balances));
  j["steps"] = std::move(jsteps);
  j["options"] = {
      {"min_chunk", opt.params.min_chunk},      {"max_chunk", opt.params.max_chunk},
      {"break_after", opt.break_after},         {"request_when", opt.request_when},
      {"inject_delay_us", opt.inject_delay_us}, {"delay_ranks", opt.delay_ranks},
      {"coordinator", opt.coordinator},
  };
  return j;
}

void print_summary(const AppContext& ctx, const nlohmann::ordered_json& summary) {
  if (ctx.rank() != ctx.reporter()) return;
  std::cout << summary.dump() << '\n' << std::flush;
}

}  // namespace lb4mpi::apps
