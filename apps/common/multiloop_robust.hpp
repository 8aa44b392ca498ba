// Several loops per time step in robust mode (`--loops 3 --robust`,
// docs/ROBUST.md): no collective call once the loops started, so that a
// failed rank holds nothing up. Each chunk's checksum travels with its
// completion (Loop::result, LoopSet::result) and is committed once on the
// loop's final coordinator, as the one-loop robust apps do (steps.hpp);
// after a step that lost ranks no further step starts (a start is
// collective).
//
//   synchronous   every loop of a step starts (collectively) before the
//                 first one runs, then they run one after the other, each
//                 ending with its own end-of-loop exchange: a rank that
//                 fails in loop 0 cannot hold up the start of loop 1.
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

/// run_multi_steps of robust loops (see the header); `comms`: one per loop
/// when synchronous.
template <class ChunkFn>
void run_robust_steps(AppContext& ctx, const std::vector<Index>& n, const std::vector<Options>& opt, int steps,
                      MultiRun& run, const std::vector<MPI_Comm>& comms, ChunkFn& chunk_fn) {
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
  std::vector<std::optional<Loop>> loops(nl);
  std::size_t done = 0;
  for (int s = 0; s < steps; ++s) {
    const double start = now();
    MultiStep& st = run.steps[static_cast<std::size_t>(s)];
    committed.assign(nl, 0);
    if (run.asynchronous) {
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
      if (run.targeted) {
        while (!set->terminated()) {
          for (int l = 0; l < set->size(); ++l) {
            if (auto c = set->next(l)) set->result(static_cast<std::uint64_t>(chunk_fn(l, s, *c)));
          }
        }
      } else {
        while (auto p = set->next()) set->result(static_cast<std::uint64_t>(chunk_fn(p->loop, s, p->chunk)));
      }
      st.reports = finish_keeping_reports(ctx, [&set] { return set->finish(); });
    } else {
      for (std::size_t l = 0; l < nl; ++l) {
        if (s == 0) {
          loops[l].emplace(comms[l], 0, n[l], opt[l]);
        } else {
          loops[l]->restart(0, n[l]);
        }
        loops[l]->on_commit(commit_into(l));
      }
      if (s == 0) ctx.announce_start();
      for (std::size_t l = 0; l < nl; ++l) {
        while (auto c = loops[l]->next()) {
          loops[l]->result(static_cast<std::uint64_t>(chunk_fn(static_cast<int>(l), s, *c)));
        }
        st.reports.push_back(finish_keeping_reports(ctx, [&loops, l] { return loops[l]->finish(); }));
      }
    }
    st.wall_s = seconds_since(start);
    ++done;
    if (robust_step_end(ctx, st, committed)) break;
  }
  run.steps.resize(done);
  robust_verdict(ctx, run);
}

}  // namespace lb4mpi::apps
