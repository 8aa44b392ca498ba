// The engines built into the stealing layer itself.
#pragma once
#include <memory>

#include "stealing/engine.hpp"

namespace lb4mpi::st {

/// Balancer::None: each rank executes exactly what it owns.
std::unique_ptr<Engine> make_no_balancing(const Config& config);
/// Balancer::Steal: coordinator-relayed work stealing (`000` §4.1).
std::unique_ptr<Engine> make_relayed_stealing(const Config& config);

}  // namespace lb4mpi::st
