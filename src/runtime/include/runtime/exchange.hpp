// How the ranks learn each other's figures at the end of an execution,
// behind an interface: every rank of the communicator (here), or — under
// recovery — the ranks that survived (runtime/recovery/survivors.hpp).
#pragma once
#include <mpi.h>

#include <vector>

#include "runtime/figures.hpp"

namespace lb4mpi::rt {

class ReportExchange {
 public:
  virtual ~ReportExchange() = default;
  /// Collective over the ranks taking part: every rank's figures, indexed by rank.
  virtual std::vector<RankFigures> exchange(MPI_Comm comm, const RankFigures& mine) = 0;
  /// Loops in flight together: per rank, known to have failed, shared by the
  /// loops of a set (an exchange that does without failed ranks uses it).
  virtual void share_failures(std::vector<char>* /*known*/) {}
};

/// Every rank of the communicator takes part (one nonblocking allgather).
class AllRanksExchange final : public ReportExchange {
 public:
  std::vector<RankFigures> exchange(MPI_Comm comm, const RankFigures& mine) override;
};

}  // namespace lb4mpi::rt
