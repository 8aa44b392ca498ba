// Robust mode (rDLB) in distributed-rma, for the techniques with a closed
// form: the assignment stays one-sided — every rank takes the next step
// from the counter in the coordinator's window (MPI_Fetch_and_op) and
// computes its chunk from the closed form — and the coordinator keeps the
// ledger, which it learns from the reports of finished chunks (with their
// results, by message, as in the two-sided models).
//
// Once the counter has passed the last step, the coordinator publishes in
// its window the oldest steps that are scheduled but not finished (at most
// kListMax, each with its range) under a version word (a reader retries
// while it changes). A free rank reads that list and takes one of them it
// did not finish itself, spread over the ranks by a shared cursor
// (fetch-and-add): the re-issue of `004`. The first report of a step counts
// and its results are committed; later ones are dropped. When every
// iteration is finished the coordinator raises the done word: ranks still
// executing a copy, or a chunk finished elsewhere, cut it short at their
// next check, and the loop ends. A heartbeat word tells waiting ranks that
// the coordinator is alive; every operation on its window is bounded by the
// robust timeout.
//
// Window slots (int64): step counter, done, heartbeat, cursor, version,
// count, then (step, begin, size) per listed chunk.
#pragma once
#include <cstdint>
#include <optional>
#include <unordered_set>
#include <vector>

#include "feedback.hpp"
#include "pieces.hpp"
#include "reports.hpp"
#include "rma_window.hpp"
#include "runtime/progress.hpp"
#include "runtime/scheduler.hpp"
#include "steps_done.hpp"

namespace lb4mpi::rt {

class RobustRmaScheduler final : public FedScheduler, private ProgressEngine::Handler {
 public:
  RobustRmaScheduler(Context& ctx, AdaptiveFeedback& feedback);
  ~RobustRmaScheduler() override;
  RobustRmaScheduler(const RobustRmaScheduler&) = delete;
  RobustRmaScheduler& operator=(const RobustRmaScheduler&) = delete;

  void start(Index n) override;
  Grab acquire(bool may_wait) override;
  void finished(std::int64_t id, Index size, double work) override;
  void end(const std::vector<RankFigures>& all) override;
  [[nodiscard]] bool ships_results() const override { return true; }
  [[nodiscard]] Index reissued() const override { return reissued_; }

 private:
  enum Slot : int { kStep = 0, kDone = 1, kBeat = 2, kCursor = 3, kVersion = 4, kCount = 5, kList = 6 };
  struct Listed {
    std::int64_t step;
    Chunk chunk;
  };

  // ---- every rank
  /// The coordinator's list of unfinished steps (a consistent snapshot).
  std::vector<Listed> read_list();
  /// A listed step this rank did not finish, chosen by the shared cursor.
  std::optional<Listed> pick_copy();
  /// Between pieces: whether the chunk in execution is still needed.
  [[nodiscard]] bool still_needed();
  /// Waits a little for the list or the end; the coordinator's silence for
  /// the timeout is an error.
  void wait_a_little(int polls);
  Grab begin_chunk(const Chunk& c, std::int64_t id, bool copy);

  // ---- the coordinator
  void on_complete(int slot, const MPI_Status& status) override;
  void stop_listening();
  void handle(int sender, const Request& report);
  /// Step `id` finished (a report, or its own chunk); the first time, its
  /// results are committed (`own`: from this rank's store, else result_buf_).
  void commit_step(std::int64_t id, const Chunk& chunk, bool own, bool results);
  /// Reports, the end of the assignment, the list, the done word, the heartbeat.
  void serve();
  void publish();

  Context& ctx_;
  RmaWindow win_;
  ReportSender reports_;
  std::optional<ClosedSequence> seq_;
  PieceCutter cut_;
  Chunk current_;
  ServeCadence cadence_;
  Index n_ = 0;
  bool past_end_ = false;  // the counter gave this rank a step past the end
  bool copy_ = false;      // the chunk in execution is a copy
  std::int64_t copy_version_ = -1;  // the list's version when the copy was taken
  bool done_ = false;
  std::unordered_set<std::int64_t> mine_;  // steps this rank finished (not to take again)
  Index reissued_ = 0;
  int list_max_ = 0;
  std::vector<std::int64_t> scratch_;
  // liveness of the coordinator, as a waiting rank sees it
  std::int64_t beat_seen_ = -1;
  double beat_changed_ = 0.0;
  int wait_polls_ = 0;  // polls since the rank began to wait

  // coordinator
  std::optional<RequestInbox> inbox_;  // the coordinator's, when there are other ranks
  std::vector<std::byte> result_buf_;
  StepsDone steps_;
  Index finished_ = 0;
  bool exhausted_ = false;      // every step is scheduled
  std::optional<ClosedSequence> probe_;  // walks the counter's values to the end
  std::vector<Listed> unfinished_;       // once exhausted: the steps not finished, in step order
  bool dirty_ = false;          // unfinished_ changed since it was published
  std::int64_t version_ = 0;
  bool raised_ = false;         // the done word is set
  double last_beat_ = 0.0;
  double last_probe_ = 0.0;
};

}  // namespace lb4mpi::rt
