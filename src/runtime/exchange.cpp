#include "runtime/exchange.hpp"

#include <type_traits>

#include "runtime/mpi.hpp"

namespace lb4mpi::rt {

std::vector<RankFigures> AllRanksExchange::exchange(MPI_Comm comm, const RankFigures& mine) {
  static_assert(std::is_trivially_copyable_v<RankFigures>);  // the ranks of one job share one architecture
  int size = 1;
  check_mpi(MPI_Comm_size(comm, &size), "MPI_Comm_size");
  std::vector<RankFigures> all(static_cast<std::size_t>(size));
  allgather(&mine, static_cast<int>(sizeof(RankFigures)), MPI_BYTE, all.data(), comm);
  return all;
}

}  // namespace lb4mpi::rt
