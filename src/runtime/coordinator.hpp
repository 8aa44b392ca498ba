// The coordinator of the two-sided execution models (`003` §2.4): it holds
// the assignment and the ledger, answers requests, and executes chunks of
// its own in pieces, checking for requests between them (ServeCadence).
// It is done when its ledger is complete — every iteration finished — not
// when it has counted the workers out.
#pragma once
#include <memory>

#include "assign.hpp"
#include "feedback.hpp"
#include "ledger.hpp"
#include "recovery/policy.hpp"
#include "reports.hpp"
#include "runtime/pieces.hpp"
#include "runtime/scheduler.hpp"

namespace lb4mpi::rt {

class Coordinator final : public FedScheduler, private ProgressEngine::Handler, private CoordinatorPort {
 public:
  Coordinator(Context& ctx, AdaptiveFeedback& feedback, std::unique_ptr<Assignment> assignment);
  ~Coordinator() override;
  Coordinator(const Coordinator&) = delete;
  Coordinator& operator=(const Coordinator&) = delete;

  void start(Index n) override;
  Grab acquire(bool may_wait) override;
  void finished(std::int64_t id, Index size, double work) override;
  [[nodiscard]] bool ships_results() const override { return true; }
  void end(const std::vector<RankFigures>& all) override;
  void tend() override {
    if (ctx_.size > 1) serve_ready();
  }
  [[nodiscard]] Index reissued() const override { return recovery_->reissued(); }
  /// Ranks that get no first work at start() (known to have failed).
  void skip(std::vector<char> ranks) { skip_ = std::move(ranks); }

 private:
  void on_complete(int slot, const MPI_Status& status) override;
  void stop_listening();
  void handle(int worker, const Request& request);
  void send(int worker, Reply reply) override;
  /// Serves what has arrived (every loop of the engine), timed as serving.
  int serve_ready();
  /// Serves until `done()` holds, waiting politely. Only the handling of
  /// each message counts as serving; the waits in between are the
  /// coordinator's waiting (for a worker's commit), or idle when it waits
  /// for the end of the loop (`loop_end`).
  template <class Done>
  void serve_until(Done done, bool loop_end);
  bool next_own_chunk(bool may_wait, Grab& grab);
  /// The coordinator's own chunk `id` is finished (every piece executed).
  void own_chunk_done(std::int64_t id);
  /// A reported chunk whose results are in: counted once, its results committed.
  void chunk_reported(const Request& message, const std::vector<std::byte>& results);

  Context& ctx_;
  std::unique_ptr<Assignment> assign_;
  Ledger ledger_;
  PieceCutter cut_;
  ServeCadence cadence_;
  RequestInbox inbox_;
  ResultsInbox results_in_;
  std::unique_ptr<CoordinatorRecovery> recovery_;  // runtime/recovery/: plain, or recovering
  bool own_over_ = false;  // no chunk of its own will come any more
  bool fresh_ = false;     // start() took its first chunk: the first piece begins it
  std::vector<std::pair<int, Reply>> released_;  // scratch: deferred answers a commit released
  Chunk own_chunk_;                               // its own chunk being executed (cut_)
  std::vector<char> skip_;                        // per rank: no first work (skip())
  std::vector<char> firsts_;                      // scratch: which parts of a report finished first
};

}  // namespace lb4mpi::rt
