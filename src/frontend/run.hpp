// What lb4mpi::Loop and lb4mpi::LoopSet share: from the front end's Options
// to the runtime's configuration, the collective start of an execution,
// and its end — the figures of every rank turned into a Report, the trace
// written, and an early finish reported on every rank.
#pragma once
#include <mpi.h>

#include <memory>
#include <string>

#include "lb4mpi/options.hpp"
#include "lb4mpi/report.hpp"
#include "auto_select.hpp"
#include "runtime/config.hpp"
#include "runtime/execution.hpp"
#include "trace/recorder.hpp"

namespace lb4mpi::detail {

/// The runtime's configuration of `o` on `rank` (which gets the injected delay or not).
rt::ExecConfig exec_config(const Options& o, int rank);

/// The runtime's wait policy for `w` (LB4MPI_WAIT): loops and owned loops.
rt::WaitPolicy wait_policy_of(Wait w);

/// The front end's state that lives as long as the process, in one place:
/// what is numbered or reported once per process (was function-local statics).
struct ProcessState {
  /// The id of the next loop created. Loops are created collectively, so
  /// every rank numbers them alike; trace files name loops by it.
  int next_loop_id = 0;
  /// The warning about unknown LB4MPI_* variables was printed.
  bool environment_reported = false;
};
/// This process's (one per process; loops are created on one thread).
ProcessState& process_state();

/// A Recorder when `o` traces (else null), for the next loop created on
/// `comm` (loops are numbered in creation order, the same on every rank).
std::unique_ptr<trace::Recorder> make_recorder(const Options& o, MPI_Comm comm);

/// LB4MPI_* variables lb4mpi does not know: an error under LB4MPI_STRICT=1
/// (returned, so that the start's agreement stops every rank), else a
/// warning printed once per process on rank 0 ("" then). Every loop start
/// (and an owned loop's, src/stealing/api) calls it.
std::string check_environment(int rank);

/// This rank's own validation of `o` for an execution over [first, last)
/// ("" when fine): parameters, unknown LB4MPI_* variables, output files.
std::string start_error(const rt::Execution& e, const Options& o, Index first, Index last);

/// restart() of a Loop or LoopSet whose execution has not finished.
inline constexpr const char* kRestartBeforeFinish =
    "lb4mpi: restart() before the previous execution finished (call finish() first)";

/// One rank's figures as its line of a Report.
RankReport rank_report(const rt::RankFigures& f);

/// Collective: validates `o` for this execution and starts it over [first, last).
void start(rt::Execution& e, const Options& o, Index first, Index last, const std::string& refuse = {});

/// The same for a loop whose options may ask for automatic selection
/// (`selection` not null): the execution runs the technique it picks.
/// Returns the options the execution runs with (to pass to finish()).
Options start_selected(rt::Execution& e, const Options& o, AutoSelection* selection, Index first, Index last,
                       std::string refuse = {});

/// Collective: ends the execution and returns the report (on every rank);
/// with a selection, the report names the policy's reason, which learns from it.
/// When an output file cannot be written, `output_error` gets the same
/// message on every rank (the report is complete nonetheless); a finish
/// before the loop was drained throws.
Report finish(rt::Execution& e, const Options& o, trace::Recorder* recorder, std::string& output_error,
              AutoSelection* selection = nullptr);

}  // namespace lb4mpi::detail
