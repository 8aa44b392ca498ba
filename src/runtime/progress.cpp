#include "runtime/progress.hpp"

#include <string>

#include "lb4mpi/types.hpp"
#include "runtime/clock.hpp"
#include "runtime/mpi.hpp"

namespace lb4mpi::rt {

int ProgressEngine::add(Handler* handler) {
  for (std::size_t s = 0; s < handlers_.size(); ++s) {
    if (handlers_[s] == nullptr) {
      handlers_[s] = handler;
      requests_[s] = MPI_REQUEST_NULL;
      return static_cast<int>(s);
    }
  }
  handlers_.push_back(handler);
  requests_.push_back(MPI_REQUEST_NULL);
  return static_cast<int>(handlers_.size() - 1);
}

void ProgressEngine::remove(int slot) {
  const auto s = static_cast<std::size_t>(slot);
  if (requests_[s] != MPI_REQUEST_NULL) {
    throw Error("lb4mpi: internal error: a progress slot was removed with its request still posted");
  }
  handlers_[s] = nullptr;
}

void ProgressEngine::abandon(int slot) noexcept {
  MPI_Request& r = requests_[static_cast<std::size_t>(slot)];
  if (r != MPI_REQUEST_NULL) {
    MPI_Cancel(&r);
    MPI_Request_free(&r);
  }
  r = MPI_REQUEST_NULL;
  handlers_[static_cast<std::size_t>(slot)] = nullptr;
}

bool ProgressEngine::active() const {
  for (MPI_Request r : requests_) {
    if (r != MPI_REQUEST_NULL) return true;
  }
  return false;
}

void ProgressEngine::complete(int slot, const MPI_Status& status) {
  ++completions_;
  Handler* h = handlers_[static_cast<std::size_t>(slot)];
  if (h != nullptr) h->on_complete(slot, status);
}

void ProgressEngine::fail_in_status(int count) const {
  // Which request failed, and how: the error of the whole call says only
  // that one of them did.
  std::string what = "lb4mpi: MPI_Testsome failed:";
  for (int i = 0; i < count; ++i) {
    const MPI_Status& st = statuses_[static_cast<std::size_t>(i)];
    if (st.MPI_ERROR == MPI_SUCCESS) continue;
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(st.MPI_ERROR, text, &len);
    what += " slot " + std::to_string(indices_[static_cast<std::size_t>(i)]) + " (source " +
            std::to_string(st.MPI_SOURCE) + ", tag " + std::to_string(st.MPI_TAG) + "): " +
            std::string(text, static_cast<std::size_t>(len)) + ";";
  }
  throw Error(what);
}

int ProgressEngine::poll(double* first) {
  const int n = static_cast<int>(requests_.size());
  // One request posted (the common case: one loop; the other slots idle):
  // MPI_Test, which looks again after progressing. MPI_Testsome (Open MPI
  // 4.1) looks only before: a message its progress delivered is reported
  // by the next call — a coordinator between two of its own chunks then
  // answered a waiting worker one chunk late (SS under recovery, P = 2: the
  // request's answer took 17 us instead of 9, issue 28).
  int posted = 0;
  int only = -1;
  for (int s = 0; s < n; ++s) {
    if (requests_[static_cast<std::size_t>(s)] != MPI_REQUEST_NULL) {
      ++posted;
      only = s;
    }
  }
  if (posted == 0) return 0;
  if (posted == 1) {
    int done = 0;
    MPI_Status st;
    check_mpi(MPI_Test(&requests_[static_cast<std::size_t>(only)], &done, &st), "MPI_Test");
    if (done == 0) return 0;
    if (first != nullptr) *first = clock_now();
    complete(only, st);
    return 1;
  }
  indices_.resize(static_cast<std::size_t>(n));
  statuses_.resize(static_cast<std::size_t>(n));
  int count = 0;
  // Twice when the first finds nothing (its progress may have delivered).
  for (int round = 0; round < 2 && count == 0; ++round) {
    const int rc = MPI_Testsome(n, requests_.data(), &count, indices_.data(), statuses_.data());
    if (rc == MPI_ERR_IN_STATUS) fail_in_status(count);
    check_mpi(rc, "MPI_Testsome");
    if (count == MPI_UNDEFINED) return 0;
  }
  if (count == 0) return 0;
  if (first != nullptr) *first = clock_now();
  // Copied first: a handler may post new requests (and the scratch is reused).
  const std::vector<int> done(indices_.begin(), indices_.begin() + count);
  const std::vector<MPI_Status> st(statuses_.begin(), statuses_.begin() + count);
  for (int i = 0; i < count; ++i) complete(done[static_cast<std::size_t>(i)], st[static_cast<std::size_t>(i)]);
  return count;
}

int ProgressEngine::drain(double* first, int max_rounds) {
  int total = poll(first);
  if (total == 0) return 0;
  for (int round = 1; round < max_rounds; ++round) {
    const int k = poll();
    if (k == 0) break;
    total += k;
  }
  return total;
}

bool ProgressEngine::wait_one(double* found) {
  if (!active()) return false;
  MPI_Status st;
  const int slot = wait_any(static_cast<int>(requests_.size()), requests_.data(), &st);
  if (slot == MPI_UNDEFINED) return false;
  if (found != nullptr) *found = clock_now();
  complete(slot, st);
  return true;
}

ProgressEngine::Waited ProgressEngine::wait_one_until(double deadline, double* found) {
  if (!active()) return Waited::Idle;
  MPI_Status st;
  const int slot = wait_any_until(static_cast<int>(requests_.size()), requests_.data(), &st, deadline);
  if (slot == kTimedOut) return Waited::TimedOut;
  if (slot == MPI_UNDEFINED) return Waited::Idle;
  if (found != nullptr) *found = clock_now();
  complete(slot, st);
  return Waited::Completed;
}

}  // namespace lb4mpi::rt
