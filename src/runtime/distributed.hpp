// Distributed chunk calculation (DCA, `001` §4-5) over two-sided messages.
// The coordinator only serializes the assignment: it hands out step
// indices. Each rank computes the size of its step with the technique's
// closed form and its start as the sum of the sizes before it (ClosedWalk),
// so the chunks in assignment order are exactly the closed-form sequence.
#pragma once
#include <optional>

#include "lb4mpi/techniques/chunk_calculator.hpp"
#include "runtime/closed_walk.hpp"
#include "runtime/two_sided.hpp"

namespace lb4mpi {

class DistributedExecutor final : public TwoSidedExecutor {
 public:
  using TwoSidedExecutor::TwoSidedExecutor;

 protected:
  void prepare() override;
  void coordinator_start() override;
  std::optional<Chunk> own_next() override;
  detail::WorkMsg answer(int worker, const detail::RequestMsg& request, bool& ended) override;
  std::optional<Chunk> interpret(const detail::WorkMsg& reply) override;
  [[nodiscard]] bool workers_announce_end() const override { return true; }
  void learn(const ChunkTiming&) override {}
  void on_finish(const Report&) override {}

 private:
  std::optional<ChunkCalculator> calc_;  // every rank: the closed form
  std::optional<detail::ClosedWalk> walk_;
  Index next_step_ = 0;                  // coordinator: the shared step counter
};

}  // namespace lb4mpi
