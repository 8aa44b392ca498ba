// The mechanics shared by the two-sided execution models (CCA and DCA):
// the coordinator executes its own chunks in pieces of `break_after`
// iterations and serves requests between them; a worker asks for more work
// when `request_when` iterations of its chunk are left, so that the reply
// travels while it computes. What a reply carries (a chunk, or a step whose
// chunk the worker computes itself) is up to the subclass.
#pragma once
#include <optional>

#include "lb4mpi/techniques/perf_stats.hpp"
#include "runtime/executor.hpp"
#include "runtime/protocol.hpp"

namespace lb4mpi {

class TwoSidedExecutor : public Executor {
 public:
  TwoSidedExecutor(MPI_Comm comm, Index first, Index last, const Options& options, int channel = 0);
  ~TwoSidedExecutor() override;

 protected:
  // ---- what the execution model decides
  /// Every rank: prepares a new execution (called first in every start).
  virtual void prepare() {}
  /// Coordinator: prepares a new execution (N may have changed).
  virtual void coordinator_start() = 0;
  /// Coordinator: the next chunk it executes itself, nullopt when none is left.
  virtual std::optional<Chunk> own_next() = 0;
  /// Coordinator: the answer to `worker`'s request; `ended` = the worker gets
  /// no more work; `deferred` = no answer now (send it later with send_work).
  virtual detail::WorkMsg answer(int worker, const detail::RequestMsg& request, bool& ended, bool& deferred) = 0;
  /// Coordinator: a kCommit message (DCA without a closed form).
  virtual void on_commit(int /*worker*/, const detail::RequestMsg& /*commit*/) {}
  /// Worker: the chunk a reply stands for, nullopt = no more work for this rank.
  virtual std::optional<Chunk> interpret(const detail::WorkMsg& reply) = 0;
  /// Coordinator: whether workers announce their end with a kDone message
  /// (DCA) instead of receiving "no more work" (CCA).
  [[nodiscard]] virtual bool workers_announce_end() const { return false; }
  /// Worker: whether to ask for the next chunk before the current one ends
  /// (requestWhen). DCA grants lock the assignment until their commit, so a
  /// grant must not wait behind the tail of a chunk.
  [[nodiscard]] virtual bool prefetch() const { return true; }
  /// Coordinator: a measurement from a worker's request or its own chunk.
  virtual void learn(const ChunkTiming& timing) = 0;

  [[nodiscard]] bool is_coordinator() const { return rank_ == options_.coordinator; }
  /// Worker (DCA): tells the coordinator this rank is done.
  void announce_end();
  /// Worker (DCA without a closed form): tells the coordinator the size taken.
  void send_commit(Index size);
  /// Coordinator: sends a (deferred) answer.
  void send_work(int worker, detail::WorkMsg msg, bool ended);
  /// Coordinator: waits for and handles one message.
  void serve_one_blocking();
  /// Coordinator: handles the messages that are ready (of every loop of the
  /// group), without blocking; returns how many.
  int serve_available();

  // Group progress (Executor).
  int progress_local() override;
  MPI_Request* waitable() override;
  void on_waited(const MPI_Status& status) override;
  void exclude_time(double seconds) override { meas_since_ += seconds; }

 private:
  std::optional<Chunk> acquire() final;
  void piece_done(const Chunk& piece, double work_time) final;
  void on_start() final;

  std::optional<Chunk> acquire_static();
  std::optional<Chunk> acquire_coordinator();
  std::optional<Chunk> acquire_worker();
  void handle(int source);
  void serve_blocking();
  bool take_reply();  // worker: reply_recv_ completed; false if it was a stale message
  bool test_reply();  // worker: a reply arrived and was taken
  void wait_reply();  // worker: until ready_ holds a reply
  void post_receive();
  void send_request();
  void cancel_pending();

  Index pos_ = 0;          // the current chunk's pieces: [pos_, end_)
  Index end_ = 0;
  Index piece_limit_ = 1;  // coordinator: break_after; worker: request_when
  Index meas_done_ = 0;    // measurements not yet reported
  double meas_work_ = 0.0;
  double meas_since_ = 0.0;
  bool static_done_ = false;
  // Coordinator.
  int pending_workers_ = 0;
  MPI_Request request_recv_ = MPI_REQUEST_NULL;
  detail::RequestMsg incoming_;
  // Worker.
  bool outstanding_ = false;
  bool ended_ = false;
  MPI_Request reply_recv_ = MPI_REQUEST_NULL;
  MPI_Request request_send_ = MPI_REQUEST_NULL;
  detail::WorkMsg reply_;
  /// The interpreted reply not yet taken by acquire(): a chunk, or nullopt
  /// for "no more work".
  std::optional<std::optional<Chunk>> ready_;
  detail::RequestMsg outgoing_;
};

}  // namespace lb4mpi
