// lb4mpi::run_main: a program's main() around MPI, with the one way an
// error ends it — one clear message per job, exit status 2.
//
//   #include <lb4mpi/main.hpp>
//   int main(int argc, char** argv) {
//     return lb4mpi::run_main(argc, argv, [&] {
//       lb4mpi::Options opt = lb4mpi::Options::from_env();  // may throw lb4mpi::Error
//       ... lb4mpi::parallel_for(MPI_COMM_WORLD, 0, n, opt, body) ...
//       return 0;
//     });
//   }
//
// run_main calls MPI_Init, runs `body` (an int() callable: the program's exit
// status), then MPI_Finalize. lb4mpi reports every error as an lb4mpi::Error
// thrown alike on every rank (bad input, ranks that disagree, a trace that
// cannot be written): rank 0 prints "<program>: error: <message>" once, every
// rank finalizes and returns 2 (as the apps, the C API and the Python
// examples do: 2, a usage error) — no rank is left in a collective call. Any
// other exception may be local to one rank (the loop body's own, out of
// memory): that rank prints it with its rank and calls MPI_Abort(…, 3) (as the apps), since
// the others could wait for it forever. docs/RUNTIME.md, "What an error does
// to a C++ program".
#pragma once
#include <mpi.h>

#include <cstdio>
#include <exception>
#include <string>
#include <utility>

#include "lb4mpi/types.hpp"

namespace lb4mpi {

/// A program's main() around MPI: MPI_Init, `body()` (an int() callable: the
/// program's exit status), MPI_Finalize. An lb4mpi::Error (thrown alike on
/// every rank): rank 0 prints "<program>: error: <message>", every rank
/// finalizes and it returns 2. Any other exception: that rank prints it and
/// calls MPI_Abort(MPI_COMM_WORLD, 3). See the top of this header.
template <class Body>
int run_main(int argc, char** argv, Body&& body) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const std::string program = argc > 0 && argv[0] != nullptr ? argv[0] : "lb4mpi program";
  int code = 0;
  try {
    code = std::forward<Body>(body)();
  } catch (const Error& e) {  // thrown on every rank alike
    if (rank == 0) std::fprintf(stderr, "%s: error: %s\n", program.c_str(), e.what());
    code = 2;
  } catch (const std::exception& e) {  // perhaps on this rank only
    std::fprintf(stderr, "%s [rank %d]: fatal: %s\n", program.c_str(), rank, e.what());
    std::fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 3);
  }
  MPI_Finalize();
  return code;
}

}  // namespace lb4mpi
