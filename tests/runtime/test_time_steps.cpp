// The same loop executed again and again (time steps).
#include <string>

#include "mpi_check.hpp"

namespace lb4mpi::test {
namespace {

TEST(TimeSteps, ParallelForTwiceInARow) {
  for (Technique t : {Technique::GSS, Technique::AWF, Technique::AF, Technique::SS}) {
    Options opt;
    opt.technique = t;
    expect_exactly_once(run_and_cover(0, 777, opt), 777);
    expect_exactly_once(run_and_cover(0, 777, opt), 777);
  }
}

TEST(TimeSteps, RestartedLoopCoversEveryStep) {
  for (const auto& ti : all_techniques()) {
    Options opt;
    opt.technique = ti.technique;
    Loop loop(MPI_COMM_WORLD, 0, 1500, opt);
    for (int step = 0; step < 4; ++step) {
      SCOPED_TRACE(std::string(ti.name) + " step " + std::to_string(step));
      // Step 2 uses another range: the loop's shape may change between steps.
      const Index n = step == 2 ? 900 : 1500;
      if (step > 0) loop.restart(0, n);
      std::vector<std::int32_t> local(static_cast<std::size_t>(n), 0);
      while (auto c = loop.next()) {
        for (Index i = c->begin; i < c->end(); ++i) ++local[static_cast<std::size_t>(i)];
      }
      Report r = loop.finish();
      std::vector<std::int32_t> all(local.size());
      MPI_Allreduce(local.data(), all.data(), static_cast<int>(n), MPI_INT32_T, MPI_SUM, MPI_COMM_WORLD);
      Index wrong = 0;
      for (auto v : all) wrong += (v != 1);
      EXPECT_EQ(wrong, 0);
      EXPECT_EQ(r.iterations(), n);
    }
  }
}

TEST(TimeSteps, ReportIsConsistent) {
  Options opt;
  opt.technique = Technique::FAC2;
  Coverage c = run_and_cover(0, 2000, opt);
  expect_exactly_once(c, 2000);
  EXPECT_GT(c.report.chunks(), 0);
  EXPECT_GE(c.report.load_imbalance_percent(), 0.0);
  EXPECT_GE(c.report.finish_cov(), 0.0);
  for (const auto& r : c.report.ranks) {
    EXPECT_GE(r.work_time, 0.0);
    EXPECT_GE(r.overhead, 0.0);
    EXPECT_LE(r.finish_time, c.report.t_par + 1e-9);
  }
  EXPECT_FALSE(c.report.summary().empty());
}

}  // namespace
}  // namespace lb4mpi::test
