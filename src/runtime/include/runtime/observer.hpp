// What an execution tells an observer (tracing) about a rank's work, as it
// happens. Off by default: without an observer no piece is timed for it.
// Times are seconds since the observer's origin (ChunkObserver::origin()).
#pragma once
#include <cstdint>

#include "lb4mpi/types.hpp"

namespace lb4mpi::rt {

class ChunkObserver {
 public:
  /// The process-wide time origin the observer's times count from.
  [[nodiscard]] virtual double origin() const = 0;
  /// An execution (time step `step`, from 0) of `n` iterations on `p` ranks begins.
  virtual void begin(std::int32_t step, Index n, int p) = 0;
  /// A new chunk [start, start + size) (absolute indices) was obtained from
  /// t_request to t_begin.
  virtual void chunk(std::int64_t start, Index size, double t_request, double t_begin) = 0;
  /// A piece of the current chunk ran from t_begin to t_end. `resumed`: a
  /// piece of another loop ended on this thread since this chunk's previous
  /// piece (or since the chunk was obtained), so this piece starts a new run
  /// of the chunk (asynchronous loops interleave their pieces).
  virtual void piece(double t_begin, double t_end, bool resumed) = 0;
  /// The coordinator served other ranks from t0 to t1.
  virtual void serve(double t0, double t1) = 0;
  /// Hierarchical mode, on a node's leader: a global chunk [start, start +
  /// size) (absolute indices) obtained for its node from t_request to
  /// t_begin; the node's ranks then take sub-chunks of it (chunk()).
  virtual void node_chunk(std::int64_t start, Index size, double t_request, double t_begin) = 0;

 protected:
  ~ChunkObserver() = default;
};

}  // namespace lb4mpi::rt
