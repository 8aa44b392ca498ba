// The frame of every lb4mpi app: MPI start and end, command-line parsing, and
// the one place where errors become messages and exit codes.
//
// Exit codes: 0 success (and --help), 2 bad arguments, bad environment or an
// lb4mpi::Error, 3 (via MPI_Abort) any other exception, which may be local to
// one rank.
//
// Who prints an error: all ranks see the same arguments and environment, so
// errors found before the first collective call (CLI11 parse errors, bad
// LB4MPI_* variables, parameters rejected by validation) are identical on every
// rank: rank 0 alone prints "<app>: error: <message>", and every rank exits
// with 2 without communicating. Errors thrown once the loop runs are printed by
// every rank that sees them, as "<app> [rank R]: error: <message>". An output
// file that lb4mpi could not write at the end of a loop (lb4mpi::OutputError)
// does not stop the app: it prints its summary first, then the error, exit 2.
#pragma once
#include <mpi.h>

#include <functional>
#include <string>
#include <string_view>

namespace lb4mpi::apps {

class Cli;

/// Thrown to end the app early with an exit code (after --help, a CLI error).
struct AppExit {
  int code;
};

class AppContext {
 public:
  AppContext(std::string name, MPI_Comm comm);

  [[nodiscard]] const std::string& name() const { return name_; }
  [[nodiscard]] MPI_Comm comm() const { return comm_; }
  [[nodiscard]] int rank() const { return rank_; }
  [[nodiscard]] int size() const { return size_; }

  /// Parses the command line. --help: rank 0 prints the help, AppExit{0}.
  /// A parse error: rank 0 prints it, AppExit{2}.
  void parse(Cli& cli, int argc, char** argv);
  /// With --announce-start: "<app> [rank R]: loop started" on stderr.
  void announce_start() const;

  /// From here on ranks communicate: an error may be local to one rank.
  void start_communicating() { communicating_ = true; }
  [[nodiscard]] bool communicating() const { return communicating_; }

  /// Prints an error the way the header describes.
  void print_error(std::string_view message) const;

  /// An error that must not cost the results: lb4mpi::OutputError (a trace
  /// or iteration CSV not written at the end of a loop; the same on every
  /// rank). The app goes on, prints its summary, and run_app then prints
  /// the error on every rank and exits 2.
  void defer_error(const std::string& message) { deferred_ = message; }
  [[nodiscard]] const std::string& deferred_error() const { return deferred_; }

  /// A robust loop is running (set once it started): an lb4mpi::Error from
  /// here on may mean a failed coordinator, and the rank ends the job with
  /// MPI_Abort instead of waiting in MPI_Finalize.
  void set_robust(bool on) { robust_ = on; }
  [[nodiscard]] bool robust() const { return robust_; }
  /// A robust loop lost ranks: after the summary, rank 0 ends the job with
  /// MPI_Abort(0) (docs/ROBUST.md).
  void set_lost_ranks() { lost_ranks_ = true; }
  [[nodiscard]] bool lost_ranks() const { return lost_ranks_; }
  /// The rank that prints the summary: 0, or the loop's final coordinator
  /// after a failover (Report::coordinator).
  void set_reporter(int rank) { reporter_ = rank; }
  [[nodiscard]] int reporter() const { return reporter_; }

 private:
  std::string name_;
  MPI_Comm comm_;
  int rank_ = 0;
  int size_ = 1;
  bool communicating_ = false;
  std::string deferred_;
  bool robust_ = false;
  bool lost_ranks_ = false;
  int reporter_ = 0;
  bool announce_start_ = false;
};

/// MPI_Init, body(context), MPI_Finalize; turns exceptions into messages and
/// exit codes (see the header). Returns the process's exit code.
int run_app(std::string name, int argc, char** argv, const std::function<int(AppContext&)>& body);

}  // namespace lb4mpi::apps
