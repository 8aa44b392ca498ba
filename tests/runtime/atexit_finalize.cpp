// A program that registers MPI_Finalize with atexit before its first loop
// (some codes do, to finalize on every exit path): MPI_Finalize then runs
// after the library's static objects are destroyed, and must not touch them
// (regression: a use-after-free of the channel lists, found by fuzz_capi).
// Exits 0 only when every iteration ran exactly once.
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "lb4mpi/lb4mpi.hpp"

namespace {
void finalize_at_exit() { MPI_Finalize(); }
}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  std::atexit(finalize_at_exit);
  const lb4mpi::Index n = 1000;
  std::vector<int> local(n, 0), total(n, 0);
  lb4mpi::Options opt;
  opt.technique = lb4mpi::Technique::FAC2;
  lb4mpi::parallel_for(MPI_COMM_WORLD, 0, n, opt, [&](lb4mpi::Chunk c) {
    for (auto i = c.begin; i < c.end(); ++i) ++local[static_cast<std::size_t>(i)];
  });
  MPI_Allreduce(local.data(), total.data(), static_cast<int>(n), MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  int wrong = 0;
  for (int v : total) wrong += v != 1 ? 1 : 0;
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) std::printf("atexit_finalize: %d iterations not run exactly once\n", wrong);
  return wrong == 0 ? EXIT_SUCCESS : EXIT_FAILURE;  // MPI_Finalize runs in the atexit handler
}
