// lb4mpi_cluster_probe: where the ranks run, and one loop per mode across
// them (tests/cluster, docs/CLUSTER.md).
//
//   cluster_probe [N] [TECHNIQUE]
//
// Prints on rank 0 one JSON line: every rank's processor name (`hosts`), the
// node of every rank as MPI sees it (`shared_node`: the lowest rank of its
// MPI_COMM_TYPE_SHARED group) and, for each mode (centralized, distributed,
// distributed-rma), how many times each iteration of [0, N) ran, gathered
// from every rank (`once`: every iteration exactly once), with T_par.
// Exits 1 when an iteration did not run exactly once.
#include <mpi.h>

#include <cstdio>
#include <string>
#include <vector>

#include "lb4mpi/lb4mpi.hpp"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const long n = argc > 1 ? std::stol(argv[1]) : 20000;
  const std::string technique = argc > 2 ? argv[2] : "FAC2";

  char name[MPI_MAX_PROCESSOR_NAME] = {};
  int len = 0;
  MPI_Get_processor_name(name, &len);
  std::vector<char> names(static_cast<std::size_t>(size) * MPI_MAX_PROCESSOR_NAME);
  MPI_Gather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, names.data(), MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0,
             MPI_COMM_WORLD);
  MPI_Comm shared;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &shared);
  int lowest = rank;
  MPI_Allreduce(MPI_IN_PLACE, &lowest, 1, MPI_INT, MPI_MIN, shared);
  MPI_Comm_free(&shared);
  std::vector<int> nodes(static_cast<std::size_t>(size));
  MPI_Gather(&lowest, 1, MPI_INT, nodes.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);

  std::string out = "{\"ranks\":" + std::to_string(size) + ",\"hosts\":[";
  for (int r = 0; r < size; ++r)
    out += std::string(r ? "," : "") + "\"" + std::string(&names[static_cast<std::size_t>(r) * MPI_MAX_PROCESSOR_NAME]) + "\"";
  out += "],\"shared_node\":[";
  for (int r = 0; r < size; ++r) out += std::string(r ? "," : "") + std::to_string(nodes[static_cast<std::size_t>(r)]);
  out += "],\"modes\":{";

  bool all_once = true;
  const lb4mpi::Mode modes[] = {lb4mpi::Mode::Centralized, lb4mpi::Mode::Distributed, lb4mpi::Mode::DistributedRMA};
  for (std::size_t m = 0; m < 3; ++m) {
    lb4mpi::Options opt;
    opt.technique = lb4mpi::parse_technique(technique);
    opt.mode = modes[m];
    std::vector<int> count(static_cast<std::size_t>(n), 0);
    const lb4mpi::Report r = lb4mpi::parallel_for(MPI_COMM_WORLD, 0, n, opt, [&](lb4mpi::Chunk c) {
      for (auto i = c.begin; i < c.end(); ++i) {
        ++count[static_cast<std::size_t>(i)];
        volatile double x = 0;  // a little work per iteration, more towards the end
        for (long k = 0; k < 20 + i % 200; ++k) x = x + 1.0 / static_cast<double>(k + 1);
      }
    });
    MPI_Allreduce(MPI_IN_PLACE, count.data(), static_cast<int>(n), MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    long bad = 0;
    for (int c : count) bad += c != 1;
    all_once = all_once && bad == 0;
    char buf[160];
    std::snprintf(buf, sizeof buf, "%s\"%s\":{\"once\":%s,\"not_once\":%ld,\"t_par_s\":%.6f}", m ? "," : "",
                  std::string(lb4mpi::name(modes[m])).c_str(), bad == 0 ? "true" : "false", bad, r.t_par);
    out += buf;
  }
  out += "},\"technique\":\"" + technique + "\",\"iterations\":" + std::to_string(n) + "}";
  if (rank == 0) std::printf("%s\n", out.c_str());
  MPI_Finalize();
  return all_once ? 0 : 1;
}
