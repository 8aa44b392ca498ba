#include "app.hpp"

#include <CLI/CLI.hpp>

#include "cli.hpp"

#include <iostream>
#include <sstream>

#include "lb4mpi/types.hpp"

namespace lb4mpi::apps {

AppContext::AppContext(std::string name, MPI_Comm comm) : name_(std::move(name)), comm_(comm) {
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
}

void AppContext::parse(Cli& options, int argc, char** argv) const {
  CLI::App& cli = options.app();
  try {
    cli.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // Help and version requests are "errors" with exit code 0 in CLI11.
    const bool ok = e.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success);
    if (rank_ == 0) {
      if (ok) {
        cli.exit(e);
      } else {
        std::cerr << name_ << ": error: " << e.what() << "\n"
                  << "Run with --help for more information.\n";
      }
    }
    throw AppExit{ok ? 0 : 2};
  }
}

void AppContext::print_error(std::string_view message) const {
  std::ostringstream line;
  if (!communicating_) {
    if (rank_ != 0) return;
    line << name_ << ": error: " << message << '\n';
  } else {
    line << name_ << " [rank " << rank_ << "]: error: " << message << '\n';
  }
  std::cerr << line.str() << std::flush;
}

int run_app(std::string name, int argc, char** argv, const std::function<int(AppContext&)>& body) {
  MPI_Init(&argc, &argv);
  int code = 0;
  {
    AppContext ctx(std::move(name), MPI_COMM_WORLD);
    try {
      code = body(ctx);
      if (!ctx.deferred_error().empty()) {
        ctx.print_error(ctx.deferred_error());
        code = 2;
      }
    } catch (const AppExit& e) {
      code = e.code;
    } catch (const lb4mpi::Error& e) {
      ctx.print_error(e.what());
      code = 2;
      if (ctx.robust() && ctx.communicating()) {
        // Robust mode: a rank failed (the coordinator, whose failure robust
        // mode does not survive): MPI_Finalize could wait for it forever.
        MPI_Abort(ctx.comm(), code);
      }
    } catch (const std::exception& e) {
      // May be local to this rank (out of memory, ...): the others could wait
      // for it forever, so end the whole job.
      std::cerr << ctx.name() << " [rank " << ctx.rank() << "]: fatal: " << e.what() << '\n'
                << std::flush;
      MPI_Abort(ctx.comm(), 3);
    }
    if (ctx.lost_ranks() && ctx.rank() == 0) {
      // Robust mode lost ranks (docs/ROBUST.md): the results are printed,
      // and MPI_Finalize is collective — it could wait for a dead rank. As
      // `004` Algorithm 1, the coordinator ends the job (exit code 0 under
      // Open MPI's mpiexec --enable-recovery).
      std::cout << std::flush;
      std::cerr << std::flush;
      MPI_Abort(ctx.comm(), code);
    }
  }
  MPI_Finalize();
  return code;
}

}  // namespace lb4mpi::apps
