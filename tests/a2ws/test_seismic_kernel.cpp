// The kernel of lb4mpi-seismic (apps/seismic/seismic_kernel.hpp), no MPI:
// the wave is stable and reaches the receivers, nearer ones first; a shot's
// result is a deterministic function of its source; bad parameters are
// refused naming their flag.
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "seismic/seismic_kernel.hpp"

namespace sei = lb4mpi::apps::seismic;

namespace {

sei::Params small() {
  sei::Params p;
  p.nx = p.ny = p.nz = 24;
  p.time_steps = 90;
  p.receivers = 4;
  p.shots = 9;
  return p;
}

// The step at which receiver r first sees 1 % of the largest amplitude.
int first_arrival(const sei::Params& p, const std::vector<float>& traces, int r, float level) {
  const int n = p.receivers * p.receivers;
  for (int t = 0; t < p.time_steps; ++t)
    if (std::fabs(traces[static_cast<std::size_t>(t * n + r)]) > level) return t;
  return p.time_steps;
}

}  // namespace

TEST(SeismicKernel, WaveIsStableAndReachesNearReceiversFirst) {
  const sei::Params p = small();
  const sei::Model m = sei::make_model(p);
  std::vector<float> scratch, traces;
  const sei::Shot s = sei::shot_of(p, 0);
  sei::simulate(m, s, scratch, traces);
  ASSERT_EQ(traces.size(), static_cast<std::size_t>(p.time_steps * p.receivers * p.receivers));
  float peak = 0.0f;
  for (float v : traces) {
    ASSERT_TRUE(std::isfinite(v));
    peak = std::max(peak, std::fabs(v));
  }
  EXPECT_GT(peak, 1e-4f);
  EXPECT_LT(peak, 10.0f);  // no blow-up: the scheme is stable
  // The receiver nearest the source and the farthest one.
  int near = 0, far = 0;
  double dn = 1e30, df = -1;
  for (int r = 0; r < p.receivers * p.receivers; ++r) {
    const auto [x, y] = sei::receiver_at(p, r);
    const double d = std::hypot(x - s.sx, y - s.sy);
    if (d < dn) dn = d, near = r;
    if (d > df) df = d, far = r;
  }
  EXPECT_LT(first_arrival(p, traces, near, 0.01f * peak), first_arrival(p, traces, far, 0.01f * peak));
}

TEST(SeismicKernel, AShotsResultDependsOnItsSourceOnly) {
  const sei::Params p = small();
  const sei::Model m = sei::make_model(p);
  std::vector<float> scratch, traces;
  std::set<std::uint64_t> seen;
  std::set<std::pair<int, int>> places;
  for (lb4mpi::Index i = 0; i < p.shots; ++i) {
    const sei::Shot s = sei::shot_of(p, i);
    places.insert({s.sx, s.sy});
    seen.insert(sei::run_shot(m, s, scratch, traces));
  }
  EXPECT_EQ(places.size(), static_cast<std::size_t>(p.shots));
  EXPECT_EQ(seen.size(), static_cast<std::size_t>(p.shots));
  // Again, after other shots left their fields in the scratch space.
  EXPECT_TRUE(seen.contains(sei::run_shot(m, sei::shot_of(p, 4), scratch, traces)));
  EXPECT_EQ(sei::run_shot(sei::make_model(p), sei::shot_of(p, 4), scratch, traces),
            sei::run_shot(m, sei::shot_of(p, 4), scratch, traces));
}

TEST(SeismicKernel, BadParametersNameTheirFlag) {
  const std::vector<std::pair<void (*)(sei::Params&), std::string>> cases = {
      {[](sei::Params& p) { p.nx = 8; }, "--nx must be in [12, 512]"},
      {[](sei::Params& p) { p.nz = 600; }, "--nz must be in [12, 512]"},
      {[](sei::Params& p) { p.time_steps = 0; }, "--time-steps must be >= 1"},
      {[](sei::Params& p) { p.receivers = 0; }, "--receivers must be in [1, "},
      {[](sei::Params& p) { p.receivers = 100; }, "--receivers must be in [1, "},
      {[](sei::Params& p) { p.shots = 0; }, "--shots must be >= 1"},
  };
  for (const auto& [change, needle] : cases) {
    sei::Params p = small();
    change(p);
    try {
      p.validate(4);
      ADD_FAILURE() << needle;
    } catch (const lb4mpi::Error& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  }
  EXPECT_NO_THROW(small().validate(4));
}
