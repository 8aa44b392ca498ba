#include <lb4mpi/main.hpp>
#include <lb4mpi/stealing.hpp>

#include <cstdio>
#include <vector>

int main(int argc, char** argv) {
  return lb4mpi::run_main(argc, argv, [] {
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    // This rank owns iterations [first, last) and one long per iteration.
    const long n = 100000;
    const long first = n * rank / size, last = n * (rank + 1) / size;
    std::vector<long> work(last - first);
    for (long i = first; i < last; ++i) work[i - first] = 100 + (i % 7) * (rank == 0 ? 400 : 1);
    std::vector<double> result(work.size());

    // Defaults in code, the environment on top (LB4MPI_BALANCER=none really does not steal).
    lb4mpi::StealOptions base;
    base.balancer = lb4mpi::Balancer::Steal;
    base.amount = lb4mpi::StealAmount::of_ratio(0.5);  // or ::of(lb4mpi::Technique::GSS)
    base.victim = lb4mpi::Victim::Random;
    const lb4mpi::StealOptions opt = lb4mpi::StealOptions::from_env(base);  // LB4MPI_BALANCER, ...
    lb4mpi::StealReport r = lb4mpi::owned_for(
        MPI_COMM_WORLD, first, last, lb4mpi::ArrayData<long>(work), lb4mpi::ArrayData<double>(result), opt,
        [](lb4mpi::Chunk /*c*/, std::span<long> in, std::span<double> out) {
          for (std::size_t k = 0; k < in.size(); ++k) {  // iteration c.begin + k, wherever it runs
            double s = 0;
            for (long j = 0; j < in[k]; ++j) s += 1.0 / (1.0 + static_cast<double>(j));
            out[k] = s;
          }
        });
    // result[k] is iteration first + k's, computed here or on a thief.
    if (rank == 0)
      std::printf("T_par %.3f s, %lld steals, %lld iterations stolen\n", r.loop.t_par,
                  (long long)r.successful_steals(), (long long)r.iterations_stolen());
    return 0;
  });
}
