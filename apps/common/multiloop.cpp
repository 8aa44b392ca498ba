#include "multiloop.hpp"

#include <algorithm>
#include <string>

#include "cli.hpp"
#include "lb4mpi/techniques/technique.hpp"
#include "mix.hpp"
#include "summary.hpp"
#include "verdict.hpp"

namespace lb4mpi::apps {

namespace {

std::string join(const std::vector<std::string>& parts) {
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : ",") + p;
  return out;
}

/// All equal: that name; otherwise the list, comma-separated.
template <class T>
std::string names(const std::vector<Options>& opt, T Options::*field) {
  std::vector<std::string> all;
  for (const auto& o : opt) all.emplace_back(name(o.*field));
  if (std::all_of(all.begin(), all.end(), [&](const std::string& s) { return s == all.front(); }))
    return all.empty() ? std::string() : all.front();
  return join(all);
}

}  // namespace

MultiLoopCli::MultiLoopCli(Cli& cli) {
  const std::string group = "Several loops per time step";
  Cli::Opt techniques =
      cli.list("--techniques", techniques_, "one DLS technique per loop, comma-separated (instead of --technique)")
          .group(group)
          .excludes("--technique");
  Cli::Opt modes = cli.list("--modes", modes_, "one mode per loop, comma-separated (instead of --mode)")
                       .group(group)
                       .excludes("--mode");
  Cli::Opt steps = cli.option("--time-steps", time_steps_, "time steps; each runs every loop once")
                       .show_default()
                       .at_least(1)
                       .group(group);
  Cli::Opt async = cli.flag("--async", async_,
                            "asynchronous: all loops of a step in flight together (default: one "
                            "after the other, each synchronized at its end)")
                       .group(group);
  Cli::Opt probe = cli.flag("--idle-probing", idle_probing_,
                            "with --async: a rank whose loop has no work for it right now waits for "
                            "some (as LB4MPI did) instead of moving on to another loop")
                       .needs(async)
                       .group(group);
  Cli::Opt targeted = cli.flag("--targeted", targeted_,
                               "with --async: target the loops in turn, next(l) for l = 0, 1, ... as "
                               "`003`'s DLS_TargetLoop pattern (default: LoopSet::next(), the "
                               "lowest-numbered loop that has work right now)")
                          .needs(async)
                          .group(group);
  given_ = {techniques, modes, steps, async, probe, targeted};
}

bool MultiLoopCli::any_given() const {
  return std::any_of(given_.begin(), given_.end(), [](const Cli::Opt& o) { return o.given(); });
}

std::vector<Options> MultiLoopCli::options(const Options& common, int loops) const {
  std::vector<Options> out(static_cast<std::size_t>(loops), common);
  if (idle_probing_)
    for (Options& o : out) o.idle_probing = true;
  const auto want = static_cast<std::size_t>(loops);
  if (!techniques_.empty()) {
    if (techniques_.size() != want)
      throw Error("--techniques: one technique per loop: " + std::to_string(loops) +
                  " expected, got " + std::to_string(techniques_.size()) + " (" +
                  join(techniques_) + ")");
    for (std::size_t l = 0; l < want; ++l) {
      try {
        out[l].technique = parse_technique(techniques_[l]);
      } catch (const Error& e) {
        throw Error(std::string("--techniques: ") + e.what());
      }
    }
  }
  if (!modes_.empty()) {
    if (modes_.size() != want)
      throw Error("--modes: one mode per loop: " + std::to_string(loops) + " expected, got " +
                  std::to_string(modes_.size()) + " (" + join(modes_) + ")");
    for (std::size_t l = 0; l < want; ++l) {
      try {
        out[l].mode = parse_mode(modes_[l]);
      } catch (const Error& e) {
        throw Error(std::string("--modes: ") + e.what());
      }
    }
  }
  return out;
}

void validate_loops(const AppContext& ctx, const std::vector<Index>& n,
                    const std::vector<Options>& opt, int steps) {
  if (steps < 1) throw Error("--time-steps must be >= 1, got " + std::to_string(steps));
  if (n.empty() || n.size() != opt.size())
    throw Error("lb4mpi apps: one option set per loop expected");
  for (std::size_t l = 0; l < n.size(); ++l) {
    try {
      opt[l].params.validate(opt[l].technique, n[l], ctx.size());
    } catch (const InvalidParameter& e) {
      throw Error("loop " + std::to_string(l + 1) + ": " + opt[l].explain(e));
    } catch (const Error& e) {
      throw Error("loop " + std::to_string(l + 1) + ": " + e.what());
    }
    for (int r : opt[l].delay_ranks)
      if (r < 0 || r >= ctx.size())
        throw Error("--delay-ranks: rank " + std::to_string(r) + " is not in [0, " +
                    std::to_string(ctx.size()) + ")");
  }
}

std::vector<std::uint64_t> reduce_checksums(MPI_Comm comm,
                                            const std::vector<std::uint64_t>& local) {
  std::vector<std::uint64_t> global(local.size(), 0);
  MPI_Reduce(local.data(), global.data(), static_cast<int>(local.size()), MPI_UINT64_T, MPI_SUM, 0,
             comm);
  return global;
}

std::uint64_t run_checksum(const MultiRun& run) {
  std::uint64_t sum = 0;
  const std::size_t nl = run.steps.empty() ? 0 : run.steps.front().checksums.size();
  for (std::size_t l = 0; l < nl; ++l) sum += mix_result(l, loop_checksum(run, l));
  return sum;
}

bool robust_step_end(AppContext& ctx, MultiStep& st, const std::vector<std::uint64_t>& committed) {
  const int coordinator = st.reports.front().coordinator;
  bool lost = false;
  for (std::size_t l = 0; l < st.reports.size(); ++l) {
    const Report& r = st.reports[l];
    lost = lost || !r.failed_ranks.empty();
    if (r.coordinator != coordinator) {
      throw Error("robust mode: loop 1's final coordinator is rank " + std::to_string(coordinator) + ", loop " +
                  std::to_string(l + 1) + "'s rank " + std::to_string(r.coordinator) +
                  ": the results a failed coordinator committed are gone with it (docs/ROBUST.md)");
    }
  }
  st.checksums = ctx.rank() == coordinator ? committed : std::vector<std::uint64_t>(committed.size(), 0);
  ctx.set_reporter(coordinator);
  if (lost) ctx.set_lost_ranks();
  return lost;
}

void robust_verdict(const AppContext& ctx, const MultiRun& run) {
  std::vector<Report> reports;
  for (const MultiStep& st : run.steps) reports.insert(reports.end(), st.reports.begin(), st.reports.end());
  verdict_note(ctx, reports, run.steps.size(), run_checksum(run));
}

std::uint64_t loop_checksum(const MultiRun& run, std::size_t l) {
  // Step s's checksum mixed with s, so that swapping the results of two steps
  // changes the sum.
  std::uint64_t sum = 0;
  for (std::size_t s = 0; s < run.steps.size(); ++s)
    sum += mix_result(s, run.steps[s].checksums.at(l));
  return sum;
}

nlohmann::ordered_json make_multi_summary(const AppContext& ctx, std::string_view app,
                                          const std::vector<Options>& opt,
                                          const std::vector<Index>& n, const MultiRun& run,
                                          const std::vector<bool>& constant_loops) {
  using json = nlohmann::ordered_json;
  const std::size_t p = static_cast<std::size_t>(ctx.size());
  const std::size_t nl = n.size();
  const std::size_t ns = run.steps.size();
  Index per_step = 0;
  for (Index x : n) per_step += x;

  Totals total(p);  // over the loops and steps
  json jsteps = json::array();
  for (std::size_t s = 0; s < ns; ++s) {
    const MultiStep& st = run.steps[s];
    Totals step(p);  // over the loops of the step
    std::uint64_t step_sum = 0;
    std::vector<std::string> techniques;
    json jl = json::array();
    for (std::size_t l = 0; l < nl; ++l) {
      const Report& r = st.reports.at(l);
      step.add(r);
      total.add(r);
      step_sum += mix_result(l, st.checksums.at(l));
      techniques.emplace_back(name(r.technique));
      json jloop = {{"technique", std::string(name(r.technique))},
                    {"t_par_s", r.t_par},
                    {"checksum", hex64(st.checksums.at(l))},
                    {"chunks", r.chunks()},
                    {"load_imbalance_pct", r.load_imbalance_percent()}};
      if (!r.selection.empty()) jloop["selection"] = r.selection;  // automatic selection's reason
      put_balance(jloop, step.balances.back());                     // docs/METRICS.md
      jl.push_back(std::move(jloop));
    }
    json js;
    js["technique"] = join(techniques);
    js["t_par_s"] = step.t_par;
    js["wall_s"] = st.wall_s;
    js["checksum"] = hex64(step_sum);
    step.put(js, true);
    js["loops"] = std::move(jl);
    jsteps.push_back(std::move(js));
  }

  bool consistent = true;
  std::uint64_t total_sum = 0;
  json jloops = json::array();
  for (std::size_t l = 0; l < nl; ++l) {
    double lt = 0.0, li = 0.0;
    Index lc = 0;
    json tps = json::array(), imb = json::array(), cks = json::array();
    for (std::size_t s = 0; s < ns; ++s) {
      const Report& r = run.steps[s].reports.at(l);
      lt += r.t_par;
      li += r.load_imbalance_percent();
      lc += r.chunks();
      tps.push_back(r.t_par);
      imb.push_back(r.load_imbalance_percent());
      cks.push_back(hex64(run.steps[s].checksums.at(l)));
      if (l < constant_loops.size() && constant_loops[l])
        consistent =
            consistent && run.steps[s].checksums.at(l) == run.steps.front().checksums.at(l);
    }
    const std::uint64_t ck = loop_checksum(run, l);
    total_sum += mix_result(l, ck);
    json j;
    j["technique"] = std::string(name(opt[l].technique));
    j["mode"] = std::string(name(opt[l].mode));
    j["loop_iterations"] = n[l];
    j["iterations"] = n[l] * static_cast<Index>(ns);
    j["t_par_s"] = lt;
    j["checksum"] = hex64(ck);
    j["chunks"] = lc;
    j["load_imbalance_pct"] = ns == 0 ? 0.0 : li / static_cast<double>(ns);
    j["t_par_per_step"] = std::move(tps);
    j["load_imbalance_pct_per_step"] = std::move(imb);
    j["step_checksums"] = std::move(cks);
    jloops.push_back(std::move(j));
  }

  json j = summary_header(ctx, app, names(opt, &Options::technique), names(opt, &Options::mode));
  j["repeat"] = ns;
  j["loop_iterations"] = per_step;
  j["iterations"] = per_step * static_cast<Index>(ns);
  j["t_par_s"] = total.t_par;
  j["wall_s"] = run.total_time_s;
  j["checksum"] = hex64(total_sum);
  j["checksum_consistent"] = consistent;
  j["robust"] = std::any_of(opt.begin(), opt.end(), [](const Options& o) { return o.robust; });
  total.put(j, false);  // the balance figures: means over the loops and steps
  j["async"] = run.asynchronous;
  j["targeted"] = run.targeted;
  j["time_steps"] = ns;
  j["total_time_s"] = run.total_time_s;
  j["loops"] = std::move(jloops);
  j["steps"] = std::move(jsteps);
  j["options"] = options_json(opt.front());
  j["options"]["idle_probing"] = opt.front().idle_probing;
  return j;
}

}  // namespace lb4mpi::apps
