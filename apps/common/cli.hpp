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
//
// Cli is the apps' command line: CLI11 behind a small interface, so that only
// cli.cpp compiles CLI11 (a header-only library whose inline code costs ~10 s
// of compile time in every source that includes it).
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "lb4mpi/options.hpp"

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace lb4mpi::apps {

class Cli {
 public:
  Cli(const std::string& description, const std::string& name);
  ~Cli();
  Cli(const Cli&) = delete;
  Cli& operator=(const Cli&) = delete;

  /// A registered option; its settings chain: cli.option(...).at_least(1).show_default().
  class Opt {
   public:
    /// Rejects numbers below `lo`: "--width: must be >= 1, got 0".
    Opt& at_least(double lo);
    /// --help shows the variable's value at registration as the default.
    Opt& show_default();
    Opt& group(const std::string& name);
    /// Only valid together with `other`.
    Opt& needs(const Opt& other);
    /// Not valid together with the option `flag`, when it is registered.
    Opt& excludes(const std::string& flag);
    /// Whether the command line gave it (after parsing).
    [[nodiscard]] bool given() const;

   private:
    friend class Cli;
    Opt(CLI::Option* o, CLI::App* app) : o_(o), app_(app) {}
    CLI::Option* o_;
    CLI::App* app_;
  };

  Opt option(const std::string& flag, int& value, const std::string& help);
  Opt option(const std::string& flag, std::int64_t& value, const std::string& help);
  Opt option(const std::string& flag, std::uint64_t& value, const std::string& help);
  Opt option(const std::string& flag, double& value, const std::string& help);
  Opt option(const std::string& flag, std::optional<double>& value, const std::string& help);
  Opt option(const std::string& flag, std::string& value, const std::string& help);
  /// Comma-separated values (repeating the option appends).
  Opt list(const std::string& flag, std::vector<int>& values, const std::string& help);
  Opt list(const std::string& flag, std::vector<std::string>& values, const std::string& help);
  /// A switch without a value.
  Opt flag(const std::string& flag, bool& value, const std::string& help);

  /// The parser itself (for AppContext::parse).
  CLI::App& app() { return *app_; }

 private:
  std::unique_ptr<CLI::App> app_;
};

class CommonCli {
 public:
  /// Registers the options in `cli`, their defaults taken from `base`.
  CommonCli(Cli& cli, const Options& base);

  /// `base` with the parsed values on top; throws lb4mpi::Error on a bad
  /// technique or mode name, naming the valid ones.
  [[nodiscard]] Options options() const;
  [[nodiscard]] int repeat() const { return repeat_; }

 private:
  Options base_;
  std::string technique_;
  std::string mode_;
  std::string wait_;
  std::string node_technique_;  // hierarchical mode: --node-technique, --global-mode, --ranks-per-node
  std::string global_mode_;
  int ranks_per_node_ = 0;
  Index min_chunk_;
  Index max_chunk_;
  int break_after_;
  int request_when_;
  int chunks_per_reply_;
  double inject_delay_us_;
  std::vector<int> delay_ranks_;
  // Robust mode, failure and perturbation injection (docs/ROBUST.md).
  bool robust_;
  double robust_timeout_;
  std::vector<int> fail_ranks_;
  std::string fail_after_;
  std::string fail_how_;
  std::vector<int> slow_ranks_;
  double slow_factor_;
  int slow_from_;
  std::optional<Cli::Opt> robust_timeout_flag_, fail_after_flag_, fail_how_flag_, slow_factor_flag_, slow_from_flag_;
  // The flags whose values a technique validates, to name them in its errors.
  std::optional<Cli::Opt> min_chunk_flag_, max_chunk_flag_;
  int repeat_ = 1;
};

}  // namespace lb4mpi::apps
