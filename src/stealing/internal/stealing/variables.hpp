// The LB4MPI_* environment variables of the owned loops (lb4mpi::StealOptions::from_env,
// docs/OPTIONS.md), beyond those it shares with lb4mpi::Options.
#pragma once
#include <string>
#include <vector>

namespace lb4mpi::st {

/// LB4MPI_BALANCER, LB4MPI_STEAL_RATIO, LB4MPI_WS_SCHEDULING, ... (every
/// name once).
const std::vector<std::string>& variables();

}  // namespace lb4mpi::st
