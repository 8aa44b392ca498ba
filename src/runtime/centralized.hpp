// Centralized chunk calculation (CCA): the master-worker model of LB4MPI
// (`003` §2.4). The coordinator computes and assigns every chunk with the
// recursive form of the technique, and executes chunks itself.
#pragma once
#include <optional>

#include "lb4mpi/techniques/chunk_calculator.hpp"
#include "runtime/two_sided.hpp"

namespace lb4mpi {

class CentralizedExecutor final : public TwoSidedExecutor {
 public:
  using TwoSidedExecutor::TwoSidedExecutor;

 protected:
  void coordinator_start() override;
  std::optional<Chunk> own_next() override;
  detail::WorkMsg answer(int worker, const detail::RequestMsg& request, bool& ended, bool& deferred) override;
  std::optional<Chunk> interpret(const detail::WorkMsg& reply) override;
  void learn(const ChunkTiming& timing) override;
  void on_finish(const Report& report) override;

 private:
  std::optional<ChunkCalculator> calc_;  // coordinator only
};

}  // namespace lb4mpi
