// Reports of finished chunks, both ends: a rank that executes chunks for a
// coordinator tells it which chunk it finished (by identity) and ships the
// chunk's results with it (`004` Algorithm 1's DLS_endChunk(info, data));
// the coordinator takes the results of a report in. Shared by the two-sided
// worker and coordinator and by robust distributed-rma, which reports its
// completions by message too.
//
// In robust mode every send to the coordinator is bounded by the timeout (a
// send to a failed rank may never complete), and results are sent without
// keeping the rank waiting on a coordinator that has left the loop.
#pragma once
#include <cstdint>
#include <deque>
#include <functional>
#include <vector>

#include "context.hpp"
#include "protocol.hpp"
#include "runtime/progress.hpp"

namespace lb4mpi::rt {

/// Robust mode: the error of a rank whose coordinator was silent for the
/// timeout `while_doing` something.
[[noreturn]] void coordinator_silent(const Context& ctx, const char* while_doing);

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
  void fill(Request& into, std::int64_t id, Chunk chunk);
  /// `message` (its epoch set here) to the coordinator, waited for — in
  /// robust mode no longer than the timeout.
  void send(Request& message);
  /// Bytes to the coordinator: MPI_Send, or in robust mode a nonblocking
  /// send waited for at most the timeout.
  void send_bytes(const void* data, int bytes, int tag, const char* what);
  /// After `report` (filled by fill()) went out: the results it announced,
  /// if they did not fit inline. Robust mode: sent without blocking on a
  /// coordinator that may have left; completed before the rank goes on,
  /// unless `over()` (called between polls) says the loop ended meanwhile.
  void send_results(const Request& report, const std::function<bool()>& over);
  /// Robust mode: the coordinator was silent for the timeout.
  [[noreturn]] void coordinator_silent(const char* while_doing) const { rt::coordinator_silent(ctx_, while_doing); }

 private:
  void sweep();

  Context& ctx_;
  std::vector<std::byte> buf_;  // the results of the report being sent
  struct ResultSend {
    MPI_Request request = MPI_REQUEST_NULL;
    std::vector<std::byte> data;
  };
  std::deque<ResultSend> sends_;  // robust: results not yet known to be delivered
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

/// What came with a report on the coordinator.
enum class ReportResults : std::uint8_t {
  None,  ///< the report announced no results
  Have,  ///< they are in the buffer
  Lost,  ///< announced, but never came: the sender failed (robust mode) — the report does not count
};

/// The results `request` (from `sender`) announced, into `buf`: inline, or
/// received from the message that follows it (robust mode: waited for at
/// most the timeout).
ReportResults receive_report_results(Context& ctx, int sender, const Request& request, std::vector<std::byte>& buf);

}  // namespace lb4mpi::rt
