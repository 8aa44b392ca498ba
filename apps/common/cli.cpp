#include "cli.hpp"

#include <sstream>

#include "lb4mpi/techniques/technique.hpp"

namespace lb4mpi::apps {

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

CommonCli::CommonCli(CLI::App& cli, const Options& base)
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
  cli.add_option("--technique", technique_, "DLS technique: " + valid_technique_names())
      ->capture_default_str()
      ->group(group);
  cli.add_option("--mode", mode_, "centralized|distributed|distributed-rma")
      ->capture_default_str()
      ->group(group);
  cli.add_option("--min-chunk", min_chunk_, "smallest chunk size (but the last)")
      ->capture_default_str()
      ->check(at_least(1))
      ->group(group);
  cli.add_option("--max-chunk", max_chunk_, "largest chunk size, 0 = no cap")
      ->capture_default_str()
      ->check(at_least(0))
      ->group(group);
  cli.add_option("--break-after", break_after_,
                 "coordinator: iterations between request checks, -1 = auto")
      ->capture_default_str()
      ->group(group);
  cli.add_option("--request-when", request_when_,
                 "worker: iterations left when it asks for more, -1 = auto")
      ->capture_default_str()
      ->group(group);
  cli.add_option("--inject-delay-us", inject_delay_us_,
                 "delay injected into each chunk calculation [us]")
      ->capture_default_str()
      ->check(at_least(0))
      ->group(group);
  cli.add_option("--delay-ranks", delay_ranks_,
                 "ranks that get the delay, comma-separated (default: all)")
      ->delimiter(',')
      ->group(group);
  cli.add_option("--repeat", repeat_, "run the loop K times (time steps), reporting each")
      ->capture_default_str()
      ->check(at_least(1))
      ->group(group);
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
  o.break_after = break_after_;
  o.request_when = request_when_;
  o.inject_delay_us = inject_delay_us_;
  o.delay_ranks = delay_ranks_;
  return o;
}

}  // namespace lb4mpi::apps
