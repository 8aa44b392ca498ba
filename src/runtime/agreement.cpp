#include "runtime/agreement.hpp"

#include <climits>
#include <memory>
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

// Collective: every rank's list of hashes against rank 0's. The first rank
// whose list differs and the first position where it does; a list shorter
// than another differs where it ends (`same_length` false then).
struct Difference {
  int rank = -1;  // -1: every list is rank 0's
  std::size_t at = 0;
  bool same_length = true;
};
Difference first_difference(MPI_Comm comm, const std::vector<std::uint64_t>& hashes) {
  int size = 0;
  check_mpi(MPI_Comm_size(comm, &size), "MPI_Comm_size");
  const auto n = static_cast<std::int64_t>(hashes.size());
  std::int64_t counts[2] = {n, -n};
  std::int64_t extremes[2] = {0, 0};
  allreduce(counts, extremes, 2, MPI_INT64_T, MPI_MAX, comm);
  const auto longest = static_cast<std::size_t>(extremes[0]);
  // A position this rank does not have: 0; its own hashes are odd.
  std::vector<std::uint64_t> mine(longest, 0);
  for (std::size_t i = 0; i < hashes.size(); ++i) mine[i] = hashes[i] | 1U;
  std::vector<std::uint64_t> all(longest * static_cast<std::size_t>(size));
  allgather(mine.data(), static_cast<int>(longest), MPI_UINT64_T, all.data(), comm);
  Difference d;
  d.same_length = extremes[0] == -extremes[1];
  for (int r = 1; r < size; ++r) {
    for (std::size_t i = 0; i < longest; ++i) {
      if (all[static_cast<std::size_t>(r) * longest + i] == all[i]) continue;
      d.rank = r;
      d.at = i;
      return d;
    }
  }
  return d;
}

// Collective, after the hashes differed: who differs from rank 0, in what.
std::string who_and_what(MPI_Comm comm, const Fields& fields, const std::string& subject) {
  std::vector<std::uint64_t> hashes(fields.size());
  for (std::size_t f = 0; f < fields.size(); ++f) {
    hashes[f] = Fingerprint{}.add(fields[f].first).add(fields[f].second).value();
  }
  const Difference d = first_difference(comm, hashes);
  // A field count that differs means a different build or API: the generic message.
  if (!d.same_length || d.rank < 0) return {};
  const std::string theirs = broadcast(comm, d.rank, fields[d.at].second);
  const std::string ours = broadcast(comm, 0, fields[d.at].second);
  return "lb4mpi: the ranks disagree on " + subject + ": " + fields[d.at].first + " " + theirs + " on rank " +
         std::to_string(d.rank) + ", " + ours + " on rank 0; " + kSameArguments;
}

// agree()'s vote: {failed?, max hash, max of the negated hash (= -min)}.
void vote(const std::string& error, std::uint64_t hash, std::int64_t out[3]) {
  const std::int64_t h = static_cast<std::int64_t>(hash >> 1);
  out[0] = error.empty() ? 0 : 1;
  out[1] = h;
  out[2] = -h;
}

// After the vote's allreduce (`global`): returns when all is well, else
// throws the same Error on every rank (collective: the failing rank's text).
void conclude(MPI_Comm comm, const std::int64_t global[3], const std::string& error, const std::string& mismatch) {
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
  // The same text on every rank: the first failing rank's message.
  throw Error(broadcast(comm, first, error));
}

// conclude(), naming who and what differs when the hashes do (collective).
void conclude(MPI_Comm comm, const std::int64_t global[3], const std::string& error,
              const std::function<Fields()>& describe, const std::string& subject) {
  try {
    conclude(comm, global, error, std::string());
  } catch (const Error& e) {
    // The generic mismatch, on every rank alike (the message is the same
    // everywhere): now name who and what, collectively.
    if (!describe || e.what() != kMismatch) throw;
    const std::string detail = who_and_what(comm, describe(), subject);
    if (detail.empty()) throw;
    throw Error(detail);
  }
}

}  // namespace

void agree(MPI_Comm comm, const std::string& error, std::uint64_t hash, const std::function<Fields()>& describe,
           const std::string& subject) {
  std::int64_t local[3];
  std::int64_t global[3] = {0, 0, 0};
  vote(error, hash, local);
  allreduce(local, global, 3, MPI_INT64_T, MPI_MAX, comm);
  conclude(comm, global, error, describe, subject);
}

void agree(MPI_Comm comm, const std::string& error, std::uint64_t hash, const std::string& mismatch) {
  std::int64_t local[3];
  std::int64_t global[3] = {0, 0, 0};
  vote(error, hash, local);
  allreduce(local, global, 3, MPI_INT64_T, MPI_MAX, comm);
  conclude(comm, global, error, mismatch);
}

struct DeferredAgreement::Ballot {
  struct Entry {
    std::uint64_t hash = 0;
    std::function<Fields()> describe;
  };
  std::vector<Entry> entries;
  std::string error;  // the first entry's that failed on this rank
  std::int64_t local[3] = {0, 0, 0};
  std::int64_t global[3] = {0, 0, 0};
  MPI_Request request = MPI_REQUEST_NULL;
};

DeferredAgreement::DeferredAgreement() = default;

DeferredAgreement::~DeferredAgreement() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized != 0) {
    (void)posted_.release();  // MPI is gone: its buffers may still be named there; leak them
    return;
  }
  // Not concluded (the handle went away): the buffers outlive MPI's use.
  if (posted_) MPI_Wait(&posted_->request, MPI_STATUS_IGNORE);
  if (followup_ != MPI_COMM_NULL) MPI_Comm_free(&followup_);
}

void DeferredAgreement::open(MPI_Comm comm, const std::string& subject) {
  comm_ = comm;
  subject_ = subject;
  check_mpi(MPI_Comm_dup(comm, &followup_), "MPI_Comm_dup");
}

void DeferredAgreement::add(const std::string& error, std::uint64_t hash, std::function<Fields()> describe) {
  if (comm_ == MPI_COMM_NULL) throw Error("lb4mpi: internal error: DeferredAgreement::add() before open()");
  if (!current_) current_ = std::make_unique<Ballot>();
  current_->entries.push_back({hash, std::move(describe)});
  if (!error.empty() && current_->error.empty()) current_->error = error;
  if (current_->entries.size() >= kBallot) post();
}

void DeferredAgreement::settle() {
  if (current_) post();
  conclude_posted();
}

void DeferredAgreement::agree(const std::string& error, std::uint64_t hash, std::function<Fields()> describe) {
  add(error, hash, std::move(describe));
  settle();
}

void DeferredAgreement::post() {
  // One ballot outstanding at most: the previous one is concluded first,
  // so that a failure's own collectives come before the next ballot on
  // every rank.
  conclude_posted();
  std::unique_ptr<Ballot> b = std::move(current_);
  Fingerprint h;
  for (const Ballot::Entry& e : b->entries) h.add(e.hash);
  vote(b->error, h.value(), b->local);
  check_mpi(MPI_Iallreduce(b->local, b->global, 3, MPI_INT64_T, MPI_MAX, comm_, &b->request), "MPI_Iallreduce");
  posted_ = std::move(b);
}

void DeferredAgreement::conclude_posted() {
  if (!posted_) return;
  wait(posted_->request, MPI_STATUS_IGNORE, "MPI_Iallreduce");
  const std::unique_ptr<Ballot> b = std::move(posted_);
  // Hashes that differ: the agreement named is the first that differs on
  // the first rank that differs from rank 0 (collective, on the duplicate;
  // a rank whose ballot does not have it: the generic message).
  const auto describe = [this, &b]() -> Fields {
    std::vector<std::uint64_t> hashes(b->entries.size());
    for (std::size_t i = 0; i < hashes.size(); ++i) hashes[i] = b->entries[i].hash;
    const Difference d = first_difference(followup_, hashes);
    if (d.rank < 0 || d.at >= b->entries.size() || !b->entries[d.at].describe) return {};
    return b->entries[d.at].describe();
  };
  conclude(followup_, b->global, b->error, describe, subject_);
}

}  // namespace lb4mpi::rt
