// A worker of the two-sided execution models: it receives its first chunk
// unasked, asks for the next one `request_when` iterations before the
// current one ends (so that the reply travels while it computes), reports
// every chunk it finished by identity (with its next request, or on its own
// at the end), and carries its measurements to the coordinator when the
// technique learns from them.
#pragma once
#include <deque>
#include <memory>
#include <optional>

#include "assign.hpp"
#include "feedback.hpp"
#include "runtime/pieces.hpp"
#include "runtime/scheduler.hpp"

namespace lb4mpi::rt {

class Worker final : public FedScheduler, private ProgressEngine::Handler {
 public:
  Worker(Context& ctx, AdaptiveFeedback& feedback, std::unique_ptr<Assignment> assignment);
  ~Worker() override;
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  void start(Index n) override;
  Grab acquire(bool may_wait) override;
  void finished(std::int64_t id, Index size, double work) override;
  [[nodiscard]] bool ships_results() const override { return true; }

 private:
  void on_complete(int slot, const MPI_Status& status) override;
  void post_reply();
  void send(Request& message);  // to the coordinator, without a reply
  void ask();
  void report_finished();  // every finished chunk not yet reported, on its own
  /// The oldest unreported finished chunk goes into `into` (id, begin, size,
  /// and the size of its results, which results_buf_ then holds).
  void pop_unreported(Request& into);
  /// After a report that announced results: sends them.
  void send_results(const Request& report);
  /// Waits for the reply (robust mode: no longer than the timeout).
  void await_reply();
  /// MPI_Send to the coordinator; robust mode: nonblocking, waited for at
  /// most the timeout (a send to a failed rank may never complete).
  void send_to_coordinator(const void* data, int bytes, int tag, const char* what);
  /// Completes send_ (robust mode: within the timeout).
  void finish_send();
  [[noreturn]] void coordinator_silent(const char* while_doing) const;

  struct Done {
    std::int64_t id;
    Chunk chunk;
  };

  Context& ctx_;
  std::unique_ptr<Assignment> assign_;
  PieceCutter cut_;
  Chunk current_;              // the chunk being executed
  Index request_at_ = 0;       // requestWhen of the current chunk
  int slot_ = -1;
  Reply reply_;
  Request outgoing_;
  MPI_Request send_ = MPI_REQUEST_NULL;
  bool outstanding_ = false;   // a reply is on its way (or the first work)
  bool ended_ = false;         // "no more work" was received
  /// The interpreted reply not yet taken: a chunk, or end.
  std::optional<Assignment::Got> ready_;
  std::deque<Done> unreported_;  // finished chunks the coordinator does not know of yet
  std::vector<std::byte> results_buf_;  // the results of the report being sent
  // Robust mode: the reply receive stays posted, so that the end of the
  // loop (every iteration finished elsewhere) cuts short what the rank
  // executes; chunks are executed in pieces checked cadence_ apart.
  bool robust_ = false;
  bool posted_ = false;      // the reply receive is posted
  bool deferred_ = false;    // the coordinator answered "wait" (the assignment is over)
  bool ready_reissued_ = false;  // ready_ is a copy of another rank's chunk
  ServeCadence cadence_;
  double last_heard_ = 0.0;  // when the coordinator was last heard of
  // Robust mode: results are sent without waiting (the coordinator may have
  // left the loop, all done, before it receives them: a large message would
  // then wait for a receive that a later execution posts, or never).
  struct ResultSend {
    MPI_Request request = MPI_REQUEST_NULL;
    std::vector<std::byte> data;
  };
  std::deque<ResultSend> result_sends_;
  void sweep_result_sends();
};

}  // namespace lb4mpi::rt
