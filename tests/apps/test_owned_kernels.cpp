// The kernels of the apps over distributed data (lb4mpi-pisolver,
// lb4mpi-cube, lb4mpi-particles): no MPI.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "cube/cube_kernel.hpp"
#include "particles/particles_kernel.hpp"
#include "pisolver/pisolver_kernel.hpp"
#include "pisolver_stream/pisolver_stream_kernel.hpp"

namespace lb4mpi::apps {
namespace {

TEST(Pisolver, SharesGiveRankZeroTheImbalance) {
  pisolver::Params p;
  p.imbalance = 30;
  EXPECT_DOUBLE_EQ(pisolver::work_share(p, 4, 0), 0.55);
  EXPECT_DOUBLE_EQ(pisolver::work_share(p, 4, 1), 0.15);
  double sum = 0.0;
  for (int r = 0; r < 4; ++r) sum += pisolver::work_share(p, 4, r);
  EXPECT_NEAR(sum, 1.0, 1e-12);
  p.imbalance = 0;
  EXPECT_DOUBLE_EQ(pisolver::work_share(p, 3, 2), 1.0 / 3);
  EXPECT_DOUBLE_EQ(pisolver::work_share(p, 1, 0), 1.0);
}

TEST(Pisolver, WorkloadsAverageTheOwnersShareAndSlicesSumToPi) {
  pisolver::Params p;
  p.iterations = 20000;
  p.work = 100;
  p.imbalance = 20;
  double heavy = 0.0, light = 0.0;
  std::int64_t pi = 0;
  for (Index i = 0; i < p.iterations; ++i) {
    const int owner = i < p.iterations / 2 ? 0 : 1;
    const std::int64_t w = pisolver::workload(p, 2, owner, i);
    ASSERT_GE(w, 1);
    (owner == 0 ? heavy : light) += static_cast<double>(w);
    pi += pisolver::solve(p, i, w);
  }
  EXPECT_NEAR(heavy / (heavy + light), 0.7, 0.01);  // 1/2 + 20 %
  EXPECT_NEAR(pisolver_stream::from_fixed(pi), std::numbers::pi, 1e-9);
}

TEST(Pisolver, ValidateNamesTheFlag) {
  pisolver::Params p;
  p.imbalance = 45;
  try {
    p.validate(4);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("--imbalance must be in [0, 40]"), std::string::npos);
  }
  p.imbalance = 40;
  p.validate(2);
  p.iterations = 3;
  EXPECT_THROW(p.validate(4), Error);
}

TEST(Cube, CostVariesAcrossTheCube) {
  cube::Params p;
  // Far left of the Mandelbrot plane escapes at once; its middle does not.
  EXPECT_LE(cube::escape(p, 0, 0, 0.0), 2);
  EXPECT_EQ(cube::escape(p, p.nx * 2 / 3, p.ny / 2, 0.0), p.max_iter);
  EXPECT_NE(cube::cell_id(p, 1, 0, 0), cube::cell_id(p, 0, 1, 0));
  EXPECT_THROW((cube::Params{.nx = 2}).validate(4), Error);
}

TEST(Particles, StepsDecreaseAlongXAndSimulationIsDeterministic) {
  particles::Params p;
  const particles::Particle a = particles::make_particle(p, 0);
  const particles::Particle b = particles::make_particle(p, p.count - 1);
  EXPECT_GT(particles::steps_of(p, a), 10 * particles::steps_of(p, b));
  EXPECT_GE(a.charges.size(), 1u);
  EXPECT_LE(a.charges.size(), 8u);
  EXPECT_EQ(particles::bits_of(particles::simulate(p, a)), particles::bits_of(particles::simulate(p, a)));
  EXPECT_THROW((particles::Params{.count = 1}).validate(2), Error);
}

}  // namespace
}  // namespace lb4mpi::apps
