// Techniques that need no assignment at run time (STATIC: step i is rank
// i's one block): every rank computes its own chunk; no message, no window,
// in every execution model.
#pragma once
#include "feedback.hpp"
#include "context.hpp"
#include "runtime/scheduler.hpp"

namespace lb4mpi::rt {

class LocalScheduler final : public Scheduler {
 public:
  LocalScheduler(Context& ctx, AdaptiveFeedback& feedback) : ctx_(ctx), fb_(feedback) {}

  void start(Index /*n*/) override { taken_ = false; }
  Grab acquire(bool /*may_wait*/) override {
    if (taken_) return Grab::of(Grab::Kind::Done);
    taken_ = true;
    ctx_.meter->calculation();
    ClosedSequence seq(fb_.calc());
    const std::optional<Chunk> c = seq.chunk(ctx_.rank);  // block `rank` of the balanced partition
    if (!c) return Grab::of(Grab::Kind::Done);
    Grab g;
    g.kind = Grab::Kind::Piece;
    g.piece = *c;
    g.chunk_id = ctx_.rank;
    g.new_chunk = true;
    g.chunk = *c;
    return g;
  }
  void finished(std::int64_t /*id*/, Index /*size*/, double /*work*/) override {}
  void end(const std::vector<RankFigures>& /*all*/) override {}

 private:
  Context& ctx_;
  AdaptiveFeedback& fb_;
  bool taken_ = false;
};

}  // namespace lb4mpi::rt
