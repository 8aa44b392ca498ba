#include "trace/recorder.hpp"

#include <algorithm>
#include <cmath>

#include "lb4mpi/techniques/chunk_calculator.hpp"
#include "runtime/agreement.hpp"
#include "runtime/clock.hpp"
#include "trace/gather.hpp"
#include "writers.hpp"

namespace lb4mpi::trace {

std::size_t trace_reserve_estimate(const Options& o, Index n, int p, int rank) {
  constexpr std::size_t kMin = 16;
  if (n <= 0) return kMin;
  p = std::max(p, 1);
  double total = 0.0;  // chunks of the whole loop
  try {
    total = static_cast<double>(ChunkCalculator(o.technique, LoopShape{n, p}, o.params).estimated_chunks());
  } catch (const Error&) {
    return kMin;  // invalid parameters: the loop's start reports them
  }
  // This rank's share, twice the even one (faster ranks take more chunks),
  // and on a coordinator that serves requests one serve interval per chunk.
  const double pp = static_cast<double>(p);
  double mine = 2.0 * std::ceil(total / pp) + static_cast<double>(kMin);
  if (o.mode != Mode::DistributedRMA && rank == o.coordinator) mine += total + pp;
  if (!(mine < static_cast<double>(kTraceReserveCap))) return kTraceReserveCap;
  return static_cast<std::size_t>(mine);
}

Recorder::Recorder(const Options& o, int loop_id, int rank)
    : options_(o),
      trace_(!o.trace.empty()),
      iterations_(o.iterations_info),
      loop_(loop_id),
      rank_(rank),
      iterations_dir_(o.iterations_dir.empty() ? std::string("lb4mpi_iterations") : o.iterations_dir) {}

// Trace times of every loop of the process count from one origin, taken at
// the first loop start — right after a collective, so the ranks' origins
// agree closely — and time steps follow each other on a rank's track.
double Recorder::origin() const {
  static const double t = rt::clock_now();
  return t;
}

void Recorder::begin(std::int32_t step, Index n, int p) {
  clear();
  step_ = step;
  (void)origin();
  const std::size_t want = trace_reserve_estimate(options_, n, p, rank_);
  if (records_.capacity() < want) records_.reserve(want);
}

TraceRecord Recorder::record(std::int32_t kind, std::int64_t start, Index size, double t_request,
                             double t_begin) const {
  TraceRecord r;
  r.kind = kind;
  r.rank = rank_;
  r.loop = loop_;
  r.step = step_;
  r.start = start;
  r.size = size;
  r.t_request = t_request;
  r.t_begin = t_begin;
  r.t_end = t_begin;
  return r;
}

void Recorder::chunk(std::int64_t start, Index size, double t_request, double t_begin) {
  const TraceRecord r = record(kTraceChunk, start, size, t_request, t_begin);
  current_ = records_.size();
  run_ = current_;
  records_.push_back(r);
}

void Recorder::piece(double t_begin, double t_end, bool resumed) {
  if (current_ >= records_.size()) return;
  if (!resumed && run_ < records_.size()) {
    records_[run_].t_end = t_end;  // the run goes on
  } else {
    // Another loop's piece ran since this chunk's last piece: a new run.
    const TraceRecord& c = records_[current_];
    TraceRecord r = record(kTraceContinuation, c.start, c.size, t_begin, t_begin);
    r.t_end = t_end;
    run_ = records_.size();
    records_.push_back(r);
  }
}

void Recorder::node_chunk(std::int64_t start, Index size, double t_request, double t_begin) {
  if (!trace_) return;
  const TraceRecord r = record(kTraceGlobal, start, size, t_request, t_begin);
  if (global_ != kNone) records_[global_].t_end = t_begin;
  global_ = records_.size();
  records_.push_back(r);
}

void Recorder::serve(double t0, double t1) {
  if (!trace_) return;
  TraceRecord r = record(kTraceServe, 0, 0, t0, t0);
  r.t_end = t1;
  records_.push_back(r);
}

std::string Recorder::flush(MPI_Comm comm, int rank, Technique technique, Mode mode, const std::string& selection) {
  struct ClearAtExit {
    Recorder& r;
    ~ClearAtExit() { r.clear(); }
  } clear_at_exit{*this};
  std::string error;  // this rank's: the gather (every rank), a trace file (rank 0), its CSV
  if (global_ != kNone) {  // the last global chunk lasts to the leader's end
    for (const TraceRecord& r : records_) records_[global_].t_end = std::max(records_[global_].t_end, r.t_end);
  }
  if (trace_) {
    std::vector<TraceRecord> all;
    error = gather_records(comm, rank, records_, all);
    if (rank == 0 && error.empty()) {
      int size = 0;
      MPI_Comm_size(comm, &size);
      try {
        // This execution's records, appended to what the files already hold.
        std::vector<Stored> kept;
        kept.reserve(all.size());
        for (const TraceRecord& r : all) kept.push_back(Stored{r, technique, mode});
        write_trace(options_.trace, kept, size, selection);
      } catch (const Error& e) {
        error = e.what();
      }
    }
  }
  if (iterations_ && error.empty()) {
    try {
      write_iterations(iterations_dir_, rank, technique, records_);
    } catch (const Error& e) {
      error = e.what();
    }
  }
  // Every rank learns the lowest failing rank's message (one allreduce when
  // all went well), so no rank carries on alone.
  try {
    rt::agree(comm, error, 0);
  } catch (const Error& e) {
    return e.what();
  }
  return {};
}

}  // namespace lb4mpi::trace
