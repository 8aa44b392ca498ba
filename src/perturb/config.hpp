// Configuration of liblb4mpi_perturb, read from the environment at MPI_Init:
//   LB4MPI_PERTURB_RANKS        ranks of MPI_COMM_WORLD whose messages are
//                               delayed: "1,3" or ranges "4-7"; unset or empty:
//                               no perturbation
//   LB4MPI_PERTURB_LATENCY_US   microseconds added per message, a whole number
//                               in [1, kMaxLatencyUs]; needed when ranks are given
//   LB4MPI_PERTURB_VERBOSE      "1": rank 0 prints the configuration at MPI_Init,
//                               every rank its counters at MPI_Finalize; "0" or unset: quiet
// Pure functions, no MPI: parsing and validation only (docs/PERTURBATION.md).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace lb4mpi::perturb {

inline constexpr std::int64_t kMaxLatencyUs = 100'000'000;  // 100 s (004 §4.1 used 10 s)

struct Config {
  std::vector<int> ranks;        // sorted, unique, all >= 0
  std::int64_t latency_us = 0;   // > 0 when ranks is not empty
  bool verbose = false;
};

struct ParseResult {
  Config config;
  std::string error;  // empty: valid; else a message naming the variable and the valid values
};

/// Parses the three variables' values (nullopt: the variable is unset).
ParseResult parse_config(std::optional<std::string_view> ranks, std::optional<std::string_view> latency_us,
                         std::optional<std::string_view> verbose);

}  // namespace lb4mpi::perturb
