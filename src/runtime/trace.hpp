// Per-chunk recording (off by default; one branch per chunk when off) and
// the trace writers: Chrome trace-event JSON (Perfetto), CSV, and the
// per-rank iteration CSV of `000` Table 4.2.
#pragma once
#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "lb4mpi/options.hpp"

namespace lb4mpi::detail {

/// One executed chunk (kind 0) or one interval in which the coordinator
/// served requests (kind 1). Times in seconds since the rank's loop start.
struct TraceRecord {
  std::int32_t kind = 0;
  std::int32_t rank = 0;
  std::int32_t loop = 0;  ///< loop id: loops are numbered in creation order
  std::int32_t step = 0;  ///< execution of the loop (time step), from 0
  std::int64_t start = 0;
  std::int64_t size = 0;
  double t_request = 0.0;  ///< when the rank started obtaining the chunk
  double t_begin = 0.0;    ///< when it started executing it
  double t_end = 0.0;      ///< when its last piece ended
};

class Recorder {
 public:
  void configure(const Options& o, int loop_id, int rank);
  [[nodiscard]] bool on() const { return on_; }
  void clear() {
    records_.clear();
    current_ = static_cast<std::size_t>(-1);
  }
  void chunk(std::int32_t step, std::int64_t start, std::int64_t size, double t_request, double t_begin);
  void chunk_progress(double t_end) {
    if (on_ && current_ < records_.size()) records_[current_].t_end = t_end;
  }
  void serve(std::int32_t step, double t0, double t1);
  /// Collective: gathers the records at rank 0, which (re)writes the trace
  /// files; every rank writes its iteration CSV when asked to.
  void flush(MPI_Comm comm, int rank, Technique technique, Mode mode);

 private:
  bool on_ = false;
  bool trace_ = false;
  bool iterations_ = false;
  int loop_ = 0;
  int rank_ = 0;
  std::string trace_path_;
  std::string iterations_dir_;
  std::vector<TraceRecord> records_;
  std::size_t current_ = static_cast<std::size_t>(-1);  ///< the chunk being executed
};

}  // namespace lb4mpi::detail
