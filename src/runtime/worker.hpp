// A worker of the two-sided execution models: it receives its first chunk
// unasked, asks for the next one `request_when` iterations before the
// current one ends (so that the reply travels while it computes), reports
// every chunk it finished by identity (with its next request, or on its own
// at the end), and carries its measurements to the coordinator when the
// technique learns from them.
#pragma once
#include <deque>
#include <memory>

#include "assign.hpp"
#include "feedback.hpp"
#include "recovery/policy.hpp"
#include "reports.hpp"
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
  /// Where the worker is in its protocol with the coordinator.
  enum class State : std::uint8_t {
    Idle,       ///< nothing asked, nothing ready: it asks when it needs work
    Asked,      ///< its request (or its first work) is out: a reply is on its way
    Deferred,   ///< recovery: told to wait (the assignment is over); the end, or "still alive", comes
    Ready,      ///< a chunk arrived and is interpreted (ready_), not yet taken
    ReadyCopy,  ///< ditto, a copy of a chunk that another rank holds too
    EndReady,   ///< "no more work" arrived, not yet taken
    Ended,      ///< the loop is over for this rank
  };
  [[nodiscard]] bool has_ready() const {
    return state_ == State::Ready || state_ == State::ReadyCopy || state_ == State::EndReady;
  }
  /// The reply receive is posted.
  [[nodiscard]] bool receiving() { return ctx_.engine->request(slot_) != MPI_REQUEST_NULL; }

  void on_complete(int slot, const MPI_Status& status) override;
  void post_reply();
  void ask();
  void report_finished();  // every finished chunk not yet reported, on its own
  /// The oldest unreported finished chunk (with `newest`: the newest) goes
  /// into `into` (id, begin, size, and its results, which reports_ sends
  /// after it when they are large), with the parts of its batch beside it.
  void pop_unreported(ChunkReport& into, bool newest = false);
  /// A timing as a report carries it.
  static Measurement measurement(const ChunkTiming& m);
  /// After a report: the results it announced.
  void send_results(const Request& message);
  /// Waits for the reply (the recovery policy bounds the wait).
  void await_reply();
  /// Completes send_ (ditto).
  void finish_send();

  struct Done {
    std::int64_t id;
    Chunk chunk;
    bool batched;  ///< a part of a reply of several chunks (its range known to the coordinator)
  };

  /// Several chunks per reply (AskMessage::want, ChunkReply::count): the parts of
  /// the batch not yet begun, and how many chunks to ask for next.
  struct Batch {
    std::int64_t next_id = -1;  ///< the step of the next part
    Index pos = 0;              ///< where it starts
    Index end = 0;              ///< the batch's end
    Index each = 0;             ///< a part's size (the last at most that)
    bool several = false;       ///< a reply of several chunks (not a batch of one)
    [[nodiscard]] Index rest() const { return end - pos; }
  };
  /// Begins the next part of the batch: a chunk of its own (every reply's
  /// chunk is begun here, as a batch of one when it holds one).
  void begin_part(Grab& grab);
  /// At the end of a batch: how many chunks to ask for, from the time its
  /// parts took (kBatchSpan of work per reply).
  void learn_batch(double now);

  Context& ctx_;
  std::unique_ptr<Assignment> assign_;
  std::unique_ptr<WorkerRecovery> recovery_;  // runtime/recovery/: plain, or recovering
  PieceCutter cut_;
  Chunk current_;              // the chunk being executed
  bool current_batched_ = false;  // it is a part of a batch
  Index request_at_ = 0;       // requestWhen of the current chunk
  int slot_ = -1;
  Reply reply_;
  Request outgoing_;
  MPI_Request send_ = MPI_REQUEST_NULL;
  State state_ = State::Idle;
  Chunk ready_;                // Ready, ReadyCopy: the chunk ...
  std::int64_t ready_id_ = -1;  // ... and its id
  std::int32_t ready_count_ = 1;  // ... and how many chunks it holds (ChunkReply::count) ...
  Index ready_each_ = 0;          // ... of what size
  Batch batch_;
  bool batching_ = false;       // this loop may ask for several chunks per reply
  std::int32_t want_ = 1;       // chunks to ask for in the next request
  std::int32_t parts_ = 0;      // parts of the current batch (0: no batch being timed)
  double batch_t0_ = 0.0;       // when its first part began
  double per_chunk_ = 0.0;      // estimate of a chunk's time [s]
  std::deque<Done> unreported_;  // finished chunks the coordinator does not know of yet
  ReportSender reports_;
};

}  // namespace lb4mpi::rt
