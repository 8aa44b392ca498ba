// The progress engine: the MPI requests that lb4mpi keeps posted (a
// coordinator's receive of requests, a worker's receive of its reply) and
// the handlers that act on them. Every loop in flight on a rank registers
// with one engine, so a rank that waits — in whichever loop — serves and
// receives for all of them, and no loop waits for a rank busy in another.
#pragma once
#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace lb4mpi::rt {

class ProgressEngine {
 public:
  /// Acts on a completed request of its slot (the request is then
  /// MPI_REQUEST_NULL; the handler may post into it again).
  class Handler {
   public:
    virtual void on_complete(int slot, const MPI_Status& status) = 0;

   protected:
    ~Handler() = default;
  };

  ProgressEngine() = default;
  ProgressEngine(const ProgressEngine&) = delete;
  ProgressEngine& operator=(const ProgressEngine&) = delete;

  /// A new slot for `handler`; its request starts as MPI_REQUEST_NULL.
  int add(Handler* handler);
  /// Forgets a slot (its request must be null, completed or cancelled).
  void remove(int slot);
  /// Cancels and frees what the slot still has posted, then forgets it (a
  /// handler destroyed before its loop ended: no error is raised).
  void abandon(int slot) noexcept;
  /// The slot's request, to post into (MPI_Irecv(..., &engine.request(s))).
  MPI_Request& request(int slot) { return requests_[static_cast<std::size_t>(slot)]; }

  /// Completes whatever is ready without waiting; runs its handlers.
  /// Returns how many completed. `first` (optional): the clock when the
  /// first request was found complete, before its handler ran — read only
  /// then, so that an empty poll costs no clock read.
  int poll(double* first = nullptr);
  /// Polls again as long as something completes: every message that has
  /// already arrived is handled, including those a handler's newly posted
  /// receive matches at once (poll() completes each posted request at most
  /// once, so a rank serving many requesters would answer one per call).
  /// At most `max_rounds` polls. Returns how many completed.
  int drain(double* first = nullptr, int max_rounds = 4096);
  /// Waits until one posted request completes (politely: see rt::wait) and
  /// runs its handler; false at once when nothing is posted. `found`
  /// (optional): the clock when the request was found complete, before its
  /// handler ran (the end of the wait, the start of the handling).
  bool wait_one(double* found = nullptr);
  /// wait_one() with a deadline on clock_now(): Completed, Idle (nothing
  /// posted) or TimedOut.
  enum class Waited : std::uint8_t { Completed, Idle, TimedOut };
  Waited wait_one_until(double deadline, double* found = nullptr);
  /// Requests completed so far (and acted on): a change tells a caller that
  /// some loop's state may have moved since it last looked.
  [[nodiscard]] std::uint64_t completions() const { return completions_; }
  /// Whether any request is posted.
  [[nodiscard]] bool active() const;

 private:
  void complete(int slot, const MPI_Status& status);
  /// Throws the error of MPI_Testsome's MPI_ERR_IN_STATUS, naming the
  /// failed requests (slot, source, tag, error).
  [[noreturn]] void fail_in_status(int count) const;
  std::uint64_t completions_ = 0;

  std::vector<MPI_Request> requests_;
  std::vector<Handler*> handlers_;
  std::vector<int> indices_;  // scratch for MPI_Testsome
  std::vector<MPI_Status> statuses_;
};

}  // namespace lb4mpi::rt
