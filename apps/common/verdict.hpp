// Per-rank verdicts for failure tests (docs/ROBUST.md, "Verdicts"): with
// LB4MPI_VERDICT_DIR set, every rank that reaches the end of the app writes
// DIR/rank-R.json, one JSON object:
//   {"rank": R, "pid": ..., "exit_code": C, "robust": b, "steps": K,
//    "failed_ranks": [...], "iterations": I, "checksum": "0x..." | null}
// failed_ranks: the ranks this rank's reports named failed (all steps);
// iterations: what this rank executed; checksum: the committed (robust) or
// reduced checksum of the first step (several loops: the run's checksum) on
// the rank that prints the summary, null elsewhere. A rank that
// died writes nothing, so a harness can tell survivors from victims even
// when `mpiexec --enable-recovery` returns 0 whatever happened.
// Without LB4MPI_VERDICT_DIR both calls do nothing.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "lb4mpi/report.hpp"

#include "app.hpp"

namespace lb4mpi::apps {

struct StepResult;

/// Remembers what this rank's steps report, for verdict_write.
void verdict_note(const AppContext& ctx, const std::vector<StepResult>& steps);
/// Ditto from the reports of a run (all loops and steps) of `steps` steps
/// and the checksum the reporter prints.
void verdict_note(const AppContext& ctx, const std::vector<Report>& reports, std::size_t steps,
                  std::uint64_t checksum);
/// Writes this rank's verdict with its exit code (atomically: a temporary
/// file renamed).
void verdict_write(const AppContext& ctx, int exit_code);

}  // namespace lb4mpi::apps
