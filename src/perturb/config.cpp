#include "config.hpp"

#include <algorithm>
#include <charconv>

namespace lb4mpi::perturb {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// A whole decimal number without sign, or nullopt.
std::optional<std::int64_t> parse_whole(std::string_view s) {
  s = trim(s);
  if (s.empty() || s.front() < '0' || s.front() > '9') return std::nullopt;
  std::int64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc{} || end != s.data() + s.size()) return std::nullopt;
  return v;
}

constexpr std::int64_t kMaxRank = 1 << 30;

}  // namespace

ParseResult parse_config(std::optional<std::string_view> ranks, std::optional<std::string_view> latency_us,
                         std::optional<std::string_view> verbose) {
  ParseResult r;
  if (verbose && !trim(*verbose).empty()) {
    const auto v = trim(*verbose);
    if (v == "1") {
      r.config.verbose = true;
    } else if (v != "0") {
      r.error = "LB4MPI_PERTURB_VERBOSE='" + std::string(*verbose) + "' is not valid: expected 0 or 1";
      return r;
    }
  }
  if (ranks && !trim(*ranks).empty()) {
    std::string_view rest = *ranks;
    while (true) {
      const auto comma = rest.find(',');
      const std::string_view item = trim(rest.substr(0, comma));
      const auto dash = item.find('-', 1);  // not a leading '-': "-1" is a bad rank, not a range
      std::optional<std::int64_t> lo, hi;
      if (dash == std::string_view::npos) {
        lo = hi = parse_whole(item);
      } else {
        lo = parse_whole(item.substr(0, dash));
        hi = parse_whole(item.substr(dash + 1));
      }
      if (!lo || !hi || *lo > *hi || *hi > kMaxRank) {
        r.error = "LB4MPI_PERTURB_RANKS='" + std::string(*ranks) + "' is not valid: '" + std::string(item) +
                  "' is not a rank; expected ranks of MPI_COMM_WORLD (whole numbers >= 0) or ranges "
                  "A-B, separated by commas, e.g. 1,3 or 4-7; unset or empty: no perturbation";
        return r;
      }
      if (*hi - *lo > (1 << 20)) {
        r.error = "LB4MPI_PERTURB_RANKS='" + std::string(*ranks) + "' is not valid: the range '" +
                  std::string(item) + "' has more than 2^20 ranks";
        return r;
      }
      for (auto k = *lo; k <= *hi; ++k) r.config.ranks.push_back(static_cast<int>(k));
      if (comma == std::string_view::npos) break;
      rest.remove_prefix(comma + 1);
    }
    std::sort(r.config.ranks.begin(), r.config.ranks.end());
    r.config.ranks.erase(std::unique(r.config.ranks.begin(), r.config.ranks.end()), r.config.ranks.end());
  }
  const bool latency_given = latency_us && !trim(*latency_us).empty();
  if (latency_given) {
    const auto v = parse_whole(*latency_us);
    if (!v || *v < 1 || *v > kMaxLatencyUs) {
      r.error = "LB4MPI_PERTURB_LATENCY_US='" + std::string(*latency_us) +
                "' is not valid: expected the microseconds added to each message, a whole number from 1 to " +
                std::to_string(kMaxLatencyUs) + " (e.g. 500)";
      return r;
    }
    r.config.latency_us = *v;
  }
  if (!r.config.ranks.empty() && !latency_given) {
    r.error = "LB4MPI_PERTURB_RANKS is set but LB4MPI_PERTURB_LATENCY_US is not: expected the microseconds "
              "added to each message, a whole number from 1 to " +
              std::to_string(kMaxLatencyUs) + " (e.g. 500)";
    return r;
  }
  return r;
}

}  // namespace lb4mpi::perturb
