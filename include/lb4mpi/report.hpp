// What a scheduled loop reports when it ends: per-rank figures gathered on
// every rank, and the summary statistics users and experiments read.
#pragma once
#include <string>
#include <vector>

#include "lb4mpi/options.hpp"
#include "lb4mpi/types.hpp"

namespace lb4mpi {

struct RankReport {
  Index iterations = 0;      ///< iterations this rank executed
  Index chunks = 0;          ///< chunks it received (the coordinator's own included)
  double work_time = 0.0;    ///< seconds inside the loop body
  double overhead = 0.0;     ///< seconds obtaining chunks (waiting for and computing assignments)
  double serve_time = 0.0;   ///< coordinator: seconds spent serving other ranks' requests
  double finish_time = 0.0;  ///< seconds from its loop start to its last chunk's end
  [[nodiscard]] double idle_time(double t_par) const;  ///< t_par - work - overhead (>= 0)
};

struct Report {
  Technique technique = Technique::FAC2;
  Mode mode = Mode::Centralized;
  Index first = 0;
  Index last = 0;                 ///< half-open: [first, last)
  double t_par = 0.0;             ///< max over ranks of finish_time
  std::vector<RankReport> ranks;  ///< one per rank of the communicator

  [[nodiscard]] Index iterations() const;
  [[nodiscard]] Index chunks() const;
  /// max/mean - 1 of the per-rank finish times, in percent.
  [[nodiscard]] double load_imbalance_percent() const;
  /// coefficient of variation (stddev/mean) of the per-rank finish times.
  [[nodiscard]] double finish_cov() const;
  /// One-line human summary.
  [[nodiscard]] std::string summary() const;
};

}  // namespace lb4mpi
