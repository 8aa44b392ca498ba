// The end of an execution under recovery (robust mode) without a
// collective call: the figures of the ranks that survived (docs/ROBUST.md).
#pragma once
#include <mpi.h>

#include <cstdint>
#include <vector>

#include "runtime/exchange.hpp"

namespace lb4mpi::rt {

/// The ranks that finished the loop. Each worker sends its
/// figures to the coordinator; the coordinator waits for them at most
/// `grace` seconds (the ranks still alive are told the loop is over and
/// answer within a piece of work), then sends every rank the figures it
/// has, the others marked failed. A worker waits for them at most
/// `timeout` seconds, then throws CoordinatorLost (Execution::conclude
/// fails over). No collective call: a failed rank cannot hold it up.
class SurvivorsExchange final : public ReportExchange {
 public:
  /// `coordinator`, `epoch`: the execution's current ones (a failover changes them).
  SurvivorsExchange(const int* coordinator, const std::int32_t* epoch, double grace, double timeout)
      : current_(coordinator), epoch_(epoch), grace_(grace), timeout_(timeout) {}
  ~SurvivorsExchange() override;
  SurvivorsExchange(const SurvivorsExchange&) = delete;
  SurvivorsExchange& operator=(const SurvivorsExchange&) = delete;
  std::vector<RankFigures> exchange(MPI_Comm comm, const RankFigures& mine) override;
  /// Loops in flight together: ranks known failed (Context::known_failed)
  /// are not waited for, and the ranks not heard of become known failed —
  /// the set's next loop does not wait for them again.
  void share_failures(std::vector<char>* known) override { known_ = known; }

 private:
  struct Message {
    std::int32_t epoch = 0;
    std::int32_t reserved = 0;
    RankFigures figures;
  };
  std::vector<RankFigures> gather(MPI_Comm comm, int size, const RankFigures& mine);
  std::vector<RankFigures> receive(MPI_Comm comm, int size, const RankFigures& mine);

  const int* current_;
  int coordinator_ = 0;  // *current_ when the exchange began
  const std::int32_t* epoch_;  // the execution's current epoch
  double grace_;
  double timeout_;
  std::vector<char>* known_ = nullptr;
  // Reports sent to ranks that may have failed: kept until they complete
  // (a failed rank never receives; its buffer is then never freed).
  struct Pending {
    std::vector<MPI_Request> requests;
    std::vector<Message> report;
  };
  std::vector<Pending*> pending_;
};

}  // namespace lb4mpi::rt
