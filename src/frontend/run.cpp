#include "run.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "runtime/mpi.hpp"

namespace lb4mpi::detail {

rt::WaitPolicy wait_policy_of(Wait w) {
  switch (w) {
    case Wait::Spin: return rt::WaitPolicy::Spin;
    case Wait::Yield: return rt::WaitPolicy::Yield;
    case Wait::Block: return rt::WaitPolicy::Block;
    case Wait::Auto: break;
  }
  return rt::WaitPolicy::Auto;
}

rt::ExecConfig exec_config(const Options& o, int rank) {
  rt::ExecConfig c;
  c.technique = o.technique;
  c.params = o.params;
  c.model = o.mode;
  c.node_technique = o.node_technique;
  c.global_model = o.global_mode;
  c.ranks_per_node = o.ranks_per_node;
  c.break_after = o.break_after;
  c.request_when = o.request_when;
  c.chunks_per_reply = o.chunks_per_reply;
  c.coordinator = o.coordinator;
  const bool delayed =
      o.delay_ranks.empty() || std::find(o.delay_ranks.begin(), o.delay_ranks.end(), rank) != o.delay_ranks.end();
  c.delay_us = delayed && o.inject_delay_us > 0.0 ? o.inject_delay_us : 0.0;
  c.robust = o.robust;
  c.wait = wait_policy_of(o.wait);
  c.robust_timeout = o.robust_timeout;
  const auto listed = [rank](const std::vector<int>& ranks) {
    return std::find(ranks.begin(), ranks.end(), rank) != ranks.end();
  };
  c.fail_here = listed(o.fail_ranks);
  c.fail_after_chunks = o.fail_after.chunks;
  c.fail_after_s = o.fail_after.seconds;
  c.fail_at_end = o.fail_after.at_end;
  c.fail_in_report = o.fail_after.in_report;
  c.fail_exit = o.fail_how == "exit";
  c.slow_factor = listed(o.slow_ranks) ? o.slow_factor : 1.0;
  c.slow_from = o.slow_from;
  return c;
}

ProcessState& process_state() {
  static ProcessState state;
  return state;
}

std::unique_ptr<trace::Recorder> make_recorder(const Options& o, MPI_Comm comm) {
  const int id = process_state().next_loop_id++;
  if (!trace::tracing(o)) return nullptr;
  int rank = 0;
  rt::check_mpi(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
  return std::make_unique<trace::Recorder>(o, id, rank);
}

std::string check_environment(int rank) {
  bool& reported = process_state().environment_reported;
  const std::vector<std::string> unknown = Options::unknown_variables();
  if (unknown.empty()) return {};
  std::string list;
  for (const std::string& u : unknown) list += (list.empty() ? "" : "; ") + u;
  const char* strict = std::getenv("LB4MPI_STRICT");
  if (strict != nullptr && std::string(strict) == "1") return "lb4mpi: " + list + " (LB4MPI_STRICT=1)";
  if (!reported && rank == 0) {
    std::fprintf(stderr, "lb4mpi: warning: %s; LB4MPI_STRICT=1 makes this an error\n", list.c_str());
    std::fflush(stderr);
  }
  reported = true;
  return {};
}

std::string start_error(const rt::Execution& e, const Options& o, Index first, Index last) {
  std::string error;
  try {
    // The parameters against this loop's length, with where a bad value came
    // from; a reversed range is the runtime's to name.
    if (last >= first) {
      o.validate(last - first, e.size());
    } else {
      o.validate(e.size());
    }
  } catch (const Error& x) {
    error = std::string("lb4mpi: ") + x.what();
  }
  if (error.empty()) error = check_environment(e.rank());
  if (error.empty()) error = trace::check_outputs(o, e.rank());
  return error;
}

void start(rt::Execution& e, const Options& o, Index first, Index last, const std::string& refuse) {
  const std::string error = refuse.empty() ? start_error(e, o, first, last) : refuse;
  e.start(first, last, error, o.fingerprint(), [&o] { return o.agreed_fields(); });
}

RankReport rank_report(const rt::RankFigures& f) {
  RankReport rr;
  rr.iterations = f.iterations;
  rr.chunks = f.chunks;
  rr.calculations = f.calculations;
  rr.work_time = f.work_time;
  rr.overhead = f.overhead;
  rr.serve_time = f.serve_time;
  rr.finish_time = f.finish_time;
  rr.failed = f.failed != 0;
  return rr;
}

Options start_selected(rt::Execution& e, const Options& o, AutoSelection* selection, Index first, Index last,
                       std::string refuse) {
  if (selection == nullptr) {
    start(e, o, first, last, refuse);
    return o;
  }
  if (refuse.empty()) refuse = selection->error();
  Options run = refuse.empty() ? selection->next(o) : o;
  if (run.technique != Technique::Auto) e.use_technique(run.technique);
  start(e, run, first, last, refuse);
  return run;
}

Report finish(rt::Execution& e, const Options& o, trace::Recorder* recorder, std::string& output_error,
              AutoSelection* selection) {
  const std::vector<rt::RankFigures> all = e.finish();
  Report report;
  report.technique = o.technique;
  report.mode = o.mode;
  report.first = e.first();
  report.last = e.first() + e.n();
  report.robust = o.robust;
  report.coordinator = e.config().coordinator;
  report.ranks.reserve(all.size());
  Index dropped = 0;
  int dropper = -1;
  for (std::size_t r = 0; r < all.size(); ++r) {
    const rt::RankFigures& f = all[r];
    const RankReport rr = rank_report(f);
    if (rr.failed) report.failed_ranks.push_back(static_cast<int>(r));
    report.reissued_chunks += f.reissued;
    report.ranks.push_back(rr);
    report.t_par = std::max(report.t_par, f.exit_time);
    if (f.dropped > 0 && dropper < 0) dropper = static_cast<int>(r);
    dropped += f.dropped;
  }
  if (recorder != nullptr) {
    if (report.failed_ranks.empty()) {
      output_error =
          recorder->flush(e.comm(), e.rank(), o.technique, o.mode, selection != nullptr ? selection->reason() : "");
    } else {  // gathering the trace is collective: not with failed ranks
      output_error = "lb4mpi: the trace of this execution is not written: ranks failed (robust mode, docs/ROBUST.md)";
    }
  }
  if (selection != nullptr && dropped == 0) selection->learn(report);
  if (dropped > 0) {
    throw Error("lb4mpi: finish() was called on rank " + std::to_string(dropper) +
                " before next() returned no chunk; " + std::to_string(dropped) + " of the loop's " +
                std::to_string(e.n()) + " iterations were handed out but not executed");
  }
  return report;
}

}  // namespace lb4mpi::detail
