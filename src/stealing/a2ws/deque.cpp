// A2WS's task deques in an MPI window: see a2ws/deque.hpp.
#include "a2ws/deque.hpp"

#include <algorithm>

#include "lb4mpi/types.hpp"
#include "runtime/mpi.hpp"

namespace lb4mpi::a2ws {

using rt::check_mpi;

std::int64_t TaskDeque::fitted(std::int64_t capacity, std::size_t tasks) {
  const auto n = static_cast<std::int64_t>(tasks);
  if (n > kMaxCapacity) {
    throw Error("lb4mpi: a2ws: " + std::to_string(n) + " tasks on one rank, at most " +
                std::to_string(kMaxCapacity) + " fit a deque (make tasks larger: break_after)");
  }
  return std::min(std::max(capacity, n), kMaxCapacity);
}

TaskDeque::TaskDeque(MPI_Comm comm, std::int64_t capacity, std::span<const std::int64_t> tasks)
    : capacity_(fitted(capacity, tasks.size())),
      window_(comm, static_cast<std::size_t>(1 + capacity_) * sizeof(std::int64_t), sizeof(std::int64_t)),
      win_(window_.win()),
      base_(static_cast<std::int64_t*>(window_.base())) {
  check_mpi(MPI_Comm_rank(comm, &rank_), "MPI_Comm_rank");
  check_mpi(MPI_Comm_size(comm, &size_), "MPI_Comm_size");
  const auto n = static_cast<std::int64_t>(tasks.size());
  capacities_.resize(static_cast<std::size_t>(size_));
  rt::allgather(&capacity_, 1, MPI_INT64_T, capacities_.data(), comm);
  owner_ = OwnerEnd(capacity_, n);
  base_[0] = owner_.initial_word();
  std::int64_t* slots = base_ + 1;
  std::fill(slots, slots + capacity_ - n, -1);
  std::copy(tasks.begin(), tasks.end(), slots + (capacity_ - n));
  rt::barrier(comm);  // every deque is in place before anyone steals
  window_.lock_all();
}

// One atomic on `target`'s word: MPI_Get_accumulate (= MPI_Fetch_and_op)
// as a request, completed by polling that yields the core (rt::wait): the
// result's arrival means the operation was carried out at the target.
// (MPI_Win_flush spins inside MPICH without yielding: with more ranks than
// cores each atomic cost a scheduler time slice.)
std::int64_t TaskDeque::fetch_add(int target, std::int64_t delta) {
  std::int64_t before = 0;
  MPI_Request r = MPI_REQUEST_NULL;
  check_mpi(MPI_Rget_accumulate(&delta, 1, MPI_INT64_T, &before, 1, MPI_INT64_T, target, 0, 1, MPI_INT64_T, MPI_SUM,
                                win_, &r),
            "MPI_Rget_accumulate");
  rt::wait(r, MPI_STATUS_IGNORE, "MPI_Rget_accumulate");
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
    MPI_Request r = MPI_REQUEST_NULL;
    check_mpi(MPI_Rget(out.tasks.data(), static_cast<int>(got.count), MPI_INT64_T, victim, 1 + got.first,
                       static_cast<int>(got.count), MPI_INT64_T, win_, &r),
              "MPI_Rget");
    rt::wait(r, MPI_STATUS_IGNORE, "MPI_Rget");
  }
  return out;
}

std::int64_t TaskDeque::peek(int victim) {
  return tasks_in(decode(fetch_add(victim, 0)), capacities_[static_cast<std::size_t>(victim)]);
}

}  // namespace lb4mpi::a2ws
