// GoogleTest under MPI: every rank runs the same tests in the same order;
// only rank 0 prints progress, every rank prints its own failures, and the
// process exits non-zero on the rank where an assertion failed.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdio>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  ::testing::InitGoogleTest(&argc, argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank != 0) {
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    // Keep failures visible on every rank, drop the per-test chatter.
    ::testing::TestEventListener* printer = listeners.Release(listeners.default_result_printer());
    struct FailuresOnly : ::testing::EmptyTestEventListener {
      int rank;
      explicit FailuresOnly(int r) : rank(r) {}
      void OnTestPartResult(const ::testing::TestPartResult& r) override {
        if (r.failed()) std::fprintf(stderr, "[rank %d] %s:%d: %s\n", rank, r.file_name(), r.line_number(), r.summary());
      }
    };
    delete printer;
    listeners.Append(new FailuresOnly(rank));
  }
  int rc = RUN_ALL_TESTS();
  // A filter that selects nothing (a typo in a CTest shard) must not pass.
  if (::testing::UnitTest::GetInstance()->test_to_run_count() == 0) {
    if (rank == 0) std::fprintf(stderr, "no test matches the filter\n");
    rc = 1;
  }
  MPI_Finalize();
  return rc;
}
