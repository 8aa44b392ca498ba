// Tracing, a front end of the runtime: a Recorder observes one loop's
// executions on a rank (rt::ChunkObserver) and, at the end of each, gathers
// every rank's records at rank 0, which writes the trace files: Chrome
// trace-event JSON (Perfetto), CSV, and the per-rank iteration CSV of `000`
// Table 4.2 (docs/TRACING.md). A loop without tracing has no Recorder, and
// its execution then reads no clock for it.
#pragma once
#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "lb4mpi/options.hpp"
#include "runtime/observer.hpp"

namespace lb4mpi::trace {

/// What a TraceRecord describes.
enum TraceKind : std::int32_t {
  kTraceChunk = 0,         ///< a chunk: its first run of pieces
  kTraceServe = 1,         ///< the coordinator serving requests
  kTraceContinuation = 2,  ///< a later run of a chunk's pieces (another loop's piece came in between)
  kTraceGlobal = 3,        ///< hierarchical mode: a global chunk a node's leader obtained for its node
};

/// One record of a rank's track. Times in seconds since the process's trace
/// origin (its first loop start).
///
/// A chunk executes as one or more pieces (the coordinator's break_after, a
/// worker's request_when). Consecutive pieces of one chunk form a run; a
/// run ends when a piece of another loop (loops in flight together) runs on
/// the rank. The chunk record covers the chunk's first run; each later run
/// is a continuation record with the chunk's start and size. Events of one
/// rank thus never partially overlap.
struct TraceRecord {
  std::int32_t kind = kTraceChunk;
  std::int32_t rank = 0;
  std::int32_t loop = 0;  ///< loop id: loops are numbered in creation order
  std::int32_t step = 0;  ///< execution of the loop (time step), from 0
  std::int64_t start = 0;  ///< chunk: first iteration (absolute); serve: 0
  std::int64_t size = 0;   ///< chunk: iterations; serve: 0
  double t_request = 0.0;  ///< chunk: when the rank started obtaining it; else t_begin
  double t_begin = 0.0;    ///< when the run (or serve interval) began
  double t_end = 0.0;      ///< when the run's last piece (or the serve interval) ended
};

/// Records to reserve on `rank` before an execution of a loop of `n`
/// iterations on `p` ranks: the technique's estimate of its chunk count
/// (twice the even share) plus, on a serving coordinator, one serve interval
/// per chunk; at most kTraceReserveCap.
std::size_t trace_reserve_estimate(const Options& o, Index n, int p, int rank);
inline constexpr std::size_t kTraceReserveCap = std::size_t{1} << 16;

/// Whether `o` asks for a trace or for iteration files (a Recorder is needed).
inline bool tracing(const Options& o) { return !o.trace.empty() || o.iterations_info; }

class Recorder final : public rt::ChunkObserver {
 public:
  /// Loop `loop_id` (loops are numbered in creation order, the same on
  /// every rank) on `rank`.
  Recorder(const Options& o, int loop_id, int rank);

  [[nodiscard]] double origin() const override;
  /// Start of an execution: clears and reserves (trace_reserve_estimate; the
  /// capacity is kept across executions), so that recording allocates
  /// nothing in the common case.
  void begin(std::int32_t step, Index n, int p) override;
  void chunk(std::int64_t start, Index size, double t_request, double t_begin) override;
  /// A piece of the current chunk ran from t_begin to t_end. Extends the
  /// chunk's current run, or opens a continuation when the runtime says
  /// another loop's piece ended in between (`resumed`).
  void piece(double t_begin, double t_end, bool resumed) override;
  void serve(double t0, double t1) override;
  /// Recorded on the leader's rank as a kTraceGlobal record. Its span runs
  /// from its arrival (t_begin) to the next global chunk's arrival; the
  /// last one's to the end of the leader's last record of the execution.
  void node_chunk(std::int64_t start, Index size, double t_request, double t_begin) override;
  /// Collective: gathers the records at rank 0, which appends them to the
  /// trace files; every rank writes its iteration CSV when asked to. Returns
  /// "" or, on every rank alike, why an output could not be written (the
  /// records do not fit one gather, rank 0 cannot write a trace file, a rank
  /// cannot write its iteration CSV: the lowest such rank's message). Never
  /// throws for these, so the caller still gets the loop's report out.
  /// `selection`: automatic selection's reason for this execution's
  /// technique (an event in the JSON trace), or "".
  [[nodiscard]] std::string flush(MPI_Comm comm, int rank, Technique technique, Mode mode,
                                  const std::string& selection = {});

  [[nodiscard]] const std::vector<TraceRecord>& records() const { return records_; }
  void clear() {
    records_.clear();
    current_ = kNone;
    run_ = kNone;
    global_ = kNone;
  }

 private:
  /// A record of this recorder's rank, loop and step, ending where it begins.
  [[nodiscard]] TraceRecord record(std::int32_t kind, std::int64_t start, Index size, double t_request,
                                   double t_begin) const;
  static constexpr std::size_t kNone = static_cast<std::size_t>(-1);

  Options options_;
  bool trace_ = false;
  bool iterations_ = false;
  int loop_ = 0;
  int rank_ = 0;
  std::int32_t step_ = 0;
  std::string iterations_dir_;
  std::vector<TraceRecord> records_;
  std::size_t current_ = kNone;  ///< the chunk record being executed
  std::size_t run_ = kNone;      ///< the record its current run extends (the chunk or a continuation)
  std::size_t global_ = kNone;   ///< the leader's latest global chunk record (hierarchical mode)
};

/// Checked when a loop starts, before any work: the files this rank will
/// write (rank 0: the trace; every rank: its iteration CSV, whose folder is
/// created now) can be written. "" when fine, else the error naming the
/// path, its variable and the reason.
std::string check_outputs(const Options& o, int rank);

}  // namespace lb4mpi::trace
