#include "runtime/agreement.hpp"

#include <climits>
#include <vector>

#include "lb4mpi/types.hpp"
#include "runtime/mpi.hpp"

namespace lb4mpi::rt {

namespace {

constexpr const char* kSameArguments = "every rank must pass the same arguments";
const std::string kMismatch = std::string(
                                  "lb4mpi: the ranks disagree on the loop (range, technique, mode or parameters "
                                  "differ between ranks); ") +
                              kSameArguments;

// Rank `root`'s `text`, on every rank.
std::string broadcast(MPI_Comm comm, int root, const std::string& text) {
  int len = static_cast<int>(text.size());
  check_mpi(MPI_Bcast(&len, 1, MPI_INT, root, comm), "MPI_Bcast");
  std::vector<char> buf(text.begin(), text.end());
  buf.resize(static_cast<std::size_t>(len));
  check_mpi(MPI_Bcast(buf.data(), len, MPI_CHAR, root, comm), "MPI_Bcast");
  return std::string(buf.begin(), buf.end());
}

// Collective, after the hashes differed: who differs from rank 0, in what.
std::string who_and_what(MPI_Comm comm, const Fields& fields, const std::string& subject) {
  int size = 0;
  check_mpi(MPI_Comm_size(comm, &size), "MPI_Comm_size");
  // Every rank's field count and per-field hashes (a count that differs
  // means a different build or API; then the generic message).
  std::int64_t counts[2] = {static_cast<std::int64_t>(fields.size()), -static_cast<std::int64_t>(fields.size())};
  std::int64_t extremes[2] = {0, 0};
  allreduce(counts, extremes, 2, MPI_INT64_T, MPI_MAX, comm);
  if (extremes[0] != -extremes[1]) return {};
  const std::size_t k = fields.size();
  std::vector<std::uint64_t> mine(k);
  for (std::size_t f = 0; f < k; ++f) mine[f] = Fingerprint{}.add(fields[f].first).add(fields[f].second).value();
  std::vector<std::uint64_t> all(k * static_cast<std::size_t>(size));
  allgather(mine.data(), static_cast<int>(k), MPI_UINT64_T, all.data(), comm);
  for (int r = 1; r < size; ++r) {
    for (std::size_t f = 0; f < k; ++f) {
      if (all[static_cast<std::size_t>(r) * k + f] == all[f]) continue;
      const std::string theirs = broadcast(comm, r, fields[f].second);
      const std::string ours = broadcast(comm, 0, fields[f].second);
      return "lb4mpi: the ranks disagree on " + subject + ": " + fields[f].first + " " + theirs + " on rank " +
             std::to_string(r) + ", " + ours + " on rank 0; " + kSameArguments;
    }
  }
  return {};
}

}  // namespace

void agree(MPI_Comm comm, const std::string& error, std::uint64_t hash, const std::function<Fields()>& describe,
           const std::string& subject) {
  try {
    agree(comm, error, hash);
  } catch (const Error& e) {
    // The generic mismatch, on every rank alike (agree's message is the
    // same everywhere): now name who and what, collectively.
    if (!describe || e.what() != kMismatch) throw;
    const std::string detail = who_and_what(comm, describe(), subject);
    if (detail.empty()) throw;
    throw Error(detail);
  }
}

void agree(MPI_Comm comm, const std::string& error, std::uint64_t hash, const std::string& mismatch) {
  // One allreduce: {failed?, max hash, max of the complemented hash (= -min)}.
  const std::int64_t h = static_cast<std::int64_t>(hash >> 1);
  std::int64_t local[3] = {error.empty() ? 0 : 1, h, -h};
  std::int64_t global[3] = {0, 0, 0};
  allreduce(local, global, 3, MPI_INT64_T, MPI_MAX, comm);
  if (global[0] == 0) {
    if (global[1] != -global[2]) {
      if (!mismatch.empty()) throw Error(mismatch);
      throw Error(kMismatch);
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
