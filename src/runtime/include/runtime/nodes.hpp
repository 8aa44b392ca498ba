// Which node each rank runs on: the ranks that share memory, or emulated
// nodes of k consecutive ranks (LB4MPI_RANKS_PER_NODE). Used by the
// hierarchical model (src/runtime/hier) and by locality-aware victim
// selection of the owned loops (`000` §4.1.3.2).
#pragma once
#include <mpi.h>

#include <vector>

namespace lb4mpi::rt {

/// Collective over `comm`: the node of every rank, by rank (a node is named
/// by its lowest rank). ranks_per_node = 0: the ranks that share memory
/// (MPI_Comm_split_type(MPI_COMM_TYPE_SHARED)); k > 0: emulated nodes of k
/// consecutive ranks each (rank / k; the last node may be smaller), no
/// communication.
std::vector<int> node_map(MPI_Comm comm, int ranks_per_node);

}  // namespace lb4mpi::rt
