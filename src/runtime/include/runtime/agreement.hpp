// The collective agreement every loop starts with: all ranks valid, all
// with the same arguments, or the same error on every rank.
#pragma once
#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "lb4mpi/types.hpp"

namespace lb4mpi::rt {

/// Collective over `comm`: every rank passes its local validation result
/// (`error` empty when fine) and a hash of the parameters that all ranks
/// must share. If any rank failed, or the hashes differ, every rank throws
/// the same lb4mpi::Error (the lowest failing rank's message, or `mismatch`
/// when the hashes differ; a default names the loop's arguments). Costs one
/// MPI_Allreduce when all is well.
void agree(MPI_Comm comm, const std::string& error, std::uint64_t hash, const std::string& mismatch = {});

/// What the ranks must pass alike, as (name, value as text) pairs.
using Fields = std::vector<std::pair<std::string, std::string>>;

/// agree(), and when the hashes differ, the error names the first rank that
/// differs from rank 0, the first field that differs and both values ("the
/// ranks disagree on <subject>: range [0, 1001) on rank 1, [0, 1000) on rank
/// 0"). `describe` is called on every rank only then (it costs more than
/// the hash).
void agree(MPI_Comm comm, const std::string& error, std::uint64_t hash, const std::function<Fields()>& describe,
           const std::string& subject = "the loop");

/// Agreements whose ranks need not meet, voted in ballots: agree()'s vote
/// (a failure flag and a hash) over up to kBallot agreements at once, posted
/// as one non-blocking MPI_Iallreduce on `comm` and concluded later, with
/// agree()'s outcome: nothing, or the same Error on every rank. Every
/// agreement on `comm` goes through it (agree() here posts the ballot and
/// waits), so that a rank that waits matches a rank that deferred (MPI does
/// not match a blocking collective with a non-blocking one). A ballot is
/// posted when it is full or by settle(); the previous one is concluded
/// first, so a failure's own collectives — on a duplicate of `comm` — come
/// at the same ballot on every rank. When the hashes differ, the error
/// names, as agree() does, the first rank that differs from rank 0 and the
/// first of its agreements in the ballot that differs.
/// Used by the C API: a STATIC loop's DLS_StartLoop ... DLS_EndLoop
/// (docs/RUNTIME.md, "STATIC without waiting").
class DeferredAgreement {
 public:
  /// Agreements per ballot.
  static constexpr std::size_t kBallot = 16;

  DeferredAgreement();
  ~DeferredAgreement();
  DeferredAgreement(const DeferredAgreement&) = delete;
  DeferredAgreement& operator=(const DeferredAgreement&) = delete;

  /// Collective over `comm` (duplicates it): the agreements' communicator,
  /// and what they are about, for the messages ("the arguments of ...").
  void open(MPI_Comm comm, const std::string& subject);
  /// Adds this rank's vote to the ballot (posted once full). No wait.
  void add(const std::string& error, std::uint64_t hash, std::function<Fields()> describe);
  /// Posts what the ballot holds and concludes every ballot (throws agree()'s Error).
  void settle();
  /// add() and settle(): an agreement now.
  void agree(const std::string& error, std::uint64_t hash, std::function<Fields()> describe);

 private:
  struct Ballot;
  void post();
  void conclude_posted();
  MPI_Comm comm_ = MPI_COMM_NULL;
  MPI_Comm followup_ = MPI_COMM_NULL;
  std::string subject_;
  std::unique_ptr<Ballot> current_;  // being filled
  std::unique_ptr<Ballot> posted_;   // posted, not concluded
};

/// The hash agree() compares.
using Hasher = Fingerprint;

}  // namespace lb4mpi::rt
