// Which node each rank runs on, for locality-aware victim selection
// (`000` §4.1.3.2).
#pragma once
#include <mpi.h>

#include <vector>

namespace lb4mpi::st {

/// Collective over `comm`: the node of every rank, by rank (a node is named
/// by its lowest rank). ranks_per_node = 0: the ranks that share memory
/// (MPI_Comm_split_type(MPI_COMM_TYPE_SHARED)); k > 0: emulated nodes of k
/// consecutive ranks each (rank / k), no communication.
std::vector<int> node_map(MPI_Comm comm, int ranks_per_node);

}  // namespace lb4mpi::st
