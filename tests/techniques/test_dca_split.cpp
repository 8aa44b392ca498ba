// DCA for techniques without a closed form: the coordinator's grant, the
// executing rank's evaluation and the coordinator's commit give exactly the
// chunks of the recursive form; a replica loaded from the saved state does too.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "lb4mpi/techniques/chunk_calculator.hpp"

namespace lb4mpi {
namespace {

std::vector<Technique> without_closed_form() {
  std::vector<Technique> v;
  for (const auto& i : all_techniques()) {
    if (!i.has_closed_form) v.push_back(i.technique);
  }
  return v;
}

// Rank r is (r + 1) times slower; ranks ask round-robin; every chunk is fed back.
ChunkTiming timing(int rank, Index size) {
  const double t = static_cast<double>(size) * 1e-6 * (rank + 1);
  return ChunkTiming{rank, size, t, t * 1.1};
}

TEST(DcaSplit, GrantEvaluateCommitEqualsRecursiveForm) {
  const LoopShape shape{10007, 4};
  TechniqueParams params;
  params.weights = {1.0, 2.0, 1.0, 0.5};
  for (Technique t : without_closed_form()) {
    SCOPED_TRACE(std::string(name(t)));
    ChunkCalculator recursive(t, shape, params);
    ChunkCalculator coordinator(t, shape, params);
    const ChunkCalculator executor(t, shape, params);  // knows nothing but the grants
    for (int time_step = 0; time_step < 2; ++time_step) {
      int rank = 0;
      Index steps = 0;
      while (true) {
        const std::optional<Chunk> want = recursive.next(rank);
        const std::optional<ChunkCalculator::Grant> g = coordinator.grant(rank);
        ASSERT_EQ(want.has_value(), g.has_value());
        if (!want) break;
        const Chunk got = executor.evaluate(*g);
        coordinator.commit(*g, got.size);
        ASSERT_EQ(got.begin, want->begin) << "step " << steps;
        ASSERT_EQ(got.size, want->size) << "step " << steps;
        recursive.record(timing(rank, got.size));
        coordinator.record(timing(rank, got.size));
        rank = (rank + 1) % shape.p;
        ++steps;
      }
      EXPECT_EQ(coordinator.scheduled(), shape.n);
      for (int r = 0; r < shape.p; ++r) {
        recursive.record_time_step(r, 100, 1e-4 * (r + 1));
        coordinator.record_time_step(r, 100, 1e-4 * (r + 1));
      }
      recursive.restart();
      coordinator.restart();
    }
  }
}

TEST(DcaSplit, ReplicaFromSavedStateContinuesIdentically) {
  const LoopShape shape{5000, 3};
  const TechniqueParams params;
  for (Technique t : without_closed_form()) {
    SCOPED_TRACE(std::string(name(t)));
    ChunkCalculator original(t, shape, params);
    ChunkCalculator replica(t, shape, params);
    std::vector<double> state;
    int rank = 0;
    while (original.remaining() > 0) {
      original.save_state(state);
      replica.load_state(state);
      const std::optional<Chunk> a = original.next(rank);
      const std::optional<Chunk> b = replica.next(rank);
      ASSERT_TRUE(a && b);
      ASSERT_EQ(a->begin, b->begin);
      ASSERT_EQ(a->size, b->size);
      original.record(timing(rank, a->size));
      rank = (rank + 1) % shape.p;
    }
  }
}

TEST(DcaSplit, ClosedFormTechniquesRefuseGrants) {
  ChunkCalculator c(Technique::GSS, LoopShape{100, 2}, TechniqueParams{});
  EXPECT_THROW((void)c.grant(0), Error);
}

}  // namespace
}  // namespace lb4mpi
