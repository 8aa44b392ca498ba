#include "cli.hpp"

#include <cstdlib>

#include <CLI/CLI.hpp>

#include <sstream>

#include "lb4mpi/techniques/technique.hpp"

namespace lb4mpi::apps {

namespace {

CLI::Validator at_least(double lo) {
  std::ostringstream bound;
  bound << lo;
  return CLI::Validator(
      [lo, b = bound.str()](std::string& text) -> std::string {
        double v = 0;
        if (!CLI::detail::lexical_cast(text, v)) return "not a number: " + text;
        if (v < lo) return "must be >= " + b + ", got " + text;
        return {};
      },
      ">=" + bound.str());
}

}  // namespace

Cli::Cli(const std::string& description, const std::string& name)
    : app_(std::make_unique<CLI::App>(description, name)) {}
Cli::~Cli() = default;

Cli::Opt& Cli::Opt::at_least(double lo) {
  o_->check(apps::at_least(lo));
  return *this;
}
Cli::Opt& Cli::Opt::show_default() {
  o_->capture_default_str();
  return *this;
}
Cli::Opt& Cli::Opt::group(const std::string& name) {
  o_->group(name);
  return *this;
}
Cli::Opt& Cli::Opt::needs(const Opt& other) {
  o_->needs(other.o_);
  return *this;
}
Cli::Opt& Cli::Opt::excludes(const std::string& flag) {
  if (CLI::Option* other = app_->get_option_no_throw(flag)) o_->excludes(other);
  return *this;
}
bool Cli::Opt::given() const { return o_->count() > 0; }

Cli::Opt Cli::option(const std::string& flag, int& value, const std::string& help) {
  return Opt(app_->add_option(flag, value, help), app_.get());
}
Cli::Opt Cli::option(const std::string& flag, std::int64_t& value, const std::string& help) {
  return Opt(app_->add_option(flag, value, help), app_.get());
}
Cli::Opt Cli::option(const std::string& flag, std::uint64_t& value, const std::string& help) {
  return Opt(app_->add_option(flag, value, help), app_.get());
}
Cli::Opt Cli::option(const std::string& flag, double& value, const std::string& help) {
  return Opt(app_->add_option(flag, value, help), app_.get());
}
Cli::Opt Cli::option(const std::string& flag, std::optional<double>& value, const std::string& help) {
  return Opt(app_->add_option(flag, value, help), app_.get());
}
Cli::Opt Cli::option(const std::string& flag, std::string& value, const std::string& help) {
  return Opt(app_->add_option(flag, value, help), app_.get());
}
Cli::Opt Cli::list(const std::string& flag, std::vector<int>& values, const std::string& help) {
  return Opt(app_->add_option(flag, values, help)->delimiter(','), app_.get());
}
Cli::Opt Cli::list(const std::string& flag, std::vector<std::string>& values, const std::string& help) {
  return Opt(app_->add_option(flag, values, help)->delimiter(','), app_.get());
}
Cli::Opt Cli::flag(const std::string& flag, bool& value, const std::string& help) {
  return Opt(app_->add_flag(flag, value, help), app_.get());
}

CommonCli::CommonCli(Cli& cli, const Options& base)
    : base_(base),
      technique_(name(base.technique)),
      mode_(name(base.mode)),
      wait_(name(base.wait)),
      node_technique_(name(base.node_technique)),
      global_mode_(name(base.global_mode)),
      ranks_per_node_(base.ranks_per_node),
      min_chunk_(base.params.min_chunk),
      max_chunk_(base.params.max_chunk),
      break_after_(base.break_after),
      request_when_(base.request_when),
      chunks_per_reply_(base.chunks_per_reply),
      inject_delay_us_(base.inject_delay_us),
      delay_ranks_(base.delay_ranks),
      robust_(base.robust),
      robust_timeout_(base.robust_timeout),
      fail_ranks_(base.fail_ranks),
      fail_how_(base.fail_how),
      slow_ranks_(base.slow_ranks),
      slow_factor_(base.slow_factor),
      slow_from_(base.slow_from) {
  const std::string group = "Scheduling (defaults from LB4MPI_* variables)";
  cli.option("--technique", technique_, "DLS technique: " + valid_technique_names())
      .show_default()
      .group(group);
  cli.option("--mode", mode_, "centralized|distributed|distributed-rma|hierarchical").show_default().group(group);
  cli.option("--node-technique", node_technique_, "hierarchical: the technique inside a node")
      .show_default()
      .group(group);
  cli.option("--global-mode", global_mode_, "hierarchical: the model between nodes (centralized|distributed|distributed-rma)")
      .show_default()
      .group(group);
  cli.option("--ranks-per-node", ranks_per_node_, "hierarchical: 0 = nodes from MPI, k = emulated nodes of k ranks")
      .show_default()
      .at_least(0)
      .group(group);
  cli.option("--wait", wait_, "how a rank waits for others: auto|spin|yield|block").show_default().group(group);
  min_chunk_flag_ = cli.option("--min-chunk", min_chunk_, "smallest chunk size (but the last)")
                       .show_default()
                       .at_least(1)
                       .group(group);
  max_chunk_flag_ = cli.option("--max-chunk", max_chunk_, "largest chunk size, 0 = no cap")
                       .show_default()
                       .at_least(0)
                       .group(group);
  cli.option("--break-after", break_after_, "coordinator: iterations between request checks, -1 = auto")
      .show_default()
      .group(group);
  cli.option("--request-when", request_when_, "worker: iterations left when it asks for more, -1 = auto")
      .show_default()
      .group(group);
  cli.option("--chunks-per-reply", chunks_per_reply_,
             "centralized SS/FSC/mFSC: most chunks a worker takes in one reply, -1 = auto, 1 = one (as LB4MPI)")
      .show_default()
      .group(group);
  cli.option("--inject-delay-us", inject_delay_us_, "delay injected into each chunk calculation [us]")
      .show_default()
      .at_least(0)
      .group(group);
  cli.list("--delay-ranks", delay_ranks_, "ranks that get the delay, comma-separated (default: all)")
      .group(group);
  const std::string robust = "Robust mode, failures and perturbations (docs/ROBUST.md)";
  cli.flag("--robust", robust_, "robust mode (rDLB): survive failed ranks and stragglers").group(robust);
  robust_timeout_flag_ =
      cli.option("--robust-timeout", robust_timeout_, "robust: seconds a worker waits for a silent coordinator")
          .show_default()
          .group(robust);
  cli.list("--fail-ranks", fail_ranks_, "failure injection: ranks that stop, comma-separated").group(robust);
  fail_after_flag_ = cli.option("--fail-after", fail_after_,
                                "when a victim stops: at its k-th chunk (3), t seconds into the loop (0.25s), "
                                "at its end (end), or in its end-of-loop report (report)")
                         .group(robust);
  fail_how_flag_ = cli.option("--fail-how", fail_how_, "kill (SIGKILL) or exit (_exit without MPI_Finalize)")
                       .show_default()
                       .group(robust);
  cli.list("--slow-ranks", slow_ranks_, "perturbation: slowed ranks, comma-separated").group(robust);
  slow_factor_flag_ = cli.option("--slow-factor", slow_factor_, "perturbation: a slowed rank's work takes k times as long")
                          .show_default()
                          .group(robust);
  slow_from_flag_ = cli.option("--slow-from", slow_from_, "perturbation: the time step (from 0) the slowing starts with")
                        .show_default()
                        .group(robust);
  cli.option("--repeat", repeat_, "run the loop K times (time steps), reporting each")
      .show_default()
      .at_least(1)
      .group(group);
}

namespace {

// A flag's value parsed by `parse`; an error names the flag.
template <class Parse>
auto parsed(const char* flag, const std::string& value, Parse parse) {
  try {
    return parse(value);
  } catch (const Error& e) {
    throw Error(std::string(flag) + ": " + e.what());
  }
}

}  // namespace

Options CommonCli::options() const {
  Options o = base_;
  const auto technique = [](const std::string& v) { return parse_technique(v); };
  const auto mode = [](const std::string& v) { return parse_mode(v); };
  o.technique = parsed("--technique", technique_, technique);
  o.mode = parsed("--mode", mode_, mode);
  o.node_technique = parsed("--node-technique", node_technique_, technique);
  o.global_mode = parsed("--global-mode", global_mode_, mode);
  o.ranks_per_node = ranks_per_node_;
  o.wait = parsed("--wait", wait_, [](const std::string& v) { return parse_wait(v); });
  o.params.min_chunk = min_chunk_;
  o.params.max_chunk = max_chunk_;
  if (min_chunk_flag_->given()) o.origin["min_chunk"] = "--min-chunk " + std::to_string(min_chunk_);
  if (max_chunk_flag_->given()) o.origin["max_chunk"] = "--max-chunk " + std::to_string(max_chunk_);
  o.break_after = break_after_;
  o.request_when = request_when_;
  o.chunks_per_reply = chunks_per_reply_;
  o.inject_delay_us = inject_delay_us_;
  o.delay_ranks = delay_ranks_;
  o.robust = robust_;
  o.robust_timeout = robust_timeout_;
  if (robust_timeout_flag_->given()) o.origin["robust_timeout"] = "--robust-timeout " + std::to_string(robust_timeout_);
  o.fail_ranks = fail_ranks_;
  if (fail_after_flag_->given()) {
    o.fail_after = parse_fail_after(fail_after_, "--fail-after");
    o.origin["fail_after"] = "--fail-after " + fail_after_;
  }
  o.fail_how = fail_how_;
  if (fail_how_flag_->given()) o.origin["fail_how"] = "--fail-how " + fail_how_;
  o.slow_ranks = slow_ranks_;
  o.slow_factor = slow_factor_;
  if (slow_factor_flag_->given()) o.origin["slow_factor"] = "--slow-factor " + std::to_string(slow_factor_);
  o.slow_from = slow_from_;
  if (slow_from_flag_->given()) o.origin["slow_from"] = "--slow-from " + std::to_string(slow_from_);
  return o;
}

}  // namespace lb4mpi::apps
