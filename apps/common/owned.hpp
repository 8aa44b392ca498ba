// What the apps over distributed data share (lb4mpi-pisolver, lb4mpi-cube,
// lb4mpi-particles): the balancer's command line, running an owned loop for
// K time steps, and the JSON summary — the one of apps/common/summary.hpp
// plus the stealing figures:
//   balancer, steal_amount, victim   as run
//   mode                             "owned"; technique: the owner's chunking or "pieces"
//   steal_attempts, successful_steals, iterations_stolen   summed over the executions
//   steals_per_rank, iterations_stolen_per_rank, iterations_given_per_rank, rejects_per_rank
//   cov_rank_times                   c.o.v. of the per-rank finish times (mean over executions)
//   send_time_per_steal_s, recv_time_per_steal_s   mean seconds per stolen chunk
//   steal_wait_per_rank, result_time_per_rank       seconds (summed)
// Each step has the same stealing fields for its execution.
//
//   --balancer B         none|steal (and a2ws, lw, random-steal, token when built)
//   --steal-amount A     a technique name or `000` Table 4.1 id, or a ratio (25%, 35%, 50%, 0.5)
//   --victim V           random|locality|naive-locality
//   --chunking T         the owner's chunks: a non-adaptive technique (default: pieces)
//   --ranks-per-node K   emulated nodes for locality (0: MPI_COMM_TYPE_SHARED)
//   --break-after K      owner: iterations between looks at its messages, -1 = auto
//   --speeds S,S,...     per-rank speed factors (emulated heterogeneity)
//   --repeat K           run the loop K times and report each
#pragma once
#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app.hpp"
#include "cli.hpp"
#include "lb4mpi/stealing.hpp"
#include "timing.hpp"

namespace lb4mpi::apps {

class OwnedCli {
 public:
  /// Registers the flags, their defaults from `base` (StealOptions::from_env()).
  OwnedCli(Cli& cli, const StealOptions& base);
  /// `base` with the parsed flags on top, validated for `ranks` ranks;
  /// throws lb4mpi::Error naming the flag and the valid values.
  [[nodiscard]] StealOptions options(int ranks) const;
  [[nodiscard]] int repeat() const { return repeat_; }

 private:
  StealOptions base_;
  std::string balancer_;
  std::string amount_;
  std::string victim_;
  std::string chunking_;
  int ranks_per_node_;
  int break_after_;
  std::string speeds_;
  int repeat_ = 1;
};

/// One execution of an owned loop: its report and this rank's part of the
/// checksum (sum of mix_result(i, result_i) over the iterations it owns).
struct OwnedStep {
  StealReport report;
  std::uint64_t checksum = 0;  ///< after run_owned_steps: the sum over all ranks, on rank 0
  double wall_s = 0.0;
};

/// Runs `step()` (one collective owned loop returning an OwnedStep with the
/// local checksum) `repeat` times; the checksums are reduced to rank 0.
template <class Step>
std::vector<OwnedStep> run_owned_steps(AppContext& ctx, int repeat, Step&& step) {
  ctx.start_communicating();
  ctx.announce_start();
  std::vector<OwnedStep> steps;
  for (int s = 0; s < repeat; ++s) {
    const double start = now();
    OwnedStep r = step();
    r.wall_s = seconds_since(start);
    std::uint64_t all = 0;
    MPI_Reduce(&r.checksum, &all, 1, MPI_UINT64_T, MPI_SUM, 0, ctx.comm());
    r.checksum = ctx.rank() == 0 ? all : 0;
    steps.push_back(std::move(r));
  }
  return steps;
}

/// The summary of an owned loop's steps (see the header).
nlohmann::ordered_json owned_summary(const AppContext& ctx, std::string_view app, const StealOptions& opt, Index n,
                                     const std::vector<OwnedStep>& steps);

/// Block distribution of n iterations over `ranks`: the first iteration
/// rank r owns (r = ranks: n).
inline Index block_start(Index n, int ranks, int r) { return n / ranks * r + std::min<Index>(r, n % ranks); }

}  // namespace lb4mpi::apps
