#include "assign.hpp"

#include <algorithm>
#include <string>

namespace lb4mpi::rt {
namespace {

// CCA (`003` §2.4): the coordinator computes every chunk with the recursive
// form, for itself and for the workers; a worker receives finished chunks.
class Recursive final : public Assignment {
 public:
  Recursive(Context& ctx, AdaptiveFeedback& fb) : ctx_(ctx), fb_(fb) {}

  void start(Index /*n*/) override {}

  Own own_next() override {
    Own own;
    ChunkCalculator& calc = fb_.calc();
    if (calc.remaining() == 0) return own;  // None
    own.id = calc.step();
    ctx_.meter->calculation();
    own.chunk = *calc.next(ctx_.rank);
    own.kind = Own::Kind::Chunk;
    return own;
  }

  bool answer(int worker, Reply& reply) override {
    ChunkCalculator& calc = fb_.calc();
    if (calc.remaining() == 0) {
      reply = Reply::of(kNone);
      return true;
    }
    ctx_.meter->calculation();
    ChunkReply r;
    r.id = calc.step();
    const Chunk c = *calc.next(worker);
    r.chunk = c;
    if (info(ctx_.config.technique).constant_size) {
      // Several chunks in one reply (AskMessage::want): the next steps of a
      // constant size follow on, so the reply says where they start, how
      // many and of what size (batch_part); the last one may be shorter
      // only as the loop's last. `each` set tells the worker it may ask.
      // Towards the loop's end batches shrink (at most 1/(4P) of what
      // remains), so that the last chunks still balance.
      r.each = c.size;
      const Index share = calc.remaining() / (4 * static_cast<Index>(ctx_.size) * std::max<Index>(1, c.size));
      const auto most = static_cast<std::int32_t>(std::min<Index>(want_, 1 + share));
      while (r.count < most && calc.remaining() > 0) {
        ctx_.meter->calculation();
        const Chunk more = *calc.next(worker);
        r.chunk.size += more.size;
        ++r.count;
        if (more.size != c.size) break;
      }
    }
    reply = Reply::of(r);
    return true;
  }

  Got interpret(const Reply& reply) override { return carried_chunk(reply); }

 private:
  Context& ctx_;
  AdaptiveFeedback& fb_;
};

// DCA, closed form (`001` §4-5): the coordinator only serializes the
// assignment — it hands out step numbers and computes nothing. Each rank
// computes the size of its step with the closed form and its start as the
// sum of the sizes before it (ClosedSequence), so the chunks in assignment
// order are exactly the closed-form sequence.
class Steps final : public Assignment {
 public:
  Steps(Context& ctx, AdaptiveFeedback& fb) : ctx_(ctx), fb_(fb) {}

  void start(Index /*n*/) override {
    next_step_ = 0;
    seq_.emplace(fb_.calc());
  }

  Own own_next() override {
    Own own;
    own.id = next_step_++;
    ctx_.meter->calculation();  // on the rank that executes the chunk
    if (const std::optional<Chunk> c = seq_->chunk(own.id)) {
      own.kind = Own::Kind::Chunk;
      own.chunk = *c;
    }
    return own;
  }

  bool answer(int /*worker*/, Reply& reply) override {
    StepReply r;
    r.id = next_step_++;
    if (ctx_.bounded()) {
      // Recovery keeps the ranges, to hand a chunk out again: the
      // coordinator knows the step's range too, and when the steps are over.
      const std::optional<Chunk> c = seq_->chunk(r.id);
      if (!c) {
        reply = Reply::of(kNone);
        return true;
      }
      r.chunk = *c;
    }
    reply = Reply::of(r);
    return true;
  }

  Got interpret(const Reply& reply) override {
    Got got;
    if (reply.kind != kStep) return got;
    const StepReply& step = reply.body.step;
    ctx_.meter->calculation();  // on the rank that executes the chunk
    const std::optional<Chunk> c = seq_->chunk(step.id);
    if (!c) return got;  // the step is past the end: no more work
    got.end = false;
    got.chunk = *c;
    got.id = step.id;
    return got;
  }

 private:
  Context& ctx_;
  AdaptiveFeedback& fb_;
  std::optional<ClosedSequence> seq_;
  std::int64_t next_step_ = 0;  // the coordinator's shared step counter
};

// DCA without a closed form (WF, AWF, AWF-B..E, AF): the extra
// synchronization `001` §4 describes for AF. The coordinator grants the next
// step with the inputs only it holds (R_i, batch chunk, weight, D, E); the
// requester evaluates the formula and commits the size; until the commit
// arrives the assignment is locked and other requests wait.
//
// Recovery: a rank may fail between its grant and its commit, and the
// lock would then hold the loop forever. The formula is a function of the
// grant's inputs alone, so the coordinator evaluates it too when it grants
// and commits at once (the reply carries the size): nothing is locked, the
// ledger knows the chunk's range from the start (to hand it out again), and
// no commit message travels. The rank still evaluates its chunk from the
// inputs, and checks that it is the coordinator's.
class Grants final : public Assignment {
 public:
  Grants(Context& ctx, AdaptiveFeedback& fb) : ctx_(ctx), fb_(fb) {}

  void start(Index /*n*/) override {
    locked_.reset();
    waiting_.clear();
  }

  Own own_next() override {
    Own own;
    if (locked_) {
      own.kind = Own::Kind::Blocked;  // a worker's commit is one message away
      return own;
    }
    ChunkCalculator& calc = fb_.calc();
    const std::optional<ChunkCalculator::Grant> g = calc.grant(ctx_.rank);
    if (!g) return own;
    ctx_.meter->calculation();
    own.chunk = calc.evaluate(*g);
    calc.commit(*g, own.chunk.size);
    own.id = g->step;
    own.kind = Own::Kind::Chunk;
    return own;
  }

  bool answer(int worker, Reply& reply) override {
    if (locked_) {
      waiting_.push_back(worker);
      return false;
    }
    grant(worker, reply);
    if (ctx_.bounded() && locked_) {  // evaluated and committed here: see above
      const Chunk c = fb_.calc().evaluate(*locked_);
      fb_.calc().commit(*locked_, c.size);
      reply.body.grant.grant.evaluated = c.size;
      locked_.reset();
    }
    return true;
  }

  void commit(int worker, const CommitMessage& commit, std::vector<std::pair<int, Reply>>& released) override {
    if (!locked_ || locked_->rank != worker || locked_->step != commit.step) {
      throw Error("lb4mpi: internal error: rank " + std::to_string(worker) + " committed a grant it does not hold");
    }
    fb_.calc().commit(*locked_, commit.chunk.size);
    locked_.reset();
    // The requests that waited behind the lock, one grant at a time.
    while (!locked_ && !waiting_.empty()) {
      const int next = waiting_.front();
      waiting_.pop_front();
      Reply r;
      grant(next, r);
      released.emplace_back(next, r);
    }
  }

  Got interpret(const Reply& reply) override {
    Got got;
    if (reply.kind != kGrant) return got;
    const GrantReply& granted = reply.body.grant;
    ChunkCalculator::Grant g;
    g.step = granted.id;
    g.start = granted.grant.start;
    g.rank = ctx_.rank;
    g.inputs = granted.grant.inputs;
    ctx_.meter->calculation();  // on the rank that executes the chunk
    got.chunk = fb_.calc().evaluate(g);
    got.id = g.step;
    got.end = false;
    got.commit = !ctx_.bounded();  // recovery: committed by the coordinator when it granted
    if (ctx_.bounded() && got.chunk.size != granted.grant.evaluated) {
      throw Error("lb4mpi: internal error: rank " + std::to_string(ctx_.rank) + " evaluated step " +
                  std::to_string(g.step) + " as " + std::to_string(got.chunk.size) + " iterations, the coordinator as " +
                  std::to_string(granted.grant.evaluated));
    }
    return got;
  }

  /// Recovery locks nothing: a worker may ask before its chunk ends.
  [[nodiscard]] bool prefetch() const override { return ctx_.bounded(); }

 private:
  void grant(int worker, Reply& reply) {
    const std::optional<ChunkCalculator::Grant> g = fb_.calc().grant(worker);
    if (!g) {
      reply = Reply::of(kNone);
      return;
    }
    locked_ = g;
    GrantReply r;
    r.id = g->step;
    r.grant.start = g->start;
    r.grant.inputs = g->inputs;
    reply = Reply::of(r);
  }

  Context& ctx_;
  AdaptiveFeedback& fb_;
  std::optional<ChunkCalculator::Grant> locked_;  // the outstanding grant
  std::deque<int> waiting_;                       // who waits behind it
};

}  // namespace

std::unique_ptr<Assignment> make_assignment(Model model, Context& ctx, AdaptiveFeedback& feedback) {
  if (model == Model::Centralized) return std::make_unique<Recursive>(ctx, feedback);
  if (info(ctx.config.technique).has_closed_form) return std::make_unique<Steps>(ctx, feedback);
  return std::make_unique<Grants>(ctx, feedback);
}

}  // namespace lb4mpi::rt
