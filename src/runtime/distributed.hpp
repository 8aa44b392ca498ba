// Distributed chunk calculation (DCA, `001` §4-5) over two-sided messages.
//
// Techniques with a closed form: the coordinator only serializes the
// assignment — it hands out step indices. Each rank computes the size of its
// step with the closed form and its start as the sum of the sizes before it
// (ClosedWalk), so the chunks in assignment order are exactly the closed-form
// sequence, and the coordinator computes nothing.
//
// Techniques without one (WF, AWF, AWF-B..E, AF): the extra synchronization
// `001` §4 describes for AF. The coordinator grants the next step with the
// inputs only it holds (R_i, batch chunk, weight, D, E); the requester
// evaluates the formula and commits the size; until the commit arrives the
// assignment is locked and other requests wait (one message latency).
#pragma once
#include <deque>
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
  detail::WorkMsg answer(int worker, const detail::RequestMsg& request, bool& ended, bool& deferred) override;
  void on_commit(int worker, const detail::RequestMsg& commit) override;
  std::optional<Chunk> interpret(const detail::WorkMsg& reply) override;
  [[nodiscard]] bool workers_announce_end() const override { return !granting_; }
  [[nodiscard]] bool prefetch() const override { return !granting_; }
  void learn(const ChunkTiming& timing) override;
  void on_finish(const Report& report) override;

 private:
  std::optional<Chunk> own_grant();
  detail::WorkMsg grant_for(int worker, bool& ended);

  bool granting_ = false;                // the technique has no closed form
  std::optional<ChunkCalculator> calc_;  // every rank: closed form / evaluation; coordinator: state
  std::optional<detail::ClosedWalk> walk_;
  Index next_step_ = 0;                  // coordinator, closed form: the shared step counter
  // Coordinator, granting: the outstanding grant and who waits behind it.
  std::optional<ChunkCalculator::Grant> locked_;
  std::deque<int> waiting_;
};

}  // namespace lb4mpi
