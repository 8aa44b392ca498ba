// distributed-rma under recovery (robust mode, rDLB), for the techniques
// with a closed form: the assignment stays one-sided — every rank takes the
// next step from the counter in the coordinator's window (MPI_Fetch_and_op)
// and computes its chunk from the closed form — and the coordinator keeps
// the ledger, which it learns from the reports of finished chunks (with
// their results, by message, as in the two-sided models).
//
// Once the counter has passed the last step, the coordinator publishes in
// its window the oldest steps that are scheduled but not finished (at most
// list_max_, each with its range) under a version word (a reader retries
// while it changes). A free rank reads that list and takes one of them it
// did not finish itself, spread over the ranks by a shared cursor
// (fetch-and-add): the re-issue of `004`. The first report of a step counts
// and its results are committed; later ones are dropped. When every
// iteration is finished the coordinator raises the done word: ranks still
// executing a copy, or a chunk finished elsewhere, cut it short at their
// next check, and the loop ends. A heartbeat word tells waiting ranks that
// the coordinator is alive; every operation on its window is bounded by the
// patience.
//
// The two roles are separate classes over a common part (the window, the
// closed form, the pieces): RmaRecoveryCoordinator and RmaRecoveryWorker.
// Window slots (int64): step counter, done, heartbeat, cursor, version,
// count, then (step, begin, size) per listed chunk.
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

#include "feedback.hpp"
#include "recovery/steps_done.hpp"
#include "reports.hpp"
#include "rma_window.hpp"
#include "runtime/pieces.hpp"
#include "runtime/progress.hpp"
#include "runtime/scheduler.hpp"

namespace lb4mpi::rt {

/// What both roles share.
class RmaRecoveryRank : public FedScheduler {
 public:
  RmaRecoveryRank(Context& ctx, AdaptiveFeedback& feedback) : FedScheduler(feedback), ctx_(ctx), win_(ctx) {}
  void start(Index n) override;
  Grab acquire(bool may_wait) override;
  void end(const std::vector<RankFigures>& all) override;
  [[nodiscard]] bool ships_results() const override { return true; }
  [[nodiscard]] Index reissued() const override { return reissued_; }

 protected:
  enum Slot : int { kSlotStep = 0, kSlotDone = 1, kSlotBeat = 2, kSlotCursor = 3, kSlotVersion = 4, kSlotCount = 5, kSlotList = 6 };
  struct Listed {
    std::int64_t step;
    Chunk chunk;
  };
  /// The role's part of start(), after the window is taken and before the
  /// barrier that makes its words visible.
  virtual void start_role() {}
  /// The next piece of the chunk in execution.
  Grab next_piece();
  /// The next piece of the chunk in execution into `g`; false when there is
  /// none (no chunk, or, checked cadence_ apart, one finished elsewhere first:
  /// dropped).
  bool continue_chunk(Grab& g);
  /// Between pieces (cadence_ apart): whether the chunk in execution is still needed.
  virtual bool check_needed() = 0;
  // acquire()'s points, by role:
  /// Before the rank takes a step: whether the loop is over (the coordinator serves first).
  virtual bool over_before_step() { return false; }
  /// The counter is past the end: whether to look again from the top (the
  /// coordinator serves, and learns that the steps are over, first).
  [[nodiscard]] virtual bool again_past_end() const { return false; }
  /// Every step is taken: whether the loop is over (the done word).
  virtual bool over_after_steps() { return false; }
  /// The steps that may be taken again by this rank.
  virtual std::vector<Listed> copy_candidates() = 0;
  /// Nothing to do right now: waits a little.
  virtual void wait_a_little(int polls) = 0;
  /// Loops in flight together: nothing for this rank in this loop right now
  /// (it moves on to another loop): the checks of a wait, without waiting.
  virtual void polled() {}
  Grab begin_chunk(const Chunk& c, std::int64_t id, bool copy);
  /// The next step of the one-sided assignment: its chunk (past_end_ set when there is none).
  std::optional<Chunk> take_step(std::int64_t& id);
  /// A copy from `candidates`, spread over the ranks that ask by the shared cursor.
  std::optional<Listed> spread(const std::vector<Listed>& candidates);

  Context& ctx_;
  RmaWindow win_;
  std::optional<ClosedSequence> seq_;
  PieceCutter cut_;
  Chunk current_;
  ServeCadence cadence_;
  Index n_ = 0;
  bool past_end_ = false;  // the counter gave this rank a step past the end
  bool copy_ = false;      // the chunk in execution is a copy
  bool done_ = false;
  Index reissued_ = 0;
  int list_max_ = 0;
  std::vector<std::int64_t> scratch_;
  int wait_polls_ = 0;  // polls since the rank began to wait
};

/// The coordinator: takes steps like everyone, receives the reports,
/// commits each step's first completion, publishes the unfinished steps,
/// raises the done word and the heartbeat.
class RmaRecoveryCoordinator final : public RmaRecoveryRank, private ProgressEngine::Handler {
 public:
  RmaRecoveryCoordinator(Context& ctx, AdaptiveFeedback& feedback);
  ~RmaRecoveryCoordinator() override;
  RmaRecoveryCoordinator(const RmaRecoveryCoordinator&) = delete;
  RmaRecoveryCoordinator& operator=(const RmaRecoveryCoordinator&) = delete;

  void finished(std::int64_t id, Index size, double work) override;
  void end(const std::vector<RankFigures>& all) override;

 private:
  void start_role() override;
  bool check_needed() override;
  bool over_before_step() override;
  [[nodiscard]] bool again_past_end() const override { return true; }
  std::vector<Listed> copy_candidates() override { return unfinished_; }  // its list, as published and newer
  void wait_a_little(int polls) override;
  void on_complete(int slot, const MPI_Status& status) override;
  void tend() override { serve(); }
  void stop_listening();
  void handle(int sender, const Request& report);
  /// A report whose results are in.
  void chunk_reported(const Request& report, const std::vector<std::byte>& results);
  /// Step `id` finished (a report, or its own chunk); the first time, its
  /// results are committed (`own`: from this rank's store, else *result_buf_).
  void commit_step(std::int64_t id, const Chunk& chunk, bool own, bool results);
  /// Reports, the end of the assignment, the list, the done word, the heartbeat.
  void serve();
  void publish();

  std::optional<RequestInbox> inbox_;  // when there are other ranks
  ResultsInbox results_in_;
  const std::vector<std::byte>* result_buf_ = nullptr;  // the results of the report being committed
  StepsDone steps_;
  Index finished_ = 0;
  bool exhausted_ = false;               // every step is scheduled
  std::optional<ClosedSequence> probe_;  // walks the counter's values to the end
  std::vector<Listed> unfinished_;       // once exhausted: the steps not finished, in step order
  bool dirty_ = false;                   // unfinished_ changed since it was published
  std::int64_t version_ = 0;
  bool raised_ = false;  // the done word is set
  double last_beat_ = 0.0;
  double last_probe_ = 0.0;
};

/// Every other rank: takes steps, reports what it finished, takes copies
/// from the published list, watches the done word and the heartbeat.
class RmaRecoveryWorker final : public RmaRecoveryRank {
 public:
  RmaRecoveryWorker(Context& ctx, AdaptiveFeedback& feedback) : RmaRecoveryRank(ctx, feedback), reports_(ctx) {}

  void finished(std::int64_t id, Index size, double work) override;

 private:
  void start_role() override;
  bool over_after_steps() override;
  std::vector<Listed> copy_candidates() override;
  /// The coordinator's list of unfinished steps (a consistent snapshot).
  std::vector<Listed> read_list();
  bool check_needed() override;
  /// Waits a little for the list or the end; the coordinator's silence for
  /// the patience is an error.
  void wait_a_little(int polls) override;
  void polled() override;

  ReportSender reports_;
  std::int64_t copy_version_ = -1;  // the list's version when the copy was taken
  StepList mine_;  // steps this rank finished (not to take again)
  // liveness of the coordinator, as a waiting rank sees it
  std::int64_t beat_seen_ = -1;
  double beat_changed_ = 0.0;
};

}  // namespace lb4mpi::rt
