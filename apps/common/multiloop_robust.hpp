// Several loops per time step in robust mode (`--loops 3 --robust`,
// docs/ROBUST.md): no collective call once the loops started, so that a
// failed rank holds nothing up. Each chunk's checksum travels with its
// completion (Loop::result, LoopSet::result) and is committed once on the
// loop's final coordinator, as the one-loop robust apps do (steps.hpp);
// after a step that lost ranks no further step starts (a start is
// collective).
//
//   synchronous   the loops of a step, in flight in one robust LoopSet, run
//                 one after the other (next(l) until loop l has nothing more
//                 for this rank, then the next loop); then the step goes
//                 round every loop until the set is over: a loop that ended
//                 here is reopened when its coordinator fails later in the
//                 step (its results died with it), and runs again here.
//   asynchronous  one robust LoopSet: the loops in flight together.
#pragma once
#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "app.hpp"
#include "lb4mpi/lb4mpi.hpp"
#include "lb4mpi/loops.hpp"
#include "steps.hpp"
#include "timing.hpp"

namespace lb4mpi::apps {

struct MultiStep {
  std::vector<Report> reports;           ///< one per loop (on every rank)
  std::vector<std::uint64_t> checksums;  ///< one per loop: sum of mix_result terms; valid on the reporter
  double wall_s = 0.0;                   ///< this rank's wall time of the step
};

struct MultiRun {
  std::vector<MultiStep> steps;
  double total_time_s =
      0.0;  ///< rank 0's wall time of all steps (from before the first loop starts)
  bool asynchronous = false;
  bool targeted = false;
};

/// The checksum of loop `l` over all steps of `run` (as in the summary).
std::uint64_t loop_checksum(const MultiRun& run, std::size_t l);
/// The run's checksum: its loops' checksums mixed with their numbers (the summary's `checksum`).
std::uint64_t run_checksum(const MultiRun& run);

/// The end of a robust step: the checksums go to the loops' final
/// coordinator (the reporter), which must be one rank for every loop (the
/// results a failed coordinator committed are gone with it: an Error).
/// Returns whether the step lost ranks (then no further step starts).
bool robust_step_end(AppContext& ctx, MultiStep& st, const std::vector<std::uint64_t>& committed);
/// Notes the verdict of a robust multi-loop run (verdict.hpp).
void robust_verdict(const AppContext& ctx, const MultiRun& run);

/// run_multi_steps of robust loops (see the header).
template <class ChunkFn>
void run_robust_steps(AppContext& ctx, const std::vector<Index>& n, const std::vector<Options>& opt, int steps,
                      MultiRun& run, ChunkFn& chunk_fn) {
  const std::size_t nl = n.size();
  std::vector<std::uint64_t> committed(nl, 0);
  const auto commit_into = [&committed](std::size_t l) {
    return [&committed, l](Chunk, const std::byte* data, std::size_t bytes) {
      std::uint64_t v = 0;
      if (bytes == sizeof v) std::memcpy(&v, data, sizeof v);
      committed[l] += v;
    };
  };
  ctx.set_robust(true);
  std::optional<LoopSet> set;
  std::size_t done = 0;
  const auto run_chunk = [&](int l, int s, Chunk c) { set->result(static_cast<std::uint64_t>(chunk_fn(l, s, c))); };
  for (int s = 0; s < steps; ++s) {
    const double start = now();
    MultiStep& st = run.steps[static_cast<std::size_t>(s)];
    committed.assign(nl, 0);
    std::vector<LoopSpec> specs;
    std::vector<std::pair<Index, Index>> ranges;
    for (std::size_t l = 0; l < nl; ++l) {
      specs.push_back(LoopSpec{0, n[l], opt[l]});
      ranges.emplace_back(0, n[l]);
    }
    if (s == 0) {
      set.emplace(ctx.comm(), specs);
    } else {
      set->restart(ranges);
    }
    for (std::size_t l = 0; l < nl; ++l) set->on_commit(static_cast<int>(l), commit_into(l));
    if (s == 0) ctx.announce_start();
    if (!run.asynchronous) {
      for (int l = 0; l < set->size(); ++l) {
        while (auto c = set->next(l)) run_chunk(l, s, *c);
      }
    }
    if (run.targeted || !run.asynchronous) {
      while (!set->terminated()) {
        for (int l = 0; l < set->size(); ++l) {
          if (auto c = set->next(l)) run_chunk(l, s, *c);
        }
      }
    } else {
      while (auto p = set->next()) run_chunk(p->loop, s, p->chunk);
    }
    st.reports = finish_keeping_reports(ctx, [&set] { return set->finish(); });
    st.wall_s = seconds_since(start);
    ++done;
    if (robust_step_end(ctx, st, committed)) break;
  }
  run.steps.resize(done);
  robust_verdict(ctx, run);
}

}  // namespace lb4mpi::apps
