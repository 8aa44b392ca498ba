// Automatic selection in a loop's front end (Options::technique = Auto):
// the policy of one loop, the options of each execution, and what the
// policy learns from each report. Every rank holds the same policy and feeds
// it the same gathered report, so every rank picks the same technique; the
// start's agreement (the chosen technique is in the fingerprint) checks it.
#pragma once
#include <memory>
#include <string>

#include "lb4mpi/options.hpp"
#include "lb4mpi/report.hpp"
#include "lb4mpi/techniques/selection.hpp"

namespace lb4mpi::detail {

class AutoSelection {
 public:
  /// For a loop with options `o` on `ranks` ranks. Never throws: error()
  /// says why it cannot run, for the start's agreement to report on every rank.
  AutoSelection(const Options& o, int ranks);
  /// Why the loop cannot start ("" when it can).
  [[nodiscard]] const std::string& error() const { return error_; }
  /// The options of the next execution: `o` with the technique the policy picks.
  [[nodiscard]] Options next(const Options& o);
  /// The execution that ran next()'s options ended: names the technique's
  /// reason in `r` (Report::selection) and learns from it.
  void learn(Report& r);
  /// Why the execution in flight runs its technique ("" before next()).
  [[nodiscard]] const std::string& reason() const { return reason_; }

 private:
  std::unique_ptr<selection::Policy> policy_;
  std::string error_;
  std::string reason_;
  int executions_ = 0;
};

/// A loop's selection when `o` asks for one, else null.
std::unique_ptr<AutoSelection> make_selection(const Options& o, int ranks);

}  // namespace lb4mpi::detail
