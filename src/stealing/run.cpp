#include <algorithm>

#include "runtime/clock.hpp"
#include "runtime/mpi.hpp"
#include "stealing/engine.hpp"

namespace lb4mpi::st {

Run::Run(MPI_Comm comm, std::int32_t epoch, const Config& config, std::vector<Range> owned, Mover* in, Mover* out,
         Body body, rt::ProgressEngine& progress)
    : comm_(comm), epoch_(epoch), config_(config), owned_(std::move(owned)), in_(in), out_(out), body_(body),
      progress_(&progress) {
  rt::check_mpi(MPI_Comm_rank(comm_, &rank_), "MPI_Comm_rank");
  rt::check_mpi(MPI_Comm_size(comm_, &size_), "MPI_Comm_size");
  if (!config_.speeds.empty()) {
    const double fastest = *std::max_element(config_.speeds.begin(), config_.speeds.end());
    slowdown_ = fastest / config_.speeds[static_cast<std::size_t>(rank_)];
  }
  cadence_.configure(config_.break_after);
  t0_ = now();
}

double Run::now() { return rt::clock_now(); }

void Run::execute(Chunk c, const Place& in, const Place& out, bool new_chunk) {
  const double t0 = now();
  cadence_.resume(t0);  // only the piece's own time teaches the cadence
  body_.fn(body_.state, c, in, out);
  double t1 = now();
  if (slowdown_ > 1.0) {  // emulated heterogeneity: a slower rank
    rt::spin_for_us((slowdown_ - 1.0) * (t1 - t0) * 1e6);
    t1 = now();
  }
  loop_.work_time += t1 - t0;
  loop_.iterations += c.size;
  if (new_chunk) ++loop_.chunks;
  if (config_.record_chunks) {
    if (new_chunk || records_.empty()) {
      records_.push_back(ChunkRecord{c.begin, c.size, t0 - t0_, t1 - t0_});
    } else {
      records_.back().size += c.size;
      records_.back().t_end = t1 - t0_;
    }
  }
  loop_.finish_time = t1 - t0_;
  cadence_.executed(c.size);
  cadence_.checked(t1);
}

void Run::exited() {
  loop_.exit_time = now() - t0_;
  if (loop_.iterations == 0) loop_.finish_time = loop_.exit_time;
}

}  // namespace lb4mpi::st
