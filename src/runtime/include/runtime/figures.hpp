// What one rank measured in one execution of a loop: exchanged among the
// ranks at its end (ReportExchange) and turned into a report by a front end.
#pragma once
#include <cstdint>

#include "lb4mpi/types.hpp"

namespace lb4mpi::rt {

struct RankFigures {
  Index iterations = 0;    ///< executed (a rank that stopped early: handed out minus dropped)
  Index chunks = 0;        ///< chunks it received (the coordinator's own included)
  Index calculations = 0;  ///< chunk sizes calculated on this rank
  Index dropped = 0;       ///< iterations handed to it and not executed (finish before the end)
  double work_time = 0.0;  ///< seconds in the loop body
  double overhead = 0.0;   ///< seconds obtaining chunks (communicating, waiting, serving)
  double serve_time = 0.0; ///< coordinator: seconds serving others (part of overhead)
  double finish_time = 0.0;  ///< seconds from its start to the end of its last piece
  double exit_time = 0.0;    ///< seconds from its start until it learnt the loop was over
  Index reissued = 0;        ///< recovery, the coordinator: chunks it handed out again
  std::int32_t failed = 0;   ///< recovery: 1 when the rank did not finish the loop (its figures are unknown) or died with the report
  std::int32_t reserved = 0;
  /// Seconds on other loops of its set left out of the elapsed times this
  /// loop's measurements carry (`003` tExclude, which AWF-D/E learn from).
  double excluded = 0.0;
};

}  // namespace lb4mpi::rt
