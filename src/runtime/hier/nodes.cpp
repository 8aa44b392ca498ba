#include "runtime/nodes.hpp"

#include "runtime/mpi.hpp"

namespace lb4mpi::rt {

std::vector<int> node_map(MPI_Comm comm, int ranks_per_node) {
  int rank = 0, size = 1;
  check_mpi(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
  check_mpi(MPI_Comm_size(comm, &size), "MPI_Comm_size");
  std::vector<int> nodes(static_cast<std::size_t>(size));
  if (ranks_per_node > 0) {
    for (int r = 0; r < size; ++r) nodes[static_cast<std::size_t>(r)] = (r / ranks_per_node) * ranks_per_node;
    return nodes;
  }
  MPI_Comm shared = MPI_COMM_NULL;
  check_mpi(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &shared),
            "MPI_Comm_split_type");
  int lowest = rank;
  allreduce(&rank, &lowest, 1, MPI_INT, MPI_MIN, shared);
  MPI_Comm_free(&shared);
  allgather(&lowest, 1, MPI_INT, nodes.data(), comm);
  return nodes;
}

}  // namespace lb4mpi::rt
