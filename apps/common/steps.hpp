// Runs an app's loop for K time steps with lb4mpi and collects, per step, the
// report and the checksum of the results.
#pragma once
#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>
#include <vector>

#include "app.hpp"
#include "lb4mpi/lb4mpi.hpp"
#include "timing.hpp"
#include "verdict.hpp"

namespace lb4mpi::apps {

struct StepResult {
  Report report;  ///< lb4mpi's report of the step (on every rank)
  std::uint64_t checksum =
      0;                ///< sum over all iterations of mix_result(i, result_i); valid on rank 0
  double wall_s = 0.0;  ///< this rank's wall time from the loop start to the report
};

/// Sum (mod 2^64) of every rank's `local`, on rank 0 (0 elsewhere). Collective.
std::uint64_t reduce_checksum(MPI_Comm comm, std::uint64_t local);

/// Checks the loop's options against N and the communicator size before any
/// communication; throws lb4mpi::Error (identical on every rank).
void validate_loop(const AppContext& ctx, Index n, const Options& opt, int repeat);

/// finish()'s result (a Report, or LoopSet's reports), also when lb4mpi could
/// not write an output file at the end of the loop: the loop completed, so
/// its reports are kept, and the error is deferred on `ctx` (see app.hpp).
template <class Finish>
auto finish_keeping_reports(AppContext& ctx, Finish&& finish) -> decltype(finish()) {
  try {
    return finish();
  } catch (const OutputError& e) {
    ctx.defer_error(e.what());
    if constexpr (std::is_same_v<decltype(finish()), Report>) {
      return e.reports().front();
    } else {
      return e.reports();
    }
  }
}

/// Runs [0, n) `repeat` times on ctx.comm() with one lb4mpi::Loop (restarted
/// for each step, so adaptive techniques carry over what they learnt).
/// `chunk_fn(lb4mpi::Chunk)` runs a chunk and returns the sum of
/// mix_result(i, result_i) over its iterations. Collective.
template <class ChunkFn>
std::vector<StepResult> run_steps(AppContext& ctx, Index n, const Options& opt, int repeat,
                                  ChunkFn&& chunk_fn) {
  validate_loop(ctx, n, opt, repeat);
  ctx.start_communicating();
  std::vector<StepResult> steps;
  steps.reserve(static_cast<std::size_t>(repeat));
  double start = now();
  Loop loop(ctx.comm(), 0, n, opt);
  ctx.set_robust(opt.robust);
  ctx.announce_start();
  for (int s = 0; s < repeat; ++s) {
    if (s > 0) {
      start = now();
      loop.restart(0, n);
    }
    std::uint64_t local = 0;
    if (opt.robust) {
      // Robust mode: each chunk's sum travels with its completion and is
      // committed once on the coordinator (rank 0), so a chunk executed
      // twice, or by a rank that failed, counts once; no collective call.
      std::uint64_t committed = 0;
      loop.on_commit([&committed](Chunk, const std::byte* data, std::size_t bytes) {
        std::uint64_t v = 0;
        if (bytes == sizeof v) std::memcpy(&v, data, sizeof v);
        committed += v;
      });
      while (auto c = loop.next()) loop.result(static_cast<std::uint64_t>(chunk_fn(*c)));
      StepResult r;
      r.report = finish_keeping_reports(ctx, [&loop] { return loop.finish(); });
      r.wall_s = seconds_since(start);
      r.checksum = ctx.rank() == r.report.coordinator ? committed : 0;  // the final coordinator's
      ctx.set_reporter(r.report.coordinator);
      steps.push_back(std::move(r));
      if (!steps.back().report.failed_ranks.empty()) {  // no further step with failed ranks
        ctx.set_lost_ranks();
        break;
      }
      continue;
    }
    while (auto c = loop.next()) local += chunk_fn(*c);
    StepResult r;
    r.report = finish_keeping_reports(ctx, [&loop] { return loop.finish(); });
    r.wall_s = seconds_since(start);
    r.checksum = reduce_checksum(ctx.comm(), local);
    steps.push_back(std::move(r));
  }
  verdict_note(ctx, steps);
  return steps;
}

}  // namespace lb4mpi::apps
