// A first lb4mpi program: the README's C++ snippet made whole. A loop of n
// iterations whose cost grows with i, scheduled by the technique and mode
// of LB4MPI_SCHEDULING / LB4MPI_MODE (FAC2, centralized by default); every
// iteration is counted once over all ranks, which the program checks.
//
//   mpicxx -std=c++20 first_loop.cpp $(pkg-config --cflags --libs lb4mpi) -o first_loop
//   mpiexec -n 2 ./first_loop 100000
//   LB4MPI_SCHEDULING=GSS LB4MPI_MODE=distributed mpiexec -n 2 ./first_loop
//
// Errors follow lb4mpi::run_main (<lb4mpi/main.hpp>): LB4MPI_SCHEDULING=FAC3
// prints one line naming the valid techniques and exits with status 2.
#include <lb4mpi/lb4mpi.hpp>
#include <lb4mpi/main.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char** argv) {
  return lb4mpi::run_main(argc, argv, [&] {
    const lb4mpi::Index n = argc > 1 ? std::atoll(argv[1]) : 20000;
    const lb4mpi::Options opt = lb4mpi::Options::from_env();  // bad values throw lb4mpi::Error
    std::vector<int> count(static_cast<std::size_t>(n), 0);
    double sum = 0.0;
    const lb4mpi::Report r = lb4mpi::parallel_for(MPI_COMM_WORLD, 0, n, opt, [&](lb4mpi::Chunk c) {
      for (auto i = c.begin; i < c.end(); ++i) {
        ++count[static_cast<std::size_t>(i)];
        for (lb4mpi::Index k = 0; k < i % 64; ++k) sum += std::sqrt(static_cast<double>(k + i));
      }
    });
    MPI_Allreduce(MPI_IN_PLACE, count.data(), static_cast<int>(n), MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    int wrong = 0;
    for (int c : count) wrong += c != 1;
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
      std::printf("%s\n", r.summary().c_str());
      std::printf("%lld iterations, %d not run exactly once (work %.3g)\n", static_cast<long long>(n), wrong, sum);
    }
    return wrong == 0 ? 0 : 1;
  });
}
