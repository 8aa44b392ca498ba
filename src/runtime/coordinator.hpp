// The coordinator of the two-sided execution models (`003` §2.4): it holds
// the assignment and the ledger, answers requests, and executes chunks of
// its own in pieces, checking for requests between them (ServeCadence).
// It is done when its ledger is complete — every iteration finished — not
// when it has counted the workers out.
#pragma once
#include <deque>
#include <memory>

#include "assign.hpp"
#include "feedback.hpp"
#include "ledger.hpp"
#include "reports.hpp"
#include "runtime/pieces.hpp"
#include "runtime/scheduler.hpp"

namespace lb4mpi::rt {

class Coordinator final : public FedScheduler, private ProgressEngine::Handler {
 public:
  Coordinator(Context& ctx, AdaptiveFeedback& feedback, std::unique_ptr<Assignment> assignment);
  ~Coordinator() override;
  Coordinator(const Coordinator&) = delete;
  Coordinator& operator=(const Coordinator&) = delete;

  void start(Index n) override;
  Grab acquire(bool may_wait) override;
  void finished(std::int64_t id, Index size, double work) override;
  [[nodiscard]] bool ships_results() const override { return true; }
  void end(const std::vector<RankFigures>& all) override;
  [[nodiscard]] Index reissued() const override { return reissued_; }

 private:
  void on_complete(int slot, const MPI_Status& status) override;
  void stop_listening();
  void handle(int worker, const Request& request);
  void send(int worker, Reply reply);
  /// Serves what has arrived (every loop of the engine), timed as serving.
  int serve_ready();
  /// Serves until `done()` holds, waiting politely. Only the handling of
  /// each message counts as serving; the waits in between are the
  /// coordinator's waiting (for a worker's commit), or idle when it waits
  /// for the end of the loop (`loop_end`).
  template <class Done>
  void serve_until(Done done, bool loop_end);
  bool next_own_chunk(bool may_wait, Grab& grab);
  /// Robust mode: the answer to `worker` — the assignment's next chunk, else
  /// a scheduled-unfinished chunk it does not hold, else (the loop complete)
  /// the end; or it waits (deferred) until the loop completes.
  void answer_robust(int worker);
  void send_end(int worker);
  /// Robust mode, once every iteration is finished: every worker not yet
  /// told is told the loop is over (those cut short drop what they execute).
  void close();
  /// Robust mode: "still alive" to the deferred workers, timeout/4 apart.
  void heartbeat();
  /// The coordinator's own chunk `id` is finished (every piece executed).
  void own_chunk_done(std::int64_t id);

  Context& ctx_;
  std::unique_ptr<Assignment> assign_;
  Ledger ledger_;
  PieceCutter cut_;
  ServeCadence cadence_;
  RequestInbox inbox_;
  ResultsInbox results_in_;
  /// A reported chunk whose results are in: counted once, its results committed.
  void chunk_reported(const Request& report, const std::vector<std::byte>& results);
  bool own_over_ = false;  // no chunk of its own will come any more
  std::vector<std::pair<int, Reply>> released_;  // scratch: deferred answers a commit released
  Chunk own_chunk_;                               // its own chunk being executed (cut_)
  // Robust mode
  bool robust_ = false;
  bool exhausted_ = false;         // the assignment has no chunk left: re-issue from here on
  bool closed_ = false;            // the loop is complete and everyone told
  std::vector<char> ended_;        // per rank: told the loop is over
  std::vector<int> deferred_;      // workers waiting for the loop to complete
  double last_beat_ = 0.0;
  // Robust mode sends without waiting (a send to a failed rank may never
  // complete): the replies stay here until their sends complete.
  struct Outgoing {
    MPI_Request request = MPI_REQUEST_NULL;
    Reply reply;
  };
  std::deque<Outgoing> outbox_;
  Index reissued_ = 0;
};

}  // namespace lb4mpi::rt
