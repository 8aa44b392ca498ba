// The end of an execution under recovery without a collective call (docs/ROBUST.md).
#include "recovery/survivors.hpp"

#include <string>
#include <type_traits>

#include "protocol.hpp"
#include "recovery/policy.hpp"
#include "runtime/clock.hpp"
#include "runtime/mpi.hpp"

namespace lb4mpi::rt {
namespace {

/// A receive nobody will match (its sender failed, or was too late): let go.
void cancel(MPI_Request& r) {
  if (r == MPI_REQUEST_NULL) return;
  MPI_Cancel(&r);
  MPI_Request_free(&r);
}

}  // namespace

SurvivorsExchange::~SurvivorsExchange() {
  for (Pending* p : pending_) {
    bool done = true;
    for (MPI_Request& r : p->requests) {
      if (r == MPI_REQUEST_NULL) continue;
      int flag = 0;
      MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
      if (flag == 0) {
        MPI_Request_free(&r);  // to a failed rank: never completes, its buffer stays
        done = false;
      }
    }
    if (done) delete p;
  }
}

std::vector<RankFigures> SurvivorsExchange::exchange(MPI_Comm comm, const RankFigures& mine) {
  static_assert(std::is_trivially_copyable_v<Message>);  // the ranks of one job share one architecture
  int size = 1;
  int rank = 0;
  check_mpi(MPI_Comm_size(comm, &size), "MPI_Comm_size");
  check_mpi(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
  // Reports of earlier executions that have arrived since are let go.
  for (auto it = pending_.begin(); it != pending_.end();) {
    int flag = 0;
    check_mpi(MPI_Testall(static_cast<int>((*it)->requests.size()), (*it)->requests.data(), &flag,
                          MPI_STATUSES_IGNORE),
              "MPI_Testall");
    if (flag != 0) {
      delete *it;
      it = pending_.erase(it);
    } else {
      ++it;
    }
  }
  if (size == 1) return {mine};
  coordinator_ = *current_;
  return rank == coordinator_ ? gather(comm, size, mine) : receive(comm, size, mine);
}

std::vector<char> SurvivorsExchange::collect(MPI_Comm comm, int tag, const std::vector<char>& from,
                                             const std::vector<char>& waited, double deadline,
                                             std::vector<Message>& in) {
  const std::size_t size = from.size();
  in.assign(size, Message{});
  std::vector<MPI_Request> req(size, MPI_REQUEST_NULL);
  std::vector<char> arrived(size, 0);
  const auto post = [&](std::size_t w) {
    check_mpi(MPI_Irecv(&in[w], sizeof(Message), MPI_BYTE, static_cast<int>(w), tag, comm, &req[w]), "MPI_Irecv");
  };
  int left = 0;  // the ranks waited for
  for (std::size_t w = 0; w < size; ++w) {
    if (from[w] == 0) continue;
    post(w);
    if (waited[w] != 0) ++left;
  }
  while (left > 0) {
    MPI_Status st;
    const int got = wait_any_until(static_cast<int>(size), req.data(), &st, deadline);
    if (got == kTimedOut || got == MPI_UNDEFINED) break;
    const auto w = static_cast<std::size_t>(got);
    if (in[w].epoch != *epoch_) {  // a late rank's message of an earlier execution
      post(w);
      continue;
    }
    arrived[w] = 1;
    if (waited[w] != 0) --left;
  }
  for (MPI_Request& r : req) cancel(r);  // not heard of: failed, or too late
  return arrived;
}

std::vector<RankFigures> SurvivorsExchange::gather(MPI_Comm comm, int size, const RankFigures& mine) {
  // The figures of every other rank, waited for from those not known to have failed.
  std::vector<char> others(static_cast<std::size_t>(size), 1);
  others[static_cast<std::size_t>(coordinator_)] = 0;
  std::vector<char> alive = others;
  for (std::size_t w = 0; known_ != nullptr && w < alive.size(); ++w) {
    if ((*known_)[w] != 0) alive[w] = 0;
  }
  std::vector<Message> in;
  const std::vector<char> arrived = collect(comm, kTagFigures, others, alive, clock_now() + grace_, in);
  auto* out = new Pending;
  out->report.resize(static_cast<std::size_t>(size));
  std::vector<RankFigures> all(static_cast<std::size_t>(size));
  for (int w = 0; w < size; ++w) {
    const auto i = static_cast<std::size_t>(w);
    if (w == coordinator_) {
      all[i] = mine;
    } else if (arrived[i] != 0) {
      all[i] = in[i].figures;
    } else {
      all[i] = RankFigures{};
      all[i].failed = 1;
      if (known_ != nullptr) (*known_)[i] = 1;
    }
    out->report[i].epoch = *epoch_;
    out->report[i].figures = all[i];
  }
  // To every rank, also those not heard of: a late one finds it when it is done.
  FaultInjector* fault = this->fault();
  const bool stops = fault != nullptr && fault->stops_in_report();
  // Requests: the report to each rank, then the release to each rank.
  out->requests.assign(2 * static_cast<std::size_t>(size), MPI_REQUEST_NULL);
  for (int w = 0; w < size; ++w) {
    if (w == coordinator_) continue;
    auto& r = out->requests[static_cast<std::size_t>(w)];
    const int rc = MPI_Isend(out->report.data(), static_cast<int>(sizeof(Message) * out->report.size()), MPI_BYTE, w,
                             kTagReport, comm, &r);
    if (rc != MPI_SUCCESS) r = MPI_REQUEST_NULL;
    if (stops && rc == MPI_SUCCESS && arrived[static_cast<std::size_t>(w)] != 0) {
      // Failure injection: the coordinator stops once one rank has the report.
      (void)wait_until(r, MPI_STATUS_IGNORE, clock_now() + grace_, "MPI_Send (report)");
      fault->in_report();
    }
  }
  // The acknowledgements of the ranks heard from, for at most the timeout
  // (a rank heard from a moment ago is alive unless it died since).
  std::vector<Message> acks;
  const std::vector<char> acked = collect(comm, kTagReportAck, arrived, arrived, clock_now() + timeout_, acks);
  // Every survivor has the report: released, every rank. A rank heard from
  // that did not acknowledge it died since: the release names it failed.
  out->release.assign(1, *epoch_);
  for (int w = 0; w < size; ++w) {
    const auto i = static_cast<std::size_t>(w);
    if (w == coordinator_ || arrived[i] == 0 || acked[i] != 0) continue;
    out->release.push_back(w);
    all[i].failed = 1;
    if (known_ != nullptr) (*known_)[i] = 1;
  }
  for (int w = 0; w < size; ++w) {
    if (w == coordinator_) continue;
    auto& r = out->requests[static_cast<std::size_t>(size + w)];
    if (MPI_Isend(out->release.data(), static_cast<int>(out->release.size()), MPI_INT32_T, w, kTagRelease, comm, &r) !=
        MPI_SUCCESS) {
      r = MPI_REQUEST_NULL;
    }
  }
  // The report leaves this process before the rank may: a program whose
  // loop lost ranks ends right after it, without MPI_Finalize, and a send
  // still queued in the library (a busy TCP link) would die with it; the
  // others would then take this live rank for failed. At most the grace: a
  // send to a failed rank may never complete.
  const double sent_by = clock_now() + grace_;
  for (int polls = 0;; ++polls) {
    int flag = 0;
    // An error (a send to a failed rank) ends the wait too: the others are left to `pending_`.
    const int rc =
        MPI_Testall(static_cast<int>(out->requests.size()), out->requests.data(), &flag, MPI_STATUSES_IGNORE);
    if (rc != MPI_SUCCESS || flag != 0 || (polls >= kSpinPolls && clock_now() > sent_by)) break;
    backoff(polls);
  }
  pending_.push_back(out);
  return all;
}

MPI_Request& SurvivorsExchange::send_one(MPI_Comm comm, int to, int tag, const RankFigures& figures) {
  auto* p = new Pending;
  p->report.resize(1);
  p->report[0].epoch = *epoch_;
  p->report[0].figures = figures;
  p->requests.assign(1, MPI_REQUEST_NULL);
  if (MPI_Isend(p->report.data(), sizeof(Message), MPI_BYTE, to, tag, comm, p->requests.data()) != MPI_SUCCESS) {
    p->requests[0] = MPI_REQUEST_NULL;
  }
  pending_.push_back(p);
  return p->requests[0];
}

bool SurvivorsExchange::await(MPI_Request& r, double deadline, MPI_Status* status) {
  for (int polls = 0;; ++polls) {
    int done = 0;
    check_mpi(MPI_Test(&r, &done, status), "MPI_Test");
    if (done != 0) return true;
    if (hooks_.engine != nullptr) hooks_.engine->poll();
    if (takeover() || (polls >= kSpinPolls && clock_now() > deadline)) return false;
    backoff(polls);
  }
}

std::vector<RankFigures> SurvivorsExchange::receive(MPI_Comm comm, int size, const RankFigures& mine) {
  const double deadline = clock_now() + timeout_;
  const auto silent = [this] {
    return CoordinatorLost("lb4mpi: robust mode: no report from the coordinator (rank " + std::to_string(coordinator_) +
                 ") within " + std::to_string(timeout_) +
                 " s (LB4MPI_ROBUST_TIMEOUT) after the loop: it has probably failed (docs/ROBUST.md)");
  };
  // Its buffer outlives a coordinator that never receives it (pending_).
  if (!await(send_one(comm, coordinator_, kTagFigures, mine), deadline)) throw silent();
  std::vector<Message> report(static_cast<std::size_t>(size));
  for (;;) {
    MPI_Request r = MPI_REQUEST_NULL;
    check_mpi(MPI_Irecv(report.data(), static_cast<int>(sizeof(Message) * report.size()), MPI_BYTE, coordinator_,
                        kTagReport, comm, &r),
              "MPI_Irecv");
    if (!await(r, deadline)) {
      cancel(r);
      throw silent();
    }
    if (report[0].epoch == *epoch_) break;  // else a report of an execution this rank was late for
  }
  if (FaultInjector* fault = this->fault()) fault->in_report();  // a victim stops once it has the report
  // Acknowledged, then kept until released; a failover heard of meanwhile
  // means that a survivor lacks it: given up (the class comment).
  (void)send_one(comm, coordinator_, kTagReportAck);
  const double released_by = clock_now() + 3.0 * timeout_;
  // The epoch, then the ranks that died with the report (at most all but two).
  std::vector<std::int32_t> release(static_cast<std::size_t>(size) + 1);
  int named = 0;  // how many ranks the release names failed
  for (;;) {
    MPI_Request r = MPI_REQUEST_NULL;
    check_mpi(MPI_Irecv(release.data(), static_cast<int>(release.size()), MPI_INT32_T, coordinator_, kTagRelease, comm,
                        &r),
              "MPI_Irecv");
    MPI_Status st;
    if (!await(r, released_by, &st)) {
      cancel(r);
      if (takeover()) {
        throw CoordinatorLost("lb4mpi: robust mode: the coordinator (rank " + std::to_string(coordinator_) +
                              ") failed while it sent the report of the loop's end: a survivor lacks it");
      }
      break;  // silent for three timeouts, and no failover: every survivor has it
    }
    if (release[0] == *epoch_) {
      int count = 0;
      check_mpi(MPI_Get_count(&st, MPI_INT32_T, &count), "MPI_Get_count");
      named = count - 1;
      break;
    }
  }
  std::vector<RankFigures> all(static_cast<std::size_t>(size));
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = report[i].figures;
  for (int k = 1; k <= named; ++k) {
    const auto i = static_cast<std::size_t>(release[static_cast<std::size_t>(k)]);
    if (i < all.size()) all[i].failed = 1;
  }
  if (known_ != nullptr) {
    for (std::size_t i = 0; i < all.size(); ++i) {
      if (all[i].failed != 0) (*known_)[i] = 1;
    }
  }
  return all;
}

}  // namespace lb4mpi::rt
