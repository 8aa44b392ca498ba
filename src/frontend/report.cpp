// Report: summary statistics of a scheduled loop.
#include "lb4mpi/report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>

namespace lb4mpi {

double RankReport::idle_time(double t_par) const {
  return std::max(0.0, t_par - work_time - overhead);
}

Index Report::iterations() const {
  Index n = 0;
  for (const auto& r : ranks) n += r.iterations;
  return n;
}

Index Report::chunks() const {
  Index n = 0;
  for (const auto& r : ranks) n += r.chunks;
  return n;
}

// The statistics are over the ranks that finished (all, outside robust mode).
double Report::load_imbalance_percent() const {
  double max = 0.0;
  double sum = 0.0;
  std::size_t count = 0;
  for (const auto& r : ranks) {
    if (r.failed) continue;
    max = std::max(max, r.finish_time);
    sum += r.finish_time;
    ++count;
  }
  if (count == 0) return 0.0;
  const double mean = sum / static_cast<double>(count);
  return mean > 0.0 ? (max / mean - 1.0) * 100.0 : 0.0;
}

double Report::finish_cov() const {
  double sum = 0.0;
  std::size_t count = 0;
  for (const auto& r : ranks) {
    if (r.failed) continue;
    sum += r.finish_time;
    ++count;
  }
  if (count < 2) return 0.0;
  const double n = static_cast<double>(count);
  const double mean = sum / n;
  double sq = 0.0;
  for (const auto& r : ranks) {
    if (!r.failed) sq += (r.finish_time - mean) * (r.finish_time - mean);
  }
  return mean > 0.0 ? std::sqrt(sq / n) / mean : 0.0;
}

std::string Report::summary() const {
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "%s/%s: %lld iterations in %lld chunks on %zu ranks, T_par %.6f s, "
                "load imbalance %.2f %%, c.o.v. %.3f",
                std::string(name(technique)).c_str(), std::string(name(mode)).c_str(),
                static_cast<long long>(iterations()), static_cast<long long>(chunks()), ranks.size(),
                t_par, load_imbalance_percent(), finish_cov());
  if (!selection.empty()) return buf + ("; auto: " + selection);
  return buf;
}

}  // namespace lb4mpi
