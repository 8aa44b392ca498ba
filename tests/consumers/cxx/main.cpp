// A C++ program on an installed lb4mpi (the consumer tests:
// scripts/check_install.cmake, scripts/check_deb.sh), built by CMake
// (find_package) or by mpicxx with `pkg-config --cflags --libs lb4mpi` /
// `lb4mpi-static`.
//
// Checks what a user relies on across the library boundary:
//   - a loop: every iteration of [0, N) runs exactly once over all ranks;
//   - the library's exceptions caught by their own types (lb4mpi::Error,
//     InvalidParameter, OutputError): with the library's type information
//     hidden, these catch clauses would not match and the program would end
//     in std::terminate;
//   - the technique layer (liblb4mpi_techniques) without MPI.
// Usage: consumer_cxx [scratch-dir]  (the OutputError check needs a folder
// to put a trace link to /dev/full in; skipped without one).
// Prints "consumer-cxx: ok ..." on rank 0 and exits 0, or exits 1.
#include <lb4mpi/lb4mpi.hpp>
#include <lb4mpi/techniques/chunk_calculator.hpp>
#include <mpi.h>

#include <unistd.h>  // symlink, unlink: lighter to compile than <filesystem>

#include <cstdio>
#include <string>
#include <vector>

namespace {

constexpr lb4mpi::Index kN = 10007;
int rank = 0;

int fail(const std::string& what) {
  std::fprintf(stderr, "consumer-cxx (rank %d): %s\n", rank, what.c_str());
  return 1;
}

// Collective: 0 when every iteration of [0, kN) was marked exactly once over all ranks.
int check_exactly_once(const std::vector<int>& marks, const char* loop) {
  std::vector<int> counts(marks.size());
  MPI_Allreduce(marks.data(), counts.data(), static_cast<int>(marks.size()), MPI_INT, MPI_SUM,
                MPI_COMM_WORLD);
  for (std::size_t i = 0; i < counts.size(); ++i) {
    if (counts[i] != 1) {
      return fail(std::string(loop) + ": iteration " + std::to_string(i) + " ran " +
                  std::to_string(counts[i]) + " times");
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int failures = 0;
  std::vector<std::string> caught;

  // 1. A loop, checked exactly-once.
  lb4mpi::Options opt;
  opt.technique = lb4mpi::Technique::GSS;
  std::vector<int> marks(kN, 0);
  const lb4mpi::Report report = lb4mpi::parallel_for(MPI_COMM_WORLD, 0, kN, opt, [&](lb4mpi::Chunk c) {
    for (auto i = c.begin; i < c.end(); ++i) ++marks[static_cast<std::size_t>(i)];
  });
  failures += check_exactly_once(marks, "loop");
  if (report.iterations() != kN) failures += fail("the report counts " + std::to_string(report.iterations()));

  // 2. Exceptions thrown inside the library, caught here by their types.
  try {
    (void)lb4mpi::parse_technique("NoSuchTechnique");
    failures += fail("parse_technique accepted NoSuchTechnique");
  } catch (const lb4mpi::Error&) {
    caught.emplace_back("Error");
  }
  try {
    lb4mpi::TechniqueParams params;
    params.min_chunk = 0;
    params.validate(lb4mpi::Technique::GSS, 100, 2);
    failures += fail("validate accepted min_chunk = 0");
  } catch (const lb4mpi::InvalidParameter& e) {
    if (e.field() == "min_chunk") caught.emplace_back("InvalidParameter");
    else failures += fail("InvalidParameter names " + e.field());
  }
  if (argc > 1) {
    // The trace is written when the loop ends; a link to /dev/full passes the
    // check at the start and fails the write ("disk full").
    const std::string trace = std::string(argv[1]) + "/full_disk_trace.json";
    if (rank == 0) {
      (void)unlink(trace.c_str());
      if (symlink("/dev/full", trace.c_str()) != 0) failures += fail("cannot link " + trace + " to /dev/full");
    }
    MPI_Barrier(MPI_COMM_WORLD);
    opt.trace = trace;
    marks.assign(marks.size(), 0);
    try {
      (void)lb4mpi::parallel_for(MPI_COMM_WORLD, 0, kN, opt, [&](lb4mpi::Chunk c) {
        for (auto i = c.begin; i < c.end(); ++i) ++marks[static_cast<std::size_t>(i)];
      });
      failures += fail("a trace on a full disk did not throw");
    } catch (const lb4mpi::OutputError& e) {
      if (e.reports().size() == 1 && e.reports()[0].iterations() == kN) caught.emplace_back("OutputError");
      else failures += fail("OutputError without the loop's report");
    }
    failures += check_exactly_once(marks, "loop with a failing trace");
  }

  // 3. The technique layer alone: GSS's closed form covers N = 1000 on 4 ranks.
  lb4mpi::Index total = 0;
  for (const auto& c : lb4mpi::simulate_chunks(lb4mpi::Technique::GSS, {1000, 4}, lb4mpi::TechniqueParams{},
                                               lb4mpi::Form::Closed)) {
    total += c.size;
  }
  if (total != 1000) failures += fail("simulate_chunks covers " + std::to_string(total) + " of 1000");

  int any = 0;
  MPI_Allreduce(&failures, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0) {
    std::string names;
    for (const auto& n : caught) names += (names.empty() ? "" : ", ") + n;
    if (any == 0) {
      std::printf("consumer-cxx: ok: %lld iterations, each exactly once, on %d ranks; caught %s\n",
                  static_cast<long long>(report.iterations()), size, names.c_str());
    } else {
      std::printf("consumer-cxx: FAILED\n");
    }
  }
  MPI_Finalize();
  return any == 0 ? 0 : 1;
}
