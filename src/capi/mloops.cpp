// The C interface's several loops at once (DLS_StartMLoops ... DLS_EndMLoops),
// over lb4mpi::LoopSet; state.hpp has the handle's state and the errors.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "lb4mpi/lb4mpi.h"
#include "state.hpp"

using namespace lb4mpi::capi::detail;  // NOLINT(google-build-using-namespace): this layer's internals

extern "C" {

void DLS_StartMLoops(infoDLS* info, int* firstIters, int* lastIters, int* imeths) {
  CState* st = state_of(info, "DLS_StartMLoops");
  if (st->group)  // DLS_GroupSetup's outer handle: one loop at a time
    abort_job(st->user, "lb4mpi: DLS_StartMLoops: the outer handle of DLS_GroupSetup runs one loop at a time (DLS_StartLoop)");
  conclude_deferred(st);  // a STATIC loop's before it
  const int n = st->num_loops;
  const Mode mode = effective_mode(st);
  std::vector<lb4mpi::LoopSpec> specs(static_cast<std::size_t>(n));
  std::vector<Technique> techniques(static_cast<std::size_t>(n));
  std::string error = take_pending();
  if (error.empty() && st->loop_active)
    error =
        "lb4mpi: DLS_StartMLoops: a loop started by DLS_StartLoop is still in flight (call "
        "DLS_EndLoop first)";
  if (error.empty() && st->set_active)
    error =
        "lb4mpi: DLS_StartMLoops: the previous loops are still in flight (call DLS_EndMLoops "
        "first)";
  if (error.empty() && (firstIters == nullptr || lastIters == nullptr || imeths == nullptr)) {
    error = "lb4mpi: DLS_StartMLoops: firstIters, lastIters and imeths must not be NULL";
  }
  Hasher h;
  h.add(n).add(mode);
  for (int l = 0; l < n && error.empty(); ++l) {
    const auto i = static_cast<std::size_t>(l);
    specs[i].options = st->base;
    specs[i].options.mode = mode;
    error = check_loop(st, firstIters[l], lastIters[l], imeths[l], techniques[i], specs[i].options,
                       "lb4mpi: DLS_StartMLoops: loop " + std::to_string(l) + ": ");
    specs[i].first = firstIters[l];
    specs[i].last = static_cast<Index>(lastIters[l]) + 1;  // inclusive bounds, as LB4MPI
    h.add(firstIters[l]).add(lastIters[l]).add(imeths[l]);
  }
  agree(st, "DLS_StartMLoops", error, h.value(), [&] {
    Fields f{{"the number of loops (DLS_NumLoops)", shown(n)},
             {"chunk-calculation mode", std::string(lb4mpi::name(mode))}};
    for (int l = 0; l < n; ++l) {
      const std::string i = "[" + std::to_string(l) + "]";
      f.emplace_back("firstIters" + i, shown(firstIters[l]));
      f.emplace_back("lastIters" + i, shown(lastIters[l]));
      f.emplace_back("imeths" + i, shown(imeths[l]));
    }
    return f;
  });

  or_abort(st, [&] {
    if (st->set && st->set_techniques == techniques && st->set_mode == mode) {
      std::vector<std::pair<Index, Index>> ranges;
      ranges.reserve(specs.size());
      for (const auto& s : specs) ranges.emplace_back(s.first, s.last);
      st->set->restart(ranges);  // the next time step: keeps what the techniques learned
    } else {
      st->set.reset();
      st->set = std::make_unique<lb4mpi::LoopSet>(st->user, specs);
      st->set_techniques = techniques;
      st->set_mode = mode;
    }
    for (int l = 0; l < n; ++l) {
      if (st->mcommit == nullptr) {
        st->set->on_commit(l, {});
        continue;
      }
      st->set->on_commit(l, [st, l](Chunk piece, const std::byte* data, std::size_t bytes) {
        st->mcommit(l, to_int(st, piece.begin, "the chunk start"), to_int(st, piece.size, "the chunk size"), data,
                    to_int(st, static_cast<Index>(bytes), "the result size"), st->mcommit_user);
      });
    }
  });
  st->failed_ranks = 0;
  st->set_active = true;
  st->target = 0;
  st->last_mode = c_mode_of(mode);
}

int DLS_MTerminated(infoDLS* info) {
  CState* st = state_of(info, "DLS_MTerminated");
  if (!st->set_active) {
    if (st->loop_active) return DLS_Terminated(info);  // one loop at a time, as LB4MPI
    abort_job(st->user, "lb4mpi: DLS_MTerminated called outside DLS_StartMLoops ... DLS_EndMLoops");
  }
  bool done = false;
  or_abort(st, [&] { done = st->set->terminated(); });
  return done ? 1 : 0;
}

void DLS_TargetLoop(infoDLS* info, int loop) {
  CState* st = state_of(info, "DLS_TargetLoop");
  const int n = st->set_active ? st->set->size() : st->num_loops;
  if (loop < 0 || loop >= n) {
    abort_job(st->user, "lb4mpi: DLS_TargetLoop(" + std::to_string(loop) +
                            "): valid loops are 0.." + std::to_string(n - 1) +
                            " (DLS_NumLoops set " + std::to_string(n) + ")");
  }
  st->target = loop;
}

void DLS_EndMLoops(infoDLS* info, int* niters, double* worktime) {
  CState* st = state_of(info, "DLS_EndMLoops");
  if (!st->set_active) abort_job(st->user, "lb4mpi: DLS_EndMLoops called without DLS_StartMLoops");
  Index dropped = 0;
  std::vector<lb4mpi::Report> reports;
  or_abort(st, [&] {
    while (!st->set->terminated()) {
      for (int l = 0; l < st->set->size(); ++l) {
        if (const std::optional<Chunk> c = st->set->next(l)) dropped += c->size;
      }
    }
    reports = finish_keeping_report(st, [&] { return st->set->finish(); });
  });
  st->set_active = false;
  std::vector<int> failed;  // over the loops: a failed rank is failed for all
  for (const lb4mpi::Report& r : reports) {
    for (int f : r.failed_ranks) {
      if (std::find(failed.begin(), failed.end(), f) == failed.end()) failed.push_back(f);
    }
  }
  st->failed_ranks = static_cast<int>(failed.size());
  // With failed ranks (robust mode) nothing collective is possible any more.
  if (st->failed_ranks == 0) {
    agree(st, "DLS_EndMLoops", dropped_error("DLS_EndMLoops", "DLS_MTerminated", st->rank, dropped), 0);
  }
  for (std::size_t l = 0; l < reports.size(); ++l) {
    const lb4mpi::RankReport& mine = reports[l].ranks[static_cast<std::size_t>(st->rank)];
    if (niters != nullptr) niters[l] = to_int(st, mine.iterations, "the iteration count");
    if (worktime != nullptr) worktime[l] = mine.work_time;
  }
}

}  // extern "C"
