// DCA over MPI-3 one-sided communication (`001` §4, Fig. 3): the step
// counter lives in a window at the coordinator and every rank takes the
// next step with MPI_Fetch_and_op under a passive-target lock_all epoch —
// the coordinator's CPU is not involved. Chunk sizes come from the closed
// form, starts from ClosedWalk, as in the two-sided DCA.
#pragma once
#include <cstdint>
#include <optional>

#include "lb4mpi/techniques/chunk_calculator.hpp"
#include "runtime/closed_walk.hpp"
#include "runtime/executor.hpp"

namespace lb4mpi {

class RmaExecutor final : public Executor {
 public:
  RmaExecutor(MPI_Comm comm, Index first, Index last, const Options& options);
  ~RmaExecutor() override;

 protected:
  std::optional<Chunk> acquire() override;
  void piece_done(const Chunk&, double) override {}
  void on_finish(const Report& report) override;
  void on_start() override;

 private:
  [[nodiscard]] Index fetch_step();

  MPI_Win win_ = MPI_WIN_NULL;
  std::int64_t* counter_ = nullptr;  // coordinator: the window's memory
  std::optional<ChunkCalculator> calc_;
  std::optional<detail::ClosedWalk> walk_;
  bool done_ = false;
};

}  // namespace lb4mpi
