#include "app.hpp"

#include <CLI/CLI.hpp>

#include "cli.hpp"
#include "verdict.hpp"

#include <cstdio>
#include <cstring>
#include <iostream>
#include <sstream>

#include "lb4mpi/types.hpp"
#include "platform/platform.hpp"

namespace lb4mpi::apps {

AppContext::AppContext(std::string name, MPI_Comm comm) : name_(std::move(name)), comm_(comm) {
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
  std::vector<char> mine(MPI_MAX_PROCESSOR_NAME, '\0');
  int length = 0;
  MPI_Get_processor_name(mine.data(), &length);
  std::vector<char> all(mine.size() * static_cast<std::size_t>(size_), '\0');
  MPI_Allgather(mine.data(), MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all.data(), MPI_MAX_PROCESSOR_NAME, MPI_CHAR,
                comm_);
  for (int r = 0; r < size_; ++r) {
    const char* host = all.data() + static_cast<std::size_t>(r) * mine.size();
    hosts_.emplace_back(host, strnlen(host, mine.size()));
  }
}

void AppContext::parse(Cli& options, int argc, char** argv) {
  CLI::App& cli = options.app();
  cli.add_flag("--announce-start", announce_start_,
               "every rank prints 'loop started' on stderr once its loop has started (for harnesses that "
               "kill ranks from outside, docs/ROBUST.md)")
      ->group("Robust mode, failures and perturbations (docs/ROBUST.md)");
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

void AppContext::announce_start() const {
  if (!announce_start_) return;
  std::ostringstream line;
  line << name_ << " [rank " << rank_ << "]: loop started\n";
  std::cerr << line.str() << std::flush;
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

namespace {

// Ends this process with `code` without MPI_Finalize, its output flushed.
// `004` Algorithm 1 calls MPI_Abort from the coordinator instead; under Open
// MPI's mpiexec --enable-recovery that took ~2 s to tear the job down,
// leaving without finalizing ~0.4 s (docs/ROBUST.md).
[[noreturn]] void end_without_finalize(int code) {
  std::cout << std::flush;
  std::cerr << std::flush;
  std::fflush(nullptr);
  lb4mpi::platform::leave(code);
}

}  // namespace

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
        verdict_write(ctx, code);
        // Robust mode: a rank failed (the coordinator, whose failure robust
        // mode does not survive): MPI_Finalize could wait for it forever.
        end_without_finalize(code);
      }
    } catch (const std::exception& e) {
      // May be local to this rank (out of memory, ...): the others could wait
      // for it forever, so end the whole job.
      std::cerr << ctx.name() << " [rank " << ctx.rank() << "]: fatal: " << e.what() << '\n'
                << std::flush;
      MPI_Abort(ctx.comm(), 3);
    }
    // Robust mode lost ranks (docs/ROBUST.md): the results are printed, and
    // MPI_Finalize is collective — it could wait for a dead rank. Every
    // survivor knows (its report names the failed ranks) and leaves.
    verdict_write(ctx, code);
    if (ctx.lost_ranks()) end_without_finalize(code);
  }
  MPI_Finalize();
  return code;
}

}  // namespace lb4mpi::apps
