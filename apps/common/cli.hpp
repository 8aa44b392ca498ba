// The command-line options every app shares: the scheduling of its loop.
// Defaults come from the environment (lb4mpi::Options::from_env: LB4MPI_SCHEDULING,
// LB4MPI_MODE, ...), else from lb4mpi::Options; a flag overrides both.
//
//   --technique NAME       a DLS technique (lb4mpi::parse_technique)
//   --mode M               centralized|distributed|distributed-rma
//   --min-chunk K          smallest chunk (but the last)
//   --max-chunk K          largest chunk, 0 = no cap
//   --break-after K        coordinator: iterations between request checks, -1 = auto
//   --request-when K       worker: iterations left when it asks for more, -1 = auto
//   --inject-delay-us D    delay injected into every chunk calculation
//   --delay-ranks R,R,...  ranks that get the delay (default all)
//   --repeat K             run the loop K times (time steps) and report each
#pragma once
#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "lb4mpi/options.hpp"

namespace lb4mpi::apps {

/// A CLI11 check that a number is >= `lo`: "--width: must be >= 1, got 0".
CLI::Validator at_least(double lo);

class CommonCli {
 public:
  /// Registers the options in `cli`, their defaults taken from `base`.
  CommonCli(CLI::App& cli, const Options& base);

  /// `base` with the parsed values on top; throws lb4mpi::Error on a bad
  /// technique or mode name, naming the valid ones.
  [[nodiscard]] Options options() const;
  [[nodiscard]] int repeat() const { return repeat_; }

 private:
  Options base_;
  std::string technique_;
  std::string mode_;
  Index min_chunk_;
  Index max_chunk_;
  int break_after_;
  int request_when_;
  double inject_delay_us_;
  std::vector<int> delay_ranks_;
  int repeat_ = 1;
};

}  // namespace lb4mpi::apps
