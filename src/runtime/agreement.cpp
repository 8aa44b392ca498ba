#include "runtime/agreement.hpp"

#include <climits>
#include <vector>

#include "lb4mpi/types.hpp"
#include "runtime/mpi.hpp"

namespace lb4mpi::rt {

void agree(MPI_Comm comm, const std::string& error, std::uint64_t hash, const std::string& mismatch) {
  // One allreduce: {failed?, max hash, max of the complemented hash (= -min)}.
  const std::int64_t h = static_cast<std::int64_t>(hash >> 1);
  std::int64_t local[3] = {error.empty() ? 0 : 1, h, -h};
  std::int64_t global[3] = {0, 0, 0};
  allreduce(local, global, 3, MPI_INT64_T, MPI_MAX, comm);
  if (global[0] == 0) {
    if (global[1] != -global[2]) {
      if (!mismatch.empty()) throw Error(mismatch);
      throw Error(
          "lb4mpi: the ranks disagree on the loop (range, technique, mode or parameters differ "
          "between ranks); every rank must start a loop with the same arguments");
    }
    return;
  }
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  int mine = error.empty() ? INT_MAX : rank;
  int first = INT_MAX;
  allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm);
  int len = static_cast<int>(error.size());
  check_mpi(MPI_Bcast(&len, 1, MPI_INT, first, comm), "MPI_Bcast");
  std::vector<char> text(error.begin(), error.end());
  text.resize(static_cast<std::size_t>(len));
  check_mpi(MPI_Bcast(text.data(), len, MPI_CHAR, first, comm), "MPI_Bcast");
  // The same text on every rank: the first failing rank's message.
  throw Error(std::string(text.begin(), text.end()));
}

}  // namespace lb4mpi::rt
