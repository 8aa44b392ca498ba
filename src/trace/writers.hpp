// The trace files: Chrome trace-event JSON (Perfetto), CSV, and the
// per-rank iteration CSV of `000` Table 4.2 (docs/TRACING.md). Rank 0 writes
// the trace files, every rank its iteration CSV. Within a process the first
// write of a file replaces it and later ones append.
#pragma once
#include <string>
#include <vector>

#include "lb4mpi/options.hpp"
#include "trace/recorder.hpp"

namespace lb4mpi::trace {

/// A gathered record with the loop's technique and mode.
struct Stored {
  TraceRecord r;
  Technique technique;
  Mode mode;
};

/// Appends one execution's records to the trace file(s) of `path`
/// ("x.json", "x.csv", or both as path + ".json" and path + ".csv"); `ranks`
/// of the communicator all get a named track; `selection` (automatic
/// selection's reason for the execution's technique, or "") becomes one
/// instant event in the JSON trace. Throws lb4mpi::Error.
void write_trace(const std::string& path, const std::vector<Stored>& all, int ranks, const std::string& selection = {});
/// Appends this rank's chunks (with their continuations) to
/// <dir>/iterations_rank<rank>.csv. Throws lb4mpi::Error.
void write_iterations(const std::string& dir, int rank, Technique technique, const std::vector<TraceRecord>& records);

}  // namespace lb4mpi::trace
