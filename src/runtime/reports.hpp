// Reports of finished chunks, both ends: a rank that executes chunks for a
// coordinator tells it which chunk it finished (by identity) and ships the
// chunk's results with it (`004` Algorithm 1's DLS_endChunk(info, data));
// the coordinator takes the results of a report in. Shared by the two-sided
// worker and coordinator and by distributed-rma under recovery, which reports its
// completions by message too.
//
// When the context is bounded (the recovery unit) every send to the
// coordinator is bounded by the patience (a send to a failed rank may never
// complete), and results are sent without keeping the rank waiting on a
// coordinator that has left the loop.
#pragma once
#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <vector>

#include "context.hpp"
#include "protocol.hpp"
#include "runtime/progress.hpp"

namespace lb4mpi::rt {

class ReportSender {
 public:
  explicit ReportSender(Context& ctx) : ctx_(ctx) {}
  /// Results still on their way (the coordinator failed, or left the last
  /// loop before they came) are freed as requests, their buffers left to
  /// MPI — deliberately never freed.
  ~ReportSender();
  ReportSender(const ReportSender&) = delete;
  ReportSender& operator=(const ReportSender&) = delete;

  /// The identity of finished chunk `id` (range `chunk`) and its results
  /// into `into`: inline when they fit, else announced (send_results then
  /// sends them from this sender's buffer).
  void fill(ChunkReport& into, std::int64_t id, Chunk chunk);
  /// The report `into` (filled by fill(), then perhaps appended to) takes
  /// in the next part of its batch: chunk `id`, range `part`, consecutive.
  /// Its results, if any, join the report's as a frame (ResultStore::frame;
  /// the first part's are framed too once a second part joins).
  void append(ChunkReport& into, std::int64_t id, Chunk part);
  /// `message` (its epoch set here) to the coordinator, waited for — when
  /// bounded no longer than the patience.
  void send(Request& message);
  /// Bytes to the coordinator: MPI_Send, or when bounded a nonblocking
  /// send waited for at most the patience.
  void send_bytes(const void* data, int bytes, int tag, const char* what);
  /// After `message` (its report filled by fill()) went out: the results it announced,
  /// if they did not fit inline. Bounded: sent without blocking on a
  /// coordinator that may have left; completed before the rank goes on,
  /// unless `over()` (called between polls) says the loop ended meanwhile.
  void send_results(const Request& message, const std::function<bool()>& over);

 private:
  void sweep();
  /// The storage of a completed send, kept for a later one (a few).
  void recycle(std::vector<std::byte>&& data);
  /// The report's results are buf_ (`has`): their size, and inline when they fit.
  void announce(ChunkReport& into, bool has) const;

  Context& ctx_;
  std::vector<std::byte> buf_;  // the results of the report being sent
  std::vector<std::byte> part_;  // scratch: one part's results (append)
  struct ResultSend {
    MPI_Request request = MPI_REQUEST_NULL;
    std::vector<std::byte> data;
    bool watched = false;  ///< send_results waits for it (a nested sweep leaves it)
  };
  /// Bounded: results not yet known to be delivered. A list: send_results
  /// holds its element while it polls, and the handlers it runs meanwhile
  /// may send (and sweep) results of their own.
  std::list<ResultSend> sends_;
  std::vector<std::vector<std::byte>> spare_;  // storage of completed sends (recycle)
  /// Bounded: what send_bytes sends, a copy of the caller's. A send given up
  /// at the patience (its request freed: the coordinator is taken for
  /// failed) may still be read by MPI, so its copy is let go, never reused
  /// nor freed (once per failover of this rank).
  std::unique_ptr<std::vector<std::byte>> outbox_;
};

/// A coordinator's receive of requests and reports (kTagRequest, from any
/// rank), kept posted in a slot of the progress engine while it listens;
/// the handler given acts on what arrives.
class RequestInbox {
 public:
  RequestInbox(Context& ctx, ProgressEngine::Handler* handler) : ctx_(ctx), slot_(ctx.engine->add(handler)) {}
  /// Only a loop that was abandoned (an exception unwound past it) still listens.
  ~RequestInbox() { ctx_.engine->abandon(slot_); }
  RequestInbox(const RequestInbox&) = delete;
  RequestInbox& operator=(const RequestInbox&) = delete;

  void listen() {
    listening_ = true;
    post();
  }
  /// In the handler: the request that arrived; the receive is posted again
  /// while listening.
  Request take() {
    const Request r = incoming_;
    if (listening_) post();
    return r;
  }
  /// Stops listening (the receive is cancelled); true with the request and
  /// its sender when one arrived meanwhile (a late report, or a stale one).
  bool stop(int& sender, Request& request);

 private:
  void post();

  Context& ctx_;
  int slot_;
  bool listening_ = false;
  Request incoming_;
};

/// The results reports announce, on the coordinator, received without
/// waiting for them: inline ones at once; larger ones travel in a message of
/// their own after the report (a rendezvous that the sender must progress:
/// a sender that is descheduled, or failed, between the two must not stop
/// the coordinator from serving everyone else). For those a receive is
/// posted in the progress engine, and the report is completed when they
/// arrive — never, if the sender failed first: its chunk then stays out and
/// recovery hands it out again.
class ResultsInbox : private ProgressEngine::Handler {
 public:
  /// Runs when a report's results are in (`data`: empty when it announced none).
  using Complete = std::function<void(int sender, const Request& report, const std::vector<std::byte>& data)>;
  ResultsInbox(Context& ctx, Complete complete) : ctx_(ctx), complete_(std::move(complete)) {}
  /// What is still posted is given up: cancelled, or left to MPI with its
  /// buffer when it is under way.
  ~ResultsInbox();
  ResultsInbox(const ResultsInbox&) = delete;
  ResultsInbox& operator=(const ResultsInbox&) = delete;

  /// `report` from `sender` arrived: completed at once when its results
  /// are inline or none, else when its results message has come. A
  /// receive stays posted after its execution ended (a copy's results that
  /// no one needs any more): cancelled, its message would be matched by the
  /// receive of a later report of that sender. It completes into a later
  /// execution, which drops it by its epoch.
  void take(int sender, const Request& report);

 private:
  void on_complete(int slot, const MPI_Status& status) override;
  struct Pending {
    int slot = -1;
    bool busy = false;
    int sender = -1;
    Request report;
    std::vector<std::byte> data;
  };

  Context& ctx_;
  Complete complete_;
  std::vector<std::byte> inline_;
  std::vector<Pending> pending_;  // grows to the most results in flight at once, then reused
};

}  // namespace lb4mpi::rt
