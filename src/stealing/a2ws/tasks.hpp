// What the decentralized balancers of `002` (A2WS, LW, random stealing,
// token) share: an owned loop's iterations cut into tasks of one size
// (TaskSpace, pure), and the execution of a task on whichever rank runs it
// with its items fetched from, and its results sent back to, the rank that
// owns it (TaskRunner), and the end of an execution.
//
// A task is named by its first global iteration; tasks are cut from each
// rank's owned range from its start, so the last task of a range may be
// shorter. Engines move task names only (through their deques or
// messages); the items travel once, from the owner to the rank that runs
// the task, when that rank asks for them, and the results travel back.
#pragma once
#include <mpi.h>

#include <cstdint>
#include <functional>
#include <random>
#include <span>
#include <vector>

#include "runtime/progress.hpp"
#include "stealing/engine.hpp"
#include "stealing/transfer.hpp"

namespace lb4mpi::a2ws {

class TaskSpace {
 public:
  /// Every rank's owned range, tasks of `task_size` (>= 1) iterations.
  TaskSpace(std::vector<st::Range> owned, Index task_size);
  /// The tasks of a run: its owned ranges, choose_task_size's size.
  static TaskSpace of(const st::Run& run);
  /// The task size for a loop of `iterations` on `ranks` ranks: `break_after`
  /// when >= 1 (the iterations a rank runs between two looks at its
  /// messages), else about 1024 tasks per rank (at least one iteration).
  static Index choose_task_size(int break_after, Index iterations, int ranks);

  [[nodiscard]] Index task_size() const { return size_; }
  [[nodiscard]] int ranks() const { return static_cast<int>(owned_.size()); }
  /// Tasks of rank r's range, first to last.
  [[nodiscard]] std::vector<std::int64_t> tasks_of(int r) const;
  [[nodiscard]] Index count_of(int r) const;
  [[nodiscard]] Index total_tasks() const;
  /// The rank that owns task `id`.
  [[nodiscard]] int owner(std::int64_t id) const;
  /// Its iterations (global indices).
  [[nodiscard]] Chunk chunk(std::int64_t id) const;
  /// Its first item in its owner's storage.
  [[nodiscard]] Index local(std::int64_t id) const { return id - owned_[static_cast<std::size_t>(owner(id))].first; }
  /// The k-th task of the loop in rank order (0 <= k < total_tasks()).
  [[nodiscard]] std::int64_t nth(Index k) const;
  /// Slots of rank r's deque: its own tasks and room below the head for
  /// every task of the loop once more (pushes beyond it stay private).
  [[nodiscard]] Index deque_capacity(int r) const;
  /// Iterations of `tasks`.
  [[nodiscard]] Index iterations(std::span<const std::int64_t> tasks) const;

 private:
  std::vector<st::Range> owned_;
  std::vector<int> by_first_;  // ranks with tasks, ordered by range start
  std::vector<Index> before_;  // tasks of the ranks before r (rank order)
  Index size_;
};

/// Runs tasks on this rank and serves the items and results of the tasks
/// it owns; the engines' own control messages pass through it.
class TaskRunner final : rt::ProgressEngine::Handler {
 public:
  TaskRunner(st::Run& run, const TaskSpace& space);
  ~TaskRunner();
  TaskRunner(const TaskRunner&) = delete;
  TaskRunner& operator=(const TaskRunner&) = delete;

  /// Runs task `id` here, in pieces of at most run.budget() iterations,
  /// calling poll() between them; a task of another rank with its items
  /// fetched from the owner, and its results sent back. Returns the seconds
  /// its pieces took (the body's time, slowed per Config::speeds).
  double execute(std::int64_t id);
  /// Whatever arrived (item requests, results, the engine's messages), and
  /// completed sends; then the engine's between-hook (e.g. A2WS's ring).
  void poll();
  /// Waits for one message (serving meanwhile); false when nothing is posted.
  void wait_one();

  /// The engine's control messages (kinds >= kEngineKinds).
  std::function<void(const st::Message& m, int source)> on_message;
  /// Called by poll() (between pieces of a task, while waiting).
  std::function<void()> between;
  static constexpr std::int32_t kEngineKinds = 20;
  [[nodiscard]] st::Message message(std::int32_t kind) const;
  void send(int dest, const st::Message& m) { outbox_.send(run_.comm(), dest, m); }

  /// The end of this rank's part: it has no more work. Waits until every
  /// rank is there (MPI_Ibarrier; poll() meanwhile, so that owners still
  /// serve items and the engine's messages), then for the results of this
  /// rank's tasks run elsewhere, and for its sends; calls run.exited().
  void finish();

  /// Tasks this rank ran (its own and others').
  [[nodiscard]] Index tasks_run() const { return tasks_run_; }
  /// The engine took `tasks` in (a steal, the leader's answer): counted as
  /// iterations stolen; finish() derives the iterations given away.
  void took_in(std::span<const std::int64_t> tasks);
  /// The run's random numbers (victim draws): Config::seed and the rank.
  [[nodiscard]] std::mt19937_64 random() const;

 private:
  enum Kind : std::int32_t { kNeedItems = 1, kItems = 2, kResults = 3 };
  void on_complete(int slot, const MPI_Status& status) override;
  void post_inbox();
  void serve_items(const st::Message& m, int source);
  void receive_results(const st::Message& m, int source);

  st::Run& run_;
  const TaskSpace& space_;
  MPI_Comm comm_;
  int slot_ = -1;
  st::Message inbox_;
  st::Outbox outbox_;
  bool items_ready_ = false;         // the header of the items this rank asked for
  st::Message items_header_;
  Index open_ = 0;                   // iterations this rank owns whose results are not in
  Index tasks_run_ = 0;
  Index taken_in_ = 0;               // iterations the engine took in
};

}  // namespace lb4mpi::a2ws
