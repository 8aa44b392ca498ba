#include "summary.hpp"

#include <cinttypes>
#include <cstdio>
#include <iostream>

#include "lb4mpi/techniques/technique.hpp"

namespace lb4mpi::apps {

std::string hex64(std::uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%016" PRIx64, v);
  return buf;
}

nlohmann::ordered_json make_summary(const AppContext& ctx, std::string_view app, const Options& opt,
                                    Index n, const std::vector<StepResult>& steps) {
  using json = nlohmann::ordered_json;
  const std::size_t p = static_cast<std::size_t>(ctx.size());
  std::vector<Index> iterations(p, 0);
  std::vector<double> work(p, 0.0), overhead(p, 0.0), idle_total(p, 0.0);
  double t_par = 0.0, wall = 0.0, imbalance = 0.0, cov = 0.0;
  Index chunks = 0;
  bool consistent = true;
  json jsteps = json::array();
  for (const StepResult& s : steps) {
    const Report& r = s.report;
    json js;
    js["t_par_s"] = r.t_par;
    js["wall_s"] = s.wall_s;
    js["checksum"] = hex64(s.checksum);
    js["chunks"] = r.chunks();
    js["load_imbalance_pct"] = r.load_imbalance_percent();
    js["cov_finish"] = r.finish_cov();
    json it = json::array(), wt = json::array(), ov = json::array(), fin = json::array(),
         idle = json::array(), serve = json::array(), calc = json::array();
    for (std::size_t k = 0; k < r.ranks.size(); ++k) {
      const RankReport& rr = r.ranks[k];
      it.push_back(rr.iterations);
      wt.push_back(rr.work_time);
      ov.push_back(rr.overhead);
      fin.push_back(rr.finish_time);
      idle.push_back(rr.idle_time(r.t_par));
      serve.push_back(rr.serve_time);
      calc.push_back(rr.calculations);
      if (k < p) {
        iterations[k] += rr.iterations;
        work[k] += rr.work_time;
        overhead[k] += rr.overhead;
        idle_total[k] += rr.idle_time(r.t_par);
      }
    }
    js["iterations_per_rank"] = it;
    js["work_time_per_rank"] = wt;
    js["overhead_per_rank"] = ov;
    js["finish_time_per_rank"] = fin;
    js["idle_time_per_rank"] = idle;
    js["serve_time_per_rank"] = serve;
    js["calculations_per_rank"] = calc;
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
  j["chunks"] = chunks;
  j["iterations_per_rank"] = iterations;
  j["load_imbalance_pct"] = imbalance / k;
  j["cov_finish"] = cov / k;
  j["work_time_per_rank"] = work;
  j["overhead_per_rank"] = overhead;
  j["idle_time_per_rank"] = idle_total;
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
  if (ctx.rank() != 0) return;
  std::cout << summary.dump() << '\n' << std::flush;
}

}  // namespace lb4mpi::apps
