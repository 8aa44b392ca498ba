#include "verdict.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "steps.hpp"
#include "summary.hpp"

namespace lb4mpi::apps {

namespace {

struct Noted {
  bool any = false;
  bool robust = false;
  std::size_t steps = 0;
  std::vector<int> failed;
  Index iterations = 0;
  std::uint64_t checksum = 0;
};

Noted& noted() {
  static Noted n;
  return n;
}

}  // namespace

void verdict_note(const AppContext& ctx, const std::vector<Report>& reports, std::size_t steps,
                  std::uint64_t checksum) {
  Noted& n = noted();
  n.any = true;
  n.robust = ctx.robust();
  n.steps = steps;
  n.failed.clear();
  n.iterations = 0;
  for (const Report& r : reports) {
    for (int f : r.failed_ranks) {
      if (std::find(n.failed.begin(), n.failed.end(), f) == n.failed.end()) n.failed.push_back(f);
    }
    const auto k = static_cast<std::size_t>(ctx.rank());
    if (k < r.ranks.size()) n.iterations += r.ranks[k].iterations;
  }
  n.checksum = checksum;
}

void verdict_note(const AppContext& ctx, const std::vector<StepResult>& steps) {
  std::vector<Report> reports;
  for (const StepResult& s : steps) reports.push_back(s.report);
  verdict_note(ctx, reports, steps.size(), steps.empty() ? 0 : steps.front().checksum);
}

void verdict_write(const AppContext& ctx, int exit_code) {
  const char* dir = std::getenv("LB4MPI_VERDICT_DIR");
  if (dir == nullptr || *dir == '\0') return;
  const Noted& n = noted();
  nlohmann::ordered_json j;
  j["rank"] = ctx.rank();
  j["pid"] = static_cast<long>(getpid());
  j["exit_code"] = exit_code;
  j["robust"] = n.robust;
  j["steps"] = n.steps;
  j["failed_ranks"] = n.failed;
  j["iterations"] = n.iterations;
  if (ctx.rank() == ctx.reporter() && n.any) {  // the final coordinator holds the checksum
    j["checksum"] = hex64(n.checksum);
  } else {
    j["checksum"] = nullptr;
  }
  const std::string path = std::string(dir) + "/rank-" + std::to_string(ctx.rank()) + ".json";
  const std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp);
    f << j.dump() << '\n';
    if (!f) {
      std::fprintf(stderr, "%s [rank %d]: cannot write the verdict %s\n", ctx.name().c_str(), ctx.rank(),
                   tmp.c_str());
      return;
    }
  }
  std::rename(tmp.c_str(), path.c_str());
}

}  // namespace lb4mpi::apps
