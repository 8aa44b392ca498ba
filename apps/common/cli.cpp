#include "cli.hpp"

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
      min_chunk_(base.params.min_chunk),
      max_chunk_(base.params.max_chunk),
      break_after_(base.break_after),
      request_when_(base.request_when),
      inject_delay_us_(base.inject_delay_us),
      delay_ranks_(base.delay_ranks) {
  const std::string group = "Scheduling (defaults from LB4MPI_* variables)";
  cli.option("--technique", technique_, "DLS technique: " + valid_technique_names())
      .show_default()
      .group(group);
  cli.option("--mode", mode_, "centralized|distributed|distributed-rma").show_default().group(group);
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
  cli.option("--inject-delay-us", inject_delay_us_, "delay injected into each chunk calculation [us]")
      .show_default()
      .at_least(0)
      .group(group);
  cli.list("--delay-ranks", delay_ranks_, "ranks that get the delay, comma-separated (default: all)")
      .group(group);
  cli.option("--repeat", repeat_, "run the loop K times (time steps), reporting each")
      .show_default()
      .at_least(1)
      .group(group);
}

Options CommonCli::options() const {
  Options o = base_;
  try {
    o.technique = parse_technique(technique_);
  } catch (const Error& e) {
    throw Error(std::string("--technique: ") + e.what());
  }
  try {
    o.mode = parse_mode(mode_);
  } catch (const Error& e) {
    throw Error(std::string("--mode: ") + e.what());
  }
  o.params.min_chunk = min_chunk_;
  o.params.max_chunk = max_chunk_;
  if (min_chunk_flag_->given()) o.origin["min_chunk"] = "--min-chunk " + std::to_string(min_chunk_);
  if (max_chunk_flag_->given()) o.origin["max_chunk"] = "--max-chunk " + std::to_string(max_chunk_);
  o.break_after = break_after_;
  o.request_when = request_when_;
  o.inject_delay_us = inject_delay_us_;
  o.delay_ranks = delay_ranks_;
  return o;
}

}  // namespace lb4mpi::apps
