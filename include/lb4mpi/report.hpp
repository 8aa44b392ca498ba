// What a scheduled loop reports when it ends: per-rank figures gathered on
// every rank, and the summary statistics users and experiments read.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "lb4mpi/options.hpp"
#include "lb4mpi/types.hpp"

namespace lb4mpi {

struct LB4MPI_API RankReport {
  Index iterations = 0;      ///< iterations this rank executed
  Index chunks = 0;          ///< chunks it received (the coordinator's own included)
  /// Chunk sizes this rank calculated: in CCA the coordinator calculates
  /// every chunk; in DCA each rank its own (and the step that finds the loop
  /// exhausted). Every one of them carries Options::inject_delay_us on the
  /// ranks of Options::delay_ranks.
  Index calculations = 0;
  double work_time = 0.0;    ///< seconds inside the loop body
  /// Seconds obtaining chunks: inside next() (or LoopSet::next()), waiting
  /// for and computing assignments; on the coordinator this includes
  /// serve_time, and its final wait for the end of the loop.
  double overhead = 0.0;
  /// Coordinator: seconds spent serving other ranks' requests while it
  /// obtained its own chunks (part of overhead).
  double serve_time = 0.0;
  /// Seconds from its loop start to the end of its last piece of work (a
  /// rank that executed nothing: to its exit, see Report::t_par).
  double finish_time = 0.0;
  /// Robust mode: the rank did not finish the loop (it failed, or was still
  /// executing a copy of a chunk finished elsewhere when the loop ended):
  /// its figures are unknown (zero) and left out of the statistics.
  bool failed = false;
  /// max(0, t_par - work_time - overhead): the time of the execution this
  /// rank spent neither in the loop body nor in lb4mpi (e.g. the user's code
  /// between chunks, other loops in flight together, and waiting for the
  /// slowest rank to exit).
  [[nodiscard]] double idle_time(double t_par) const;
};

struct LB4MPI_API Report {
  Technique technique = kDefaultTechnique;
  Mode mode = Mode::Centralized;
  Index first = 0;
  Index last = 0;                 ///< half-open: [first, last)
  /// Parallel time: the maximum over ranks of the rank's exit time, i.e. of
  /// the seconds from its loop start until its next() returned "no chunk".
  /// The exit time includes the rank's final wait for work (the request
  /// that learns the loop is over; on the coordinator, serving the last
  /// requests), so t_par >= max finish_time: it is the time until every
  /// rank has left the loop, not until the last chunk ended.
  double t_par = 0.0;
  std::vector<RankReport> ranks;  ///< one per rank of the communicator
  /// Robust mode (Options::robust) was on.
  bool robust = false;
  /// Robust mode: the ranks that did not finish the loop (RankReport::failed).
  std::vector<int> failed_ranks;
  /// The rank that coordinated the loop at its end: Options::coordinator,
  /// or under robust mode the successor that took over from a failed one
  /// (docs/ROBUST.md, *Coordinator failover*); the same on every survivor.
  int coordinator = 0;
  /// Robust mode: chunks handed out again (a chunk executed by more than
  /// one rank; its first completion counts).
  Index reissued_chunks = 0;
  /// Automatic selection (Options::technique = Auto): why the policy ran
  /// `technique` in this execution ("explore: trying GSS (2 of 5)",
  /// "exploit: ..."); empty for a technique the options fixed.
  std::string selection;

  [[nodiscard]] Index iterations() const;
  [[nodiscard]] Index chunks() const;
  /// (max/mean - 1) * 100 of the per-rank finish times (0 for no ranks or
  /// a zero mean).
  [[nodiscard]] double load_imbalance_percent() const;
  /// Coefficient of variation of the per-rank finish times: the population
  /// standard deviation (divided by P) over the mean (0 for fewer than two
  /// ranks or a zero mean).
  [[nodiscard]] double finish_cov() const;
  /// One-line human summary: "<technique>/<mode>: <N> iterations in <C>
  /// chunks on <P> ranks, T_par <s> s, load imbalance <x> %, c.o.v. <y>",
  /// and "; auto: <selection>" when the technique was selected automatically.
  [[nodiscard]] std::string summary() const;
};

/// A loop completed, but lb4mpi could not write one of its output files at
/// the end (the trace or an iteration CSV: folder removed, disk full, ...).
/// Thrown by Loop::finish, LoopSet::finish, parallel_for and run_loops on
/// every rank alike (the message of the lowest rank that failed, naming the
/// file and the reason), after every loop's report was gathered: the
/// computed results and the reports are not lost to an I/O error.
class LB4MPI_API OutputError : public Error {
 public:
  OutputError(const std::string& what, std::vector<Report> reports)
      : Error(what), reports_(std::move(reports)) {}
  /// The reports of the loops that finish() ended, as finish() would have
  /// returned them (one for Loop::finish and parallel_for).
  [[nodiscard]] const std::vector<Report>& reports() const { return reports_; }

 private:
  std::vector<Report> reports_;
};

}  // namespace lb4mpi
