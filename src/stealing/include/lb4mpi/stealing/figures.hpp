// What one rank measured about stealing in one execution of an owned loop
// (part of lb4mpi::StealReport, exchanged among the ranks at its end).
#pragma once
#include "lb4mpi/export.h"
#include "lb4mpi/types.hpp"

namespace lb4mpi {

/// One rank's stealing figures of one execution.
struct LB4MPI_API RankSteals {
  Index steal_attempts = 0;     ///< as a thief: requests that reached a victim (success or reject)
  Index steals = 0;             ///< as a thief: successful steals (chunks received)
  Index iterations_stolen = 0;  ///< as a thief: iterations received
  Index iterations_given = 0;   ///< as a victim: iterations sent to thieves
  Index rejects = 0;            ///< as a victim: requests it rejected (nothing left)
  double send_time = 0.0;       ///< as a victim: seconds sending stolen chunks' items
  double receive_time = 0.0;    ///< as a thief: seconds from a chunk's header to its items in hand
  double steal_wait = 0.0;      ///< as a thief: seconds from asking to work in hand (or the end)
  double result_time = 0.0;     ///< seconds moving results back to owners (both sides)
};

}  // namespace lb4mpi
