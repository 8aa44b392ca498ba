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
//   steps                   one object per execution with its own t_par_s,
//                           wall_s, checksum, chunks, the per-rank arrays,
//                           finish_time_per_rank, load_imbalance_pct, cov_finish
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
#include "steps.hpp"

namespace lb4mpi::apps {

/// "0x" followed by 16 lower-case hex digits.
std::string hex64(std::uint64_t v);

/// The summary's fields for the steps of one loop (see the header).
nlohmann::ordered_json make_summary(const AppContext& ctx, std::string_view app, const Options& opt,
                                    Index n, const std::vector<StepResult>& steps);

/// Rank 0 prints `summary` on one line of stdout.
void print_summary(const AppContext& ctx, const nlohmann::ordered_json& summary);

}  // namespace lb4mpi::apps
