// Per-rank speed factors (`002` Table 2): see a2ws/speeds.hpp.
#include "a2ws/speeds.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace lb4mpi::a2ws {

namespace {

constexpr double kTable2Cores[] = {24, 24, 16, 8, 4, 2, 1, 1};

[[noreturn]] void bad(std::string_view text, const std::string& why) {
  throw std::invalid_argument("speeds '" + std::string(text) + "': " + why +
                              "; valid: empty (all equal), 'table2', or positive numbers 'a,b,...' "
                              "(one per rank, cycled when fewer)");
}

}  // namespace

std::vector<double> parse_speeds(std::string_view text, int ranks) {
  std::vector<double> raw;
  if (text == "table2") {
    raw.assign(std::begin(kTable2Cores), std::end(kTable2Cores));
  } else if (!text.empty()) {
    std::size_t pos = 0;
    while (pos <= text.size()) {
      const std::size_t comma = std::min(text.find(',', pos), text.size());
      const std::string item(text.substr(pos, comma - pos));
      std::size_t used = 0;
      double v = 0.0;
      try {
        v = std::stod(item, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (item.empty() || used != item.size()) bad(text, "'" + item + "' is not a number");
      if (!(v > 0.0) || !std::isfinite(v)) bad(text, "'" + item + "' is not a positive number");
      raw.push_back(v);
      pos = comma + 1;
    }
  }
  std::vector<double> speeds(static_cast<std::size_t>(std::max(ranks, 0)), 1.0);
  if (raw.empty()) return speeds;
  for (std::size_t r = 0; r < speeds.size(); ++r) speeds[r] = raw[r % raw.size()];
  const double top = *std::max_element(speeds.begin(), speeds.end());
  for (double& s : speeds) s /= top;
  return speeds;
}

std::string format_speeds(const std::vector<double>& speeds) {
  std::string out;
  char buf[32];
  for (std::size_t i = 0; i < speeds.size(); ++i) {
    std::snprintf(buf, sizeof buf, "%s%.4g", i ? "," : "", speeds[i]);
    out += buf;
  }
  return out;
}

}  // namespace lb4mpi::a2ws
