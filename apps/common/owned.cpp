#include "owned.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "steps.hpp"
#include "summary.hpp"

namespace lb4mpi::apps {

OwnedCli::OwnedCli(Cli& cli, const StealOptions& base)
    : base_(base),
      balancer_(name(base.balancer)),
      amount_(base.amount.text()),
      victim_(name(base.victim)),
      chunking_(base.chunking ? std::string(name(*base.chunking)) : "pieces"),
      ranks_per_node_(base.ranks_per_node),
      break_after_(base.break_after) {
  for (double s : base.speeds) speeds_ += (speeds_.empty() ? "" : ",") + std::to_string(s);
  const std::string group = "Balancing (defaults from LB4MPI_* variables, docs/STEALING.md)";
  std::string built;
  for (Balancer b : StealOptions::built_balancers()) built += (built.empty() ? "" : "|") + std::string(name(b));
  cli.option("--balancer", balancer_, "the balancer: " + built).show_default().group(group);
  cli.option("--steal-amount", amount_, "what a thief takes: a technique (GSS, FAC2, ...) or a ratio (25%, 35%, 50%)")
      .show_default()
      .group(group);
  cli.option("--victim", victim_, "victim selection: random|locality|naive-locality").show_default().group(group);
  cli.option("--chunking", chunking_, "the owner's chunks: a non-adaptive technique, or pieces (everything unstarted can be stolen)")
      .show_default()
      .group(group);
  cli.option("--ranks-per-node", ranks_per_node_, "emulated nodes of K ranks for --victim locality (0: ask MPI)")
      .show_default()
      .at_least(0)
      .group(group);
  cli.option("--break-after", break_after_, "owner: iterations between looks at its messages, -1 = auto")
      .show_default()
      .group(group);
  cli.option("--speeds", speeds_, "per-rank speed factors, comma-separated (emulated heterogeneity)").group(group);
  cli.option("--repeat", repeat_, "run the loop K times (time steps) and report each").show_default().at_least(1);
}

StealOptions OwnedCli::options(int ranks) const {
  StealOptions o = base_;
  const auto named = [](const char* flag, auto parse, const std::string& text) {
    try {
      return parse(text);
    } catch (const Error& e) {
      throw Error(std::string(flag) + ": " + e.what());
    }
  };
  o.balancer = named("--balancer", [](const std::string& t) { return parse_balancer(t); }, balancer_);
  o.amount = named("--steal-amount", [](const std::string& t) { return parse_steal_amount(t); }, amount_);
  o.victim = named("--victim", [](const std::string& t) { return parse_victim(t); }, victim_);
  if (chunking_ == "pieces") {
    o.chunking.reset();
  } else {
    o.chunking = named("--chunking", [](const std::string& t) { return parse_technique(t); }, chunking_);
  }
  o.ranks_per_node = ranks_per_node_;
  o.break_after = break_after_;
  o.speeds.clear();
  for (std::size_t pos = 0; !speeds_.empty() && pos <= speeds_.size();) {
    const std::size_t comma = speeds_.find(',', pos);
    const std::string item = speeds_.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    errno = 0;
    char* end = nullptr;
    const double v = std::strtod(item.c_str(), &end);
    if (errno != 0 || end == item.c_str() || *end != '\0' || !std::isfinite(v)) {
      throw Error("--speeds: '" + item + "' is not a number (positive speed factors, one per rank)");
    }
    o.speeds.push_back(v);
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  // Where a value came from, for the errors of StealOptions::validate.
  o.origin["balancer"] = "--balancer " + balancer_;
  o.origin["amount"] = "--steal-amount " + amount_;
  o.origin["speeds"] = "--speeds " + speeds_;
  o.origin["ranks_per_node"] = "--ranks-per-node " + std::to_string(ranks_per_node_);
  o.validate(ranks);
  return o;
}

namespace {

using json = nlohmann::ordered_json;

// The stealing fields of one execution, or summed over several.
void put_steals(json& j, const std::vector<const StealReport*>& reports, std::size_t p) {
  Index attempts = 0, steals = 0, stolen = 0;
  double send = 0.0, receive = 0.0, cov = 0.0;
  std::vector<Index> steals_r(p, 0), stolen_r(p, 0), given_r(p, 0), rejects_r(p, 0);
  std::vector<double> wait_r(p, 0.0), result_r(p, 0.0);
  for (const StealReport* r : reports) {
    attempts += r->steal_attempts();
    steals += r->successful_steals();
    stolen += r->iterations_stolen();
    send += r->send_time_per_steal() * static_cast<double>(r->successful_steals());
    receive += r->receive_time_per_steal() * static_cast<double>(r->successful_steals());
    cov += r->time_cov();
    for (std::size_t k = 0; k < r->ranks.size() && k < p; ++k) {
      steals_r[k] += r->ranks[k].steals;
      stolen_r[k] += r->ranks[k].iterations_stolen;
      given_r[k] += r->ranks[k].iterations_given;
      rejects_r[k] += r->ranks[k].rejects;
      wait_r[k] += r->ranks[k].steal_wait;
      result_r[k] += r->ranks[k].result_time;
    }
  }
  j["steal_attempts"] = attempts;
  j["successful_steals"] = steals;
  j["iterations_stolen"] = stolen;
  j["cov_rank_times"] = reports.empty() ? 0.0 : cov / static_cast<double>(reports.size());
  j["send_time_per_steal_s"] = steals > 0 ? send / static_cast<double>(steals) : 0.0;
  j["recv_time_per_steal_s"] = steals > 0 ? receive / static_cast<double>(steals) : 0.0;
  j["steals_per_rank"] = steals_r;
  j["iterations_stolen_per_rank"] = stolen_r;
  j["iterations_given_per_rank"] = given_r;
  j["rejects_per_rank"] = rejects_r;
  j["steal_wait_per_rank"] = wait_r;
  j["result_time_per_rank"] = result_r;
}

}  // namespace

json owned_summary(const AppContext& ctx, std::string_view app, const StealOptions& opt, Index n,
                   const std::vector<OwnedStep>& steps) {
  std::vector<StepResult> plain;
  std::vector<const StealReport*> reports;
  for (const OwnedStep& s : steps) {
    StepResult r;
    r.report = s.report.loop;
    r.checksum = s.checksum;
    r.wall_s = s.wall_s;
    plain.push_back(std::move(r));
    reports.push_back(&s.report);
  }
  json j = make_summary(ctx, app, Options{}, n, plain);
  const std::string chunking = opt.chunking ? std::string(name(*opt.chunking)) : "pieces";
  j["technique"] = chunking;
  j["mode"] = "owned";
  j["balancer"] = std::string(name(opt.balancer));
  j["steal_amount"] = opt.amount.text();
  j["victim"] = std::string(name(opt.victim));
  const std::size_t p = static_cast<std::size_t>(ctx.size());
  put_steals(j, reports, p);
  for (std::size_t k = 0; k < steps.size(); ++k) {
    json& js = j["steps"][k];
    js["technique"] = chunking;
    put_steals(js, {reports[k]}, p);
  }
  std::string speeds;
  for (double s : opt.speeds) speeds += (speeds.empty() ? "" : ",") + std::to_string(s);
  j["options"] = {{"balancer", std::string(name(opt.balancer))},
                  {"steal_amount", opt.amount.text()},
                  {"victim", std::string(name(opt.victim))},
                  {"chunking", chunking},
                  {"min_chunk", opt.params.min_chunk},
                  {"max_chunk", opt.params.max_chunk},
                  {"break_after", opt.break_after},
                  {"coordinator", opt.coordinator},
                  {"ranks_per_node", opt.ranks_per_node},
                  {"speeds", speeds}};
  return j;
}

}  // namespace lb4mpi::apps
