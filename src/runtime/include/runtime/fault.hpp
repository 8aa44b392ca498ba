// Failure injection (LB4MPI_FAIL_RANKS, _AFTER, _HOW) at the
// edge of the runtime: an Execution tells its injector when an execution
// starts, when this rank begins a piece and when the loop ends on it, and the injector may stop the
// process there. The runtime core knows nothing else of it; a front end or
// a test may plug its own (Execution::set_fault_injector).
#pragma once
#include <memory>

#include "runtime/config.hpp"

namespace lb4mpi::rt {

class FaultInjector {
 public:
  virtual ~FaultInjector() = default;
  /// An execution starts at `t0` (clock_now()).
  virtual void execution_starts(double t0) = 0;
  /// This rank begins a piece (`new_chunk`: the first piece of a chunk).
  virtual void piece_begins(bool new_chunk) = 0;
  /// The loop ended on this rank, before its end-of-loop exchange (recovery).
  virtual void loop_ends() {}
  /// Recovery's end-of-loop exchange: whether this rank stops in it, and
  /// the moment it may (a coordinator once one rank has the report, a
  /// worker once it has it).
  [[nodiscard]] virtual bool stops_in_report() const { return false; }
  virtual void in_report() {}
};

/// The injector `config` asks for on rank `rank` (ExecConfig::fail_here,
/// fail_after_chunks / fail_after_s, fail_exit); nullptr when none.
std::unique_ptr<FaultInjector> make_fault_injector(const ExecConfig& config, int rank);

}  // namespace lb4mpi::rt
