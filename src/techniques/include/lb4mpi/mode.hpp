// The execution model of a loop: one enum for every layer (the front ends'
// lb4mpi::Mode is the runtime's rt::Model). Its names and parsing are the
// front end's (lb4mpi/options.hpp: name(Mode), parse_mode).
#pragma once
#include <cstdint>

namespace lb4mpi {

/// Execution model of the chunk calculation (docs/RUNTIME.md).
enum class Mode : std::uint8_t {
  Centralized,     ///< CCA: the coordinator computes and assigns every chunk (and computes too)
  Distributed,     ///< DCA, two-sided: the coordinator only serializes the assignment
  DistributedRMA,  ///< DCA, MPI-3 one-sided: assignment by atomics on the coordinator's window
  /// Two levels: node-sized chunks between nodes (one leader per node, one
  /// of the models above, Options::global_mode), sub-chunks inside a node
  /// from an MPI-3 shared-memory window (Options::node_technique).
  Hierarchical,
};

}  // namespace lb4mpi
