// The end of an execution under recovery (robust mode) without a
// collective call: the figures of the ranks that survived (docs/ROBUST.md).
#pragma once
#include <mpi.h>

#include <cstdint>
#include <functional>
#include <vector>

#include "runtime/exchange.hpp"
#include "runtime/fault.hpp"
#include "runtime/progress.hpp"

namespace lb4mpi::rt {

/// The ranks that finished the loop. Each worker sends its figures to the
/// coordinator; the coordinator waits for them at most `grace` seconds (the
/// ranks still alive are told the loop is over and answer within a piece of
/// work), then sends every rank the figures it has, the others marked
/// failed (the report). A worker waits for it at most `timeout` seconds,
/// then throws CoordinatorLost (Execution::conclude fails over). No
/// collective call: a failed rank cannot hold it up.
///
/// The report is then confirmed, so that a coordinator that fails while it
/// sends it does not leave the survivors split between those that have it
/// and those that fail over (docs/ROBUST.md, *The end of a loop*): a worker
/// acknowledges it and keeps it until the coordinator, which has every
/// acknowledgement of the ranks it heard from, releases it. A coordinator
/// releases nobody before every survivor has the report. So a worker
/// that hears of a failover before its release (a survivor lacks the
/// report) gives the report up and fails over too; one that hears nothing
/// for three timeouts (the coordinator failed while releasing: everyone has
/// the report) keeps it. The release names the ranks that had the report
/// but never acknowledged it (they died since): every survivor's report
/// names them failed.
class SurvivorsExchange final : public ReportExchange {
 public:
  /// What the exchange polls while a worker waits: the progress engine,
  /// the execution's failover flag (Context::takeover), and the failure
  /// injector of the moment (nullptr: none).
  struct Hooks {
    ProgressEngine* engine = nullptr;
    const bool* takeover = nullptr;
    std::function<FaultInjector*()> fault;
  };
  /// `coordinator`, `epoch`: the execution's current ones (a failover changes them).
  SurvivorsExchange(const int* coordinator, const std::int32_t* epoch, double grace, double timeout, Hooks hooks)
      : current_(coordinator), epoch_(epoch), grace_(grace), timeout_(timeout), hooks_(std::move(hooks)) {}
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
  /// The coordinator: one message of this exchange's epoch (tag `tag`) from
  /// every rank w with from[w], until those with waited[w] have all sent or
  /// `deadline` passed (the rest let go); which arrived, their messages in `in`.
  std::vector<char> collect(MPI_Comm comm, int tag, const std::vector<char>& from, const std::vector<char>& waited,
                            double deadline, std::vector<Message>& in);
  std::vector<RankFigures> receive(MPI_Comm comm, int size, const RankFigures& mine);
  /// Waits for `r` until `deadline`, polling the engine; false (`r` still
  /// posted) at the deadline or when a failover message arrived.
  bool await(MPI_Request& r, double deadline, MPI_Status* status = MPI_STATUS_IGNORE);
  [[nodiscard]] bool takeover() const { return hooks_.takeover != nullptr && *hooks_.takeover; }
  [[nodiscard]] FaultInjector* fault() const { return hooks_.fault ? hooks_.fault() : nullptr; }
  /// `figures` in a message of this exchange's epoch to `to`, sent without
  /// waiting; its buffer and request are kept in pending_ until it completes.
  MPI_Request& send_one(MPI_Comm comm, int to, int tag, const RankFigures& figures = {});

  const int* current_;
  int coordinator_ = 0;  // *current_ when the exchange began
  const std::int32_t* epoch_;  // the execution's current epoch
  double grace_;
  double timeout_;
  Hooks hooks_;
  std::vector<char>* known_ = nullptr;
  // Reports sent to ranks that may have failed: kept until they complete
  // (a failed rank never receives; its buffer is then never freed).
  struct Pending {
    std::vector<MPI_Request> requests;
    std::vector<Message> report;
    /// The coordinator's release, one buffer for every rank: the epoch, then
    /// the ranks that did not acknowledge the report.
    std::vector<std::int32_t> release;
  };
  std::vector<Pending*> pending_;
};

}  // namespace lb4mpi::rt
