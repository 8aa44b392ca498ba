// Several loops per time step (`003` §4 and §5): the apps whose time step is
// made of L loops, each with its own range, technique and mode.
//
//   synchronous (default)  the loops of a step run one after the other; each
//                          ends with lb4mpi's end-of-loop synchronization
//                          (Loop::finish) before the next one starts.
//   asynchronous (--async) all loops of a step are in flight at once in one
//                          lb4mpi::LoopSet; a rank with nothing left in one
//                          loop takes pieces of another; one synchronization
//                          per step (LoopSet::finish). The rank takes its
//                          pieces with LoopSet::next(): the lowest-numbered
//                          loop that has one right now. With --targeted it
//                          targets the loops in turn instead (`003`'s
//                          DLS_TargetLoop pattern: next(l) for l = 0, 1, ...).
//
// Either way each loop keeps one scheduler for all time steps (a Loop per loop
// restarted every step, or the LoopSet restarted), so adaptive techniques
// carry what they learnt from step to step. Each synchronous loop runs on its
// own duplicate of the communicator, so the L loops never share a channel.
// Robust loops are one LoopSet either way (multiloop_robust.hpp).
//
// Options shared by the multi-loop apps (MultiLoopCli):
//   --techniques T1,T2,...  one technique per loop (excludes --technique)
//   --modes M1,M2,...       one mode per loop (excludes --mode)
//   --time-steps T          time steps (default 1)
//   --async                 all loops of a step in flight together
//   --targeted              with --async: target the loops in turn (see above)
//   --idle-probing          with --async: a rank waits for work of the loop it
//                           asks instead of moving on (Options::idle_probing)
#pragma once
#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "app.hpp"
#include "cli.hpp"
#include "lb4mpi/lb4mpi.hpp"
#include "lb4mpi/loops.hpp"
#include "multiloop_robust.hpp"
#include "steps.hpp"
#include "timing.hpp"

namespace lb4mpi::apps {

/// How the loops of a time step run (see the header).
struct MultiDrive {
  bool asynchronous = false;  ///< all loops of a step in flight together
  bool targeted = false;      ///< asynchronous: next(l) for l in turn, not LoopSet::next()
};

class MultiLoopCli {
 public:
  /// Registers --techniques, --modes, --time-steps, --async in `cli` (after
  /// CommonCli, whose --technique / --mode they exclude).
  explicit MultiLoopCli(Cli& cli);

  /// The options of each of `loops` loops: `common` (CommonCli::options())
  /// with --techniques / --modes on top. Throws lb4mpi::Error on a bad name
  /// or a list of the wrong length.
  [[nodiscard]] std::vector<Options> options(const Options& common, int loops) const;
  [[nodiscard]] int time_steps() const { return time_steps_; }
  [[nodiscard]] bool asynchronous() const { return async_; }
  /// How the loops of a step run: --async, --targeted.
  [[nodiscard]] MultiDrive drive() const { return {async_, targeted_}; }
  [[nodiscard]] bool idle_probing() const { return idle_probing_; }
  /// Whether --time-steps / --async / --techniques / --modes was given.
  [[nodiscard]] bool any_given() const;

 private:
  std::vector<std::string> techniques_;
  std::vector<std::string> modes_;
  int time_steps_ = 1;
  bool async_ = false;
  bool idle_probing_ = false;
  bool targeted_ = false;
  std::vector<Cli::Opt> given_;  // whether any of them was given
};

/// Checks every loop's options against its N and the communicator size, and
/// the step count, before any communication; throws lb4mpi::Error.
void validate_loops(const AppContext& ctx, const std::vector<Index>& n,
                    const std::vector<Options>& opt, int steps);

/// Sums `local` (loops x steps values, row-major by step) onto rank 0. Collective.
std::vector<std::uint64_t> reduce_checksums(MPI_Comm comm, const std::vector<std::uint64_t>& local);

/// Runs `steps` time steps of the loops [0, n[l]) with options opt[l] on
/// ctx.comm(), synchronously or asynchronously (see the header).
/// `chunk_fn(int loop, int step, lb4mpi::Chunk)` runs a chunk of loop `loop`
/// in step `step` and returns the sum of mix_result(i, result_i) over it.
/// Collective.
template <class ChunkFn>
MultiRun run_multi_steps(AppContext& ctx, const std::vector<Index>& n,
                         const std::vector<Options>& opt, int steps, MultiDrive drive,
                         ChunkFn&& chunk_fn) {
  validate_loops(ctx, n, opt, steps);
  ctx.start_communicating();
  const std::size_t nl = n.size();
  const auto ns = static_cast<std::size_t>(steps);
  std::vector<std::uint64_t> local(nl * ns, 0);
  MultiRun run;
  const bool asynchronous = drive.asynchronous;
  run.asynchronous = asynchronous;
  run.targeted = asynchronous && drive.targeted;
  run.steps.resize(ns);

  const bool robust = std::any_of(opt.begin(), opt.end(), [](const Options& o) { return o.robust; });
  // One communicator per synchronous loop, made before the clock starts
  // (robust loops run in one LoopSet either way).
  std::vector<MPI_Comm> comms;
  if (!asynchronous && !robust) {
    comms.assign(nl, MPI_COMM_NULL);
    for (auto& c : comms) MPI_Comm_dup(ctx.comm(), &c);
  }
  struct FreeComms {
    std::vector<MPI_Comm>& c;
    const AppContext& ctx;
    ~FreeComms() {
      // After a failure: not freed (freeing lb4mpi's windows on them is collective, docs/ROBUST.md).
      for (auto& x : c)
        if (x != MPI_COMM_NULL && !ctx.lost_ranks()) MPI_Comm_free(&x);
    }
  } free_comms{comms, ctx};

  MPI_Barrier(ctx.comm());
  const double t0 = now();
  if (robust) {
    run_robust_steps(ctx, n, opt, steps, run, chunk_fn);  // no collective after the start
    run.total_time_s = seconds_since(t0);
    return run;
  }
  if (asynchronous) {
    std::vector<LoopSpec> specs;
    std::vector<std::pair<Index, Index>> ranges;
    for (std::size_t l = 0; l < nl; ++l) {
      specs.push_back(LoopSpec{0, n[l], opt[l]});
      ranges.emplace_back(0, n[l]);
    }
    std::optional<LoopSet> set;
    for (int s = 0; s < steps; ++s) {
      const double start = now();
      if (s == 0)
        set.emplace(ctx.comm(), specs);
      else
        set->restart(ranges);
      std::uint64_t* sums = &local[static_cast<std::size_t>(s) * nl];
      if (run.targeted) {
        while (!set->terminated()) {
          for (int l = 0; l < set->size(); ++l) {
            if (auto c = set->next(l)) sums[l] += chunk_fn(l, s, *c);
          }
        }
      } else {
        while (auto p = set->next()) sums[p->loop] += chunk_fn(p->loop, s, p->chunk);
      }
      MultiStep& st = run.steps[static_cast<std::size_t>(s)];
      st.reports = finish_keeping_reports(ctx, [&set] { return set->finish(); });
      st.wall_s = seconds_since(start);
    }
  } else {
    std::vector<std::optional<Loop>> loops(nl);
    for (int s = 0; s < steps; ++s) {
      const double start = now();
      MultiStep& st = run.steps[static_cast<std::size_t>(s)];
      std::uint64_t* sums = &local[static_cast<std::size_t>(s) * nl];
      for (std::size_t l = 0; l < nl; ++l) {
        if (s == 0)
          loops[l].emplace(comms[l], 0, n[l], opt[l]);
        else
          loops[l]->restart(0, n[l]);
        while (auto c = loops[l]->next()) sums[l] += chunk_fn(static_cast<int>(l), s, *c);
        st.reports.push_back(finish_keeping_reports(ctx, [&loops, l] { return loops[l]->finish(); }));
      }
      st.wall_s = seconds_since(start);
    }
  }
  run.total_time_s = seconds_since(t0);

  const std::vector<std::uint64_t> global = reduce_checksums(ctx.comm(), local);
  for (std::size_t s = 0; s < ns; ++s)
    run.steps[s].checksums.assign(global.begin() + static_cast<std::ptrdiff_t>(s * nl),
                                  global.begin() + static_cast<std::ptrdiff_t>((s + 1) * nl));
  return run;
}

/// The JSON summary of a multi-loop run. It has every field of make_summary
/// (apps/common/summary.hpp), for all loops together: loop_iterations = the
/// iterations of one step (all loops), repeat = time steps, t_par_s = sum over
/// loops and steps of T_par, wall_s = total_time_s, checksum = the run's
/// checksum (from the loops' checksums), checksum_consistent = every loop in
/// `constant_loops` gave the same checksum in every step; steps[k] sums the
/// loops of step k and lists them in steps[k].loops. Added:
///   async, time_steps, total_time_s
///   loops[l]: technique, mode, loop_iterations (one step), iterations (all
///     steps), t_par_s (summed over steps), checksum (over all steps: a mix of
///     the step checksums and the step numbers), chunks, load_imbalance_pct
///     (mean over steps), and per step: t_par_per_step,
///     load_imbalance_pct_per_step, step_checksums.
nlohmann::ordered_json make_multi_summary(const AppContext& ctx, std::string_view app,
                                          const std::vector<Options>& opt,
                                          const std::vector<Index>& n, const MultiRun& run,
                                          const std::vector<bool>& constant_loops);


}  // namespace lb4mpi::apps
