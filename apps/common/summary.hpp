// The JSON summary every app prints: on rank 0, one JSON object on one line of
// stdout (nothing else goes to stdout).
//
// The fields, for one loop and several, are documented once: apps/README.md,
// "The JSON summary". Totals builds the part both share.
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

/// Sums over several reports — the executions of one loop, or the loops and
/// time steps of a multi-loop run — and the summary fields they make, the
/// same for both (one builder, one schema: apps/README.md).
struct Totals {
  explicit Totals(std::size_t p);
  void add(const Report& r);
  /// failed_ranks, reissued_chunks, chunks, load_imbalance_pct and
  /// cov_finish (means over the reports), the per-rank arrays (sums) and the
  /// balance figures (means); with per_execution also finish_time_per_rank
  /// (the latest) and calculations_per_rank.
  void put(nlohmann::ordered_json& j, bool per_execution) const;

  std::vector<Index> iterations, calculations;
  std::vector<double> work, overhead, finish, idle, serve, waiting;
  std::vector<int> failed_ranks;  ///< every rank that failed in any report
  Index reissued_chunks = 0;
  int coordinator = 0;  ///< the rank that coordinated the last report (after a failover: the successor)
  double t_par = 0.0;
  Index chunks = 0;
  double imbalance_sum = 0.0, cov_sum = 0.0;
  std::vector<Balance> balances;  ///< one per report
};

/// The fields every summary starts with: app, technique, mode, ranks, hosts.
nlohmann::ordered_json summary_header(const AppContext& ctx, std::string_view app, std::string_view technique,
                                      std::string_view mode);
/// The summary's "options" object.
nlohmann::ordered_json options_json(const Options& opt);
/// "4 ranks on 2 hosts: a (2 ranks: 0-1) b (2 ranks: 2-3)": where the ranks ran.
std::string ranks_per_host(const std::vector<std::string>& hosts);

/// The summary's fields for the steps of one loop (see the header).
nlohmann::ordered_json make_summary(const AppContext& ctx, std::string_view app, const Options& opt,
                                    Index n, const std::vector<StepResult>& steps);

/// Rank 0 prints `summary` on one line of stdout, and the ranks per host
/// (ranks_per_host) on stderr.
void print_summary(const AppContext& ctx, const nlohmann::ordered_json& summary);

}  // namespace lb4mpi::apps
