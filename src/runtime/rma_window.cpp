#include "rma_window.hpp"

#include <algorithm>
#include <vector>

#include "platform/platform.hpp"
#include "recovery/policy.hpp"
#include "runtime/mpi.hpp"

namespace lb4mpi::rt {

RmaWindow::~RmaWindow() {
  // Bounded (recovery): a loop that did not end may have lost ranks (its
  // coordinator, this rank's error says), and freeing is collective: the
  // window is left to MPI, never freed.
  if (win_ != MPI_WIN_NULL && !ctx_.bounded()) {
    MPI_Win_unlock_all(win_);
    MPI_Win_free(&win_);  // collective: every rank destroys its Loop
  }
}

void RmaWindow::take(std::size_t doubles) {
  doubles_ = doubles;
  auto& pool = ctx_.channel->windows;
  for (auto w = pool.rbegin(); w != pool.rend(); ++w) {
    if (w->owner == ctx_.config.coordinator && w->doubles >= doubles) {
      win_ = w->win;
      capacity_ = w->doubles;
      pool.erase(std::next(w).base());
      return;  // as given back: its first slot is 0
    }
  }
  const bool mine = ctx_.is_coordinator();
  const MPI_Aint bytes = mine ? static_cast<MPI_Aint>(doubles * sizeof(double)) : 0;
  void* base = nullptr;
  check_mpi(MPI_Win_allocate(bytes, sizeof(double), MPI_INFO_NULL, ctx_.comm, &base, &win_), "MPI_Win_allocate");
  capacity_ = doubles;
  check_mpi(MPI_Win_set_errhandler(win_, MPI_ERRORS_RETURN), "MPI_Win_set_errhandler");
  if (mine) std::fill_n(static_cast<double*>(base), doubles, 0.0);
  barrier(ctx_.comm);  // the zeroed memory is visible before any access
  check_mpi(MPI_Win_lock_all(MPI_MODE_NOCHECK, win_), "MPI_Win_lock_all");
}

void RmaWindow::give_back() {
  if (win_ == MPI_WIN_NULL) return;
  if (ctx_.is_coordinator()) {
    // The first slot to 0 (the step counter, or the lock word, free anyway),
    // whatever the next loop on the window uses it for. Every rank is past
    // its last access (the figures were exchanged), and the next start's
    // agreement orders this before any access.
    (void)swap(0, 0);
  }
  ctx_.channel->windows.push_back({win_, ctx_.config.coordinator, capacity_});
  win_ = MPI_WIN_NULL;
}

bool RmaWindow::bounded_ops() const {
  return ctx_.bounded() && !platform::kSimulated && !ctx_.is_coordinator();
}

void RmaWindow::complete(MPI_Request& request, const char* what) {
  if (!bounded_ops()) {
    wait(request, MPI_STATUS_IGNORE, what);
    return;
  }
  if (!wait_until(request, MPI_STATUS_IGNORE, clock_now() + ctx_.patience(), what)) {
    MPI_Request_free(&request);  // completes only if the coordinator was merely slow
    (void)landing_.release();    // then MPI writes there: let go (landing())
    coordinator_silent(ctx_, "while reaching its window");
  }
}

RmaWindow::Landing& RmaWindow::landing(int count) {
  if (!landing_) landing_ = std::make_unique<Landing>();
  if (landing_->out.size() < static_cast<std::size_t>(count)) landing_->out.resize(static_cast<std::size_t>(count));
  return *landing_;
}

std::int64_t RmaWindow::fetch_op(int slot, std::int64_t value, MPI_Op op) {
  const int coord = ctx_.config.coordinator;
  std::int64_t old = 0;
  if (!bounded_ops()) {
    check_mpi(MPI_Fetch_and_op(&value, &old, MPI_INT64_T, coord, slot, op, win_), "MPI_Fetch_and_op");
    check_mpi(MPI_Win_flush(coord, win_), "MPI_Win_flush");
    return old;
  }
  Landing& l = landing(1);
  l.in = value;
  MPI_Request r = MPI_REQUEST_NULL;
  check_mpi(MPI_Rget_accumulate(&l.in, 1, MPI_INT64_T, l.out.data(), 1, MPI_INT64_T, coord, slot, 1, MPI_INT64_T, op,
                                win_, &r),
            "MPI_Rget_accumulate");
  complete(r, "MPI_Rget_accumulate");
  return l.out[0];
}

std::int64_t RmaWindow::read(int slot) {
  const int coord = ctx_.config.coordinator;
  std::int64_t value = 0;
  if (!bounded_ops()) {
    check_mpi(MPI_Get(&value, 1, MPI_INT64_T, coord, slot, 1, MPI_INT64_T, win_), "MPI_Get");
    check_mpi(MPI_Win_flush(coord, win_), "MPI_Win_flush");
    return value;
  }
  Landing& l = landing(1);
  MPI_Request r = MPI_REQUEST_NULL;
  check_mpi(MPI_Rget(l.out.data(), 1, MPI_INT64_T, coord, slot, 1, MPI_INT64_T, win_, &r), "MPI_Rget");
  complete(r, "MPI_Rget");
  return l.out[0];
}

void RmaWindow::read(int slot, std::int64_t* out, int count) {
  const int coord = ctx_.config.coordinator;
  if (!bounded_ops()) {
    check_mpi(MPI_Get_accumulate(nullptr, 0, MPI_INT64_T, out, count, MPI_INT64_T, coord, slot, count, MPI_INT64_T,
                                 MPI_NO_OP, win_),
              "MPI_Get_accumulate");
    check_mpi(MPI_Win_flush(coord, win_), "MPI_Win_flush");
    return;
  }
  Landing& l = landing(count);
  MPI_Request r = MPI_REQUEST_NULL;
  check_mpi(MPI_Rget_accumulate(nullptr, 0, MPI_INT64_T, l.out.data(), count, MPI_INT64_T, coord, slot, count,
                                MPI_INT64_T, MPI_NO_OP, win_, &r),
            "MPI_Rget_accumulate");
  complete(r, "MPI_Rget_accumulate");
  std::copy_n(l.out.begin(), count, out);
}

void RmaWindow::write(int slot, const std::int64_t* in, int count) {
  const int coord = ctx_.config.coordinator;
  check_mpi(MPI_Accumulate(in, count, MPI_INT64_T, coord, slot, count, MPI_INT64_T, MPI_REPLACE, win_),
            "MPI_Accumulate");
  check_mpi(MPI_Win_flush(coord, win_), "MPI_Win_flush");
}

void RmaWindow::put(const double* in, int count, int slot, int target) {
  check_mpi(MPI_Put(in, count, MPI_DOUBLE, target, slot, count, MPI_DOUBLE, win_), "MPI_Put");
  check_mpi(MPI_Win_flush(target, win_), "MPI_Win_flush");
}

void RmaWindow::get(double* out, int count, int slot, int target) {
  check_mpi(MPI_Get(out, count, MPI_DOUBLE, target, slot, count, MPI_DOUBLE, win_), "MPI_Get");
  check_mpi(MPI_Win_flush(target, win_), "MPI_Win_flush");
}

}  // namespace lb4mpi::rt
