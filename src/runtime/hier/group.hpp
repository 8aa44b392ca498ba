// The nodes of a hierarchical loop on one of lb4mpi's channels: the node's
// communicator, the leaders' communicator (one rank per node, the lowest),
// and the node's MPI-3 shared-memory window (the pool of sub-chunks,
// pool.hpp). Made once per channel and node layout (collective) and cached
// on the channel's communicator, like its RMA windows: freed with it.
#pragma once
#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "runtime/channel.hpp"

namespace lb4mpi::rt::hier {

struct NodeGroup {
  int ranks_per_node = 0;        ///< the layout it was made for (0: shared memory)
  MPI_Comm node = MPI_COMM_NULL;     ///< the ranks of this rank's node
  MPI_Comm leaders = MPI_COMM_NULL;  ///< the nodes' leaders (MPI_COMM_NULL on other ranks)
  int node_rank = 0;   ///< this rank in its node
  int node_size = 1;
  int node_index = 0;  ///< this rank's node, numbered by lowest rank (= its leader's rank in `leaders`)
  int nodes = 1;
  std::vector<int> node_of;     ///< per rank of the channel: its node index
  std::vector<int> node_sizes;  ///< per node: its ranks
  /// The leaders' channel: the global model's windows are kept here.
  Channel leaders_channel;
  /// The node's shared window: memory at the leader, every rank of the node
  /// addresses it directly (MPI_Win_shared_query).
  MPI_Win pool = MPI_WIN_NULL;
  std::int64_t* base = nullptr;
  std::size_t slots = 0;  ///< 8-byte slots of the window

  [[nodiscard]] bool leader() const { return node_rank == 0; }
  /// A window of at least `slots` 8-byte slots (collective over the node;
  /// every rank of the node asks for the same size).
  void reserve(std::size_t slots);
};

/// Collective over `comm` (a channel's communicator) on first use of a
/// layout: the node group of `ranks_per_node` (0: shared memory).
NodeGroup& node_group(MPI_Comm comm, int ranks_per_node);

}  // namespace lb4mpi::rt::hier
