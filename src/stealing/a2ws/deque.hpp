// A2WS's per-rank task deques in one MPI window (`002` §2.3): every rank's
// deque is a word (head and tail packed, a2ws/packed_deque.hpp) and an array
// of task slots in its part of the window. The owner takes from the head and
// pushes stolen tasks there; thieves take from the tail with one
// MPI_Fetch_and_op and read the tasks they got with one MPI_Get. No lock, no
// progress thread: passive-target RMA inside one MPI_Win_lock_all epoch.
#pragma once
#include <mpi.h>

#include <cstdint>
#include <span>
#include <vector>

#include "a2ws/packed_deque.hpp"
#include "a2ws/window.hpp"

namespace lb4mpi::a2ws {

class TaskDeque {
 public:
  /// Collective over `comm`: this rank's deque of `capacity` slots starts
  /// with `tasks` (the first is taken first). capacity >= tasks.size().
  TaskDeque(MPI_Comm comm, std::int64_t capacity, std::span<const std::int64_t> tasks);
  /// Collective (MPI_Win_free): every rank must be past its last access.
  ~TaskDeque() = default;
  TaskDeque(const TaskDeque&) = delete;
  TaskDeque& operator=(const TaskDeque&) = delete;

  // ---- the owner
  /// The next task: first those a push could not make stealable, then the
  /// head of the deque (one atomic); -1 when the deque is empty.
  std::int64_t take();
  /// Adds `tasks` at the head (the first taken first). Tasks that thieves
  /// could no longer reach (they over-claimed meanwhile) are pushed again;
  /// what does not fit below the head, or is still out of reach after a
  /// few rounds, stays private to the owner (taken first, never stolen).
  void push(std::span<const std::int64_t> tasks);
  /// Tasks this rank still holds as of its last atomic: in its deque
  /// (thieves may have taken some since) and private.
  [[nodiscard]] std::int64_t held() const { return owner_.last_seen_tasks() + static_cast<std::int64_t>(private_.size()); }
  /// Tasks in the deque as of the last atomic (what thieves may take).
  [[nodiscard]] std::int64_t stealable() const { return owner_.last_seen_tasks(); }

  // ---- a thief
  struct Stolen {
    std::vector<std::int64_t> tasks;  ///< what it got (fewer than asked when its view was stale)
    std::int64_t left = 0;            ///< tasks in the victim's deque right after
  };
  /// Takes up to `k` tasks from the tail of `victim`'s deque: one
  /// MPI_Fetch_and_op, then one MPI_Get of the tasks it got.
  Stolen steal(int victim, std::int64_t k);
  /// Tasks in `victim`'s deque now (an atomic read: MPI_Fetch_and_op MPI_NO_OP).
  std::int64_t peek(int victim);

  [[nodiscard]] int rank() const { return rank_; }
  [[nodiscard]] int size() const { return size_; }

 private:
  std::int64_t fetch_add(int target, std::int64_t delta);
  static std::int64_t fitted(std::int64_t capacity, std::size_t tasks);
  std::int64_t capacity_;
  Window window_;                 // [0] the word, [1 + s] slot s
  MPI_Win win_;
  std::int64_t* base_;
  int rank_ = 0;
  int size_ = 1;
  std::vector<std::int64_t> capacities_;  // every rank's
  OwnerEnd owner_;
  std::vector<std::int64_t> private_;  // taken from the back
};

}  // namespace lb4mpi::a2ws
