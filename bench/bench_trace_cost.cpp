// Cost of per-chunk recording: one loop with an (almost) empty body, run
// with or without Options::trace, timed on every rank.
//
//   mpiexec -n 2 bench_trace_cost --iterations 1000000 --technique SS            # trace off
//   mpiexec -n 2 bench_trace_cost --iterations 1000000 --technique SS --trace /tmp/t.json
//
// Rank 0 prints one CSV row per execution (and the header with --header):
//   ranks,iterations,technique,mode,trace,execution,t_par_s,wall_s,chunks
// t_par_s is the report's T_par (the loop itself: the trace is only appended
// to in memory); wall_s is the wall time of the whole parallel_for on the
// slowest rank, barrier to return, so it also counts gathering the records at
// rank 0 and writing the file. bench/bench_trace_cost.sh alternates on/off
// runs and prints the medians.
//
// The body adds up the chunk sizes; the gathered sum must equal N on every
// execution (exit code 1 otherwise), so a broken schedule cannot look fast.
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "lb4mpi/lb4mpi.hpp"

namespace {

struct Args {
  lb4mpi::Index iterations = 1000000;
  std::string technique = "SS";
  std::string mode = "centralized";
  std::string trace;  // empty: off
  int repeat = 1;
  bool header = false;
};

[[noreturn]] void usage(const char* why) {
  std::fprintf(stderr,
               "bench_trace_cost: %s\n"
               "usage: bench_trace_cost [--iterations N] [--technique T] [--mode M] [--trace PATH] "
               "[--repeat K] "
               "[--header]\n",
               why);
  std::exit(2);
}

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string k = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage(("missing value after " + k).c_str());
      return argv[++i];
    };
    try {
      if (k == "--iterations") {
        a.iterations = std::stoll(value());
      } else if (k == "--technique") {
        a.technique = value();
      } else if (k == "--mode") {
        a.mode = value();
      } else if (k == "--trace") {
        a.trace = value();
      } else if (k == "--repeat") {
        a.repeat = std::stoi(value());
      } else if (k == "--header") {
        a.header = true;
      } else {
        usage(("unknown argument " + k).c_str());
      }
    } catch (const std::logic_error&) {
      usage(("bad value for " + k).c_str());
    }
  }
  if (a.iterations < 1 || a.repeat < 1) usage("--iterations and --repeat must be >= 1");
  return a;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  int size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const Args a = parse(argc, argv);
  int rc = 0;
  try {
    lb4mpi::Options opt;
    opt.technique = lb4mpi::parse_technique(a.technique);
    opt.mode = lb4mpi::parse_mode(a.mode);
    opt.trace = a.trace;
    if (rank == 0 && a.header)
      std::printf("ranks,iterations,technique,mode,trace,execution,t_par_s,wall_s,chunks\n");
    for (int e = 0; e < a.repeat; ++e) {
      lb4mpi::Index sum = 0;
      MPI_Barrier(MPI_COMM_WORLD);
      const double t0 = MPI_Wtime();
      const lb4mpi::Report r = lb4mpi::parallel_for(MPI_COMM_WORLD, 0, a.iterations, opt,
                                                    [&](lb4mpi::Chunk c) { sum += c.size; });
      const double wall = MPI_Wtime() - t0;
      double wall_max = 0.0;
      lb4mpi::Index total = 0;
      MPI_Reduce(&wall, &wall_max, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
      MPI_Reduce(&sum, &total, 1, MPI_INT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
      if (rank == 0) {
        if (total != a.iterations) {
          std::fprintf(stderr, "bench_trace_cost: executed %lld iterations, expected %lld\n",
                       static_cast<long long>(total), static_cast<long long>(a.iterations));
          rc = 1;
        }
        std::printf("%d,%lld,%s,%s,%s,%d,%.6f,%.6f,%lld\n", size,
                    static_cast<long long>(a.iterations),
                    std::string(lb4mpi::name(opt.technique)).c_str(),
                    std::string(lb4mpi::name(opt.mode)).c_str(), a.trace.empty() ? "off" : "on", e,
                    r.t_par, wall_max, static_cast<long long>(r.chunks()));
        std::fflush(stdout);
      }
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_trace_cost (rank %d): %s\n", rank, e.what());
    rc = 2;
  }
  int worst = 0;
  MPI_Allreduce(&rc, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return worst;
}
