// The JSON summary every app prints: on rank 0, one JSON object on one line of
// stdout (nothing else goes to stdout).
//
// Top-level fields cover all K = --repeat executions of the loop:
//   app, technique, mode, ranks, repeat,
//   loop_iterations         N, the iterations of one execution
//   iterations              N * K, the iterations executed in all
//   t_par_s                 sum over the executions of lb4mpi's T_par
//   wall_s                  rank 0's wall time of all executions
//   checksum                "0x" + 16 hex digits: sum of mix_result(i, result_i)
//                           mod 2^64 over one execution; the same for every
//                           technique, mode and rank count
//   checksum_consistent     every execution gave the same checksum
//   chunks                  chunks handed out, summed over the executions
//   iterations_per_rank, work_time_per_rank, overhead_per_rank   summed over the executions
//   load_imbalance_pct, cov_finish   means over the executions of lb4mpi's figures
//   serve_time_per_rank     the coordinator's time serving other ranks' requests (summed)
//   waiting_time_per_rank   overhead minus serve_time: waiting for chunks (summed)
//   busy_imbalance_pct, busy_cov, finish_imbalance_pct, finish_cov,
//   busy_pct, scheduling_pct, idle_pct
//                           the balance figures of Balance (below), means over
//                           the executions (docs/METRICS.md)
//   steps                   one object per execution with its own t_par_s,
//                           wall_s, checksum, chunks, the per-rank arrays,
//                           finish_time_per_rank, load_imbalance_pct, cov_finish,
//                           waiting_time_per_rank and the balance figures
//   options                 the scheduling options used
//   params                  the app's own parameters (added by the app)
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "app.hpp"
#include "lb4mpi/options.hpp"
#include "lb4mpi/report.hpp"
#include "steps.hpp"

namespace lb4mpi::apps {

/// "0x" followed by 16 lower-case hex digits.
std::string hex64(std::uint64_t v);

/// Where the ranks' time went in one execution of a loop, and how evenly the
/// work was spread (docs/METRICS.md). Per rank, T_par splits into
///   busy     work_time: executing iterations
///   waiting  overhead - serve_time: inside lb4mpi obtaining chunks (requests,
///            calculations, the last request that learns the loop is over)
///   serving  serve_time: the coordinator handling other ranks' messages
///   idle     T_par - busy - waiting - serving: outside the body and lb4mpi,
///            mostly after this rank left the loop, until the last one did,
///            and the coordinator's wait for the end of the loop
struct Balance {
  double busy_imbalance_pct = 0.0;    ///< (max/mean - 1) * 100 of the busy times
  double busy_cov = 0.0;              ///< population std. deviation / mean of the busy times
  double finish_imbalance_pct = 0.0;  ///< (max/mean - 1) * 100 of the finish times (= load_imbalance_pct)
  double finish_cov = 0.0;            ///< c.o.v. of the finish times (= cov_finish)
  double busy_pct = 0.0;              ///< 100 * sum busy / (P * T_par)
  double scheduling_pct = 0.0;        ///< 100 * sum (waiting + serving) / (P * T_par)
  double idle_pct = 0.0;              ///< 100 * sum idle / (P * T_par)
};

/// (max/mean - 1) * 100 of `xs`; 0 when empty or the mean is 0.
double percent_imbalance(const std::vector<double>& xs);
/// Population standard deviation over the mean of `xs`; 0 for fewer than two
/// values or a zero mean.
double coefficient_of_variation(const std::vector<double>& xs);
/// A rank's waiting time: overhead - serve_time, at least 0.
double waiting_time(const RankReport& r);
/// The figures of one report.
Balance balance_of(const Report& r);
/// The field-by-field mean of `bs` (zeros when empty): the figures of
/// several executions (time steps, loops) in one.
Balance mean_balance(const std::vector<Balance>& bs);
/// `b` as the fields busy_imbalance_pct ... idle_pct of `j`.
void put_balance(nlohmann::ordered_json& j, const Balance& b);

/// The summary's fields for the steps of one loop (see the header).
nlohmann::ordered_json make_summary(const AppContext& ctx, std::string_view app, const Options& opt,
                                    Index n, const std::vector<StepResult>& steps);

/// Rank 0 prints `summary` on one line of stdout.
void print_summary(const AppContext& ctx, const nlohmann::ordered_json& summary);

}  // namespace lb4mpi::apps
