// A2WS's task deques in an MPI window: see a2ws/deque.hpp.
#include "a2ws/deque.hpp"

#include <algorithm>

#include "lb4mpi/types.hpp"
#include "runtime/mpi.hpp"

namespace lb4mpi::a2ws {

using rt::check_mpi;

TaskDeque::TaskDeque(MPI_Comm comm, std::int64_t capacity, std::span<const std::int64_t> tasks) {
  check_mpi(MPI_Comm_rank(comm, &rank_), "MPI_Comm_rank");
  check_mpi(MPI_Comm_size(comm, &size_), "MPI_Comm_size");
  const auto n = static_cast<std::int64_t>(tasks.size());
  capacity = std::min(std::max(capacity, n), kMaxCapacity);
  if (n > kMaxCapacity) {
    throw Error("lb4mpi: a2ws: " + std::to_string(n) + " tasks on one rank, at most " +
                std::to_string(kMaxCapacity) + " fit a deque (make tasks larger: break_after)");
  }
  capacities_.resize(static_cast<std::size_t>(size_));
  rt::allgather(&capacity, 1, MPI_INT64_T, capacities_.data(), comm);
  const auto bytes = static_cast<MPI_Aint>((1 + capacity) * static_cast<std::int64_t>(sizeof(std::int64_t)));
  check_mpi(MPI_Win_allocate(bytes, sizeof(std::int64_t), MPI_INFO_NULL, comm, &base_, &win_), "MPI_Win_allocate");
  check_mpi(MPI_Win_set_errhandler(win_, MPI_ERRORS_RETURN), "MPI_Win_set_errhandler");
  owner_ = OwnerEnd(capacity, n);
  base_[0] = owner_.initial_word();
  std::int64_t* slots = base_ + 1;
  std::fill(slots, slots + capacity - n, -1);
  std::copy(tasks.begin(), tasks.end(), slots + (capacity - n));
  rt::barrier(comm);  // every deque is in place before anyone steals
  check_mpi(MPI_Win_lock_all(MPI_MODE_NOCHECK, win_), "MPI_Win_lock_all");
}

TaskDeque::~TaskDeque() {
  if (win_ == MPI_WIN_NULL) return;
  MPI_Win_unlock_all(win_);
  MPI_Win_free(&win_);  // collective: every rank destroys its deque
}

std::int64_t TaskDeque::fetch_add(int target, std::int64_t delta) {
  std::int64_t before = 0;
  check_mpi(MPI_Fetch_and_op(&delta, &before, MPI_INT64_T, target, 0, MPI_SUM, win_), "MPI_Fetch_and_op");
  check_mpi(MPI_Win_flush(target, win_), "MPI_Win_flush");
  return before;
}

std::int64_t TaskDeque::take() {
  if (!private_.empty()) {
    const std::int64_t t = private_.back();
    private_.pop_back();
    return t;
  }
  if (owner_.known_empty()) return -1;
  const std::int64_t s = owner_.took(fetch_add(rank_, owner_.take_delta()));
  return s < 0 ? -1 : base_[1 + s];  // slots are written by the owner only
}

void TaskDeque::push(std::span<const std::int64_t> tasks) {
  std::vector<std::int64_t> todo(tasks.begin(), tasks.end());
  // Thieves that over-claimed between the owner's last atomic and its push
  // leave the top of the push out of their reach; the push's atomic tells
  // the owner exactly which tasks, and it pushes them again (the word is
  // then exact unless yet another over-claim came in between). After a few
  // rounds, what is left stays private.
  for (int round = 0; round < 4 && !todo.empty(); ++round) {
    const auto m = static_cast<std::int64_t>(todo.size());
    const std::int64_t fit = std::min(m, owner_.head());
    if (fit == 0) break;
    // What does not fit stays private (taken from the back: in the order given).
    for (std::int64_t i = m - 1; i >= fit; --i) private_.push_back(todo[static_cast<std::size_t>(i)]);
    std::copy_n(todo.begin(), fit, base_ + 1 + (owner_.head() - fit));
    // The slots are visible to other ranks' MPI_Get before the atomic that publishes them.
    check_mpi(MPI_Win_sync(win_), "MPI_Win_sync");
    const std::int64_t d = owner_.push_delta(fit);
    const Slots lost = owner_.pushed(fit, d, fetch_add(rank_, d));
    todo.assign(base_ + 1 + lost.first, base_ + 1 + lost.first + lost.count);
  }
  for (auto t = todo.rbegin(); t != todo.rend(); ++t) private_.push_back(*t);
}

TaskDeque::Stolen TaskDeque::steal(int victim, std::int64_t k) {
  const std::int64_t cap = capacities_[static_cast<std::size_t>(victim)];
  k = std::clamp<std::int64_t>(k, 1, cap);
  const std::int64_t before = fetch_add(victim, delta(0, k));
  const Slots got = claim_outcome(decode(before), k, cap);
  Stolen out;
  out.left = tasks_in(decode(before + delta(0, k)), cap);
  if (got.count > 0) {
    out.tasks.resize(static_cast<std::size_t>(got.count));
    check_mpi(MPI_Get(out.tasks.data(), static_cast<int>(got.count), MPI_INT64_T, victim, 1 + got.first,
                      static_cast<int>(got.count), MPI_INT64_T, win_),
              "MPI_Get");
    check_mpi(MPI_Win_flush(victim, win_), "MPI_Win_flush");
  }
  return out;
}

std::int64_t TaskDeque::peek(int victim) {
  std::int64_t word = 0;
  check_mpi(MPI_Fetch_and_op(nullptr, &word, MPI_INT64_T, victim, 0, MPI_NO_OP, win_), "MPI_Fetch_and_op");
  check_mpi(MPI_Win_flush(victim, win_), "MPI_Win_flush");
  return tasks_in(decode(word), capacities_[static_cast<std::size_t>(victim)]);
}

}  // namespace lb4mpi::a2ws
