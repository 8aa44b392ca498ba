#include "hier.hpp"

#include <algorithm>
#include <climits>

#include "models.hpp"
#include "runtime/mpi.hpp"

namespace lb4mpi::rt::hier {

namespace {

// Prefetch: the leader asks for the next global piece when what its node
// has not yet handed out falls to half its last global chunk, and at least
// this many iterations per rank of the node (the global round trip and the
// leader's next check, about one iteration each, must fit in it). The
// leaders contend for the global level, so its round trip grows with their
// number: a quarter of the nodes, from 4 up to 16 (simulated, FAC2 at 1024
// / 2048 / 4096 ranks of 16 per node: 1.034 / 1.052 / 1.131 x the bound
// with 4, 1.031 / 1.040 / 1.115 with 16; docs/EXPERIMENTS.md).
Index prefetch_per_rank(int nodes) { return std::clamp<Index>(nodes / 4, 4, 16); }

// A global chunk holds at least this many iterations per rank of the widest
// node. A smaller one leaves ranks of its node idle while the leader asks
// the global level again, whose round trip grows with the leaders that
// contend for it: FAC2's last batches shrink to single iterations, so at
// the end of a loop every leader asked for each of them in turn. Simulated,
// FAC2 at 1024 / 2048 / 4096 ranks of 16 per node: 1.036 / 1.036 / 1.074 x
// the bound without it, 1.036 / 1.032 / 1.039 with 2 (1: 1.050, 3: 1.052,
// 4: 1.053 at 4096; docs/EXPERIMENTS.md).
constexpr Index kGlobalChunkPerRank = 2;

// The global level's parameters: every leader computes the same chunks
// (distributed models), so the floor follows the widest node, and a
// maximum chunk the user set still holds.
TechniqueParams global_params(TechniqueParams p, const std::vector<int>& node_sizes) {
  const Index widest = *std::max_element(node_sizes.begin(), node_sizes.end());
  p.min_chunk = std::max(p.min_chunk, kGlobalChunkPerRank * widest);
  if (p.max_chunk != 0) p.min_chunk = std::min(p.min_chunk, p.max_chunk);
  return p;
}

ExecConfig node_config(const ExecConfig& c) {
  ExecConfig n = c;
  n.technique = c.node_technique;
  return n;
}

}  // namespace

HierScheduler::HierScheduler(Context& ctx)
    : ctx_(ctx),
      group_(node_group(ctx.comm, ctx.config.ranks_per_node)),
      node_config_(node_config(ctx.config)),
      node_fb_(node_config_, group_.node_size) {
  global_timed_ = info(ctx.config.technique).adaptive;
  if (!group_.leader()) return;
  gmeter_ = std::make_unique<Meter>();
  gctx_ = std::make_unique<Context>();
  Context& g = *gctx_;
  g.channel = &group_.leaders_channel;
  g.comm = group_.leaders;
  check_mpi(MPI_Comm_rank(g.comm, &g.rank), "MPI_Comm_rank");
  check_mpi(MPI_Comm_size(g.comm, &g.size), "MPI_Comm_size");
  g.engine = ctx.engine;
  g.meter = gmeter_.get();
  g.config = ctx.config;
  g.config.model = ctx.config.global_model;
  g.config.coordinator = group_.node_of[static_cast<std::size_t>(ctx.config.coordinator)];
  g.config.observe = false;
  // A global chunk goes into the node's pool whole: its leader does not
  // execute it in pieces (it serves between its own sub-chunks' pieces).
  g.config.break_after = INT_MAX;
  g.config.params = global_params(ctx.config.params, group_.node_sizes);
  g.results = &gresults_;
  gfb_ = std::make_unique<AdaptiveFeedback>(g.config, g.size);
  global_rma_ = g.config.model == Model::DistributedRMA;
}

HierScheduler::~HierScheduler() = default;

void HierScheduler::start(Index n) {
  const double now = ctx_.meter->now();
  node_fb_.start(0, now);
  node_fb_.calc().save_state(scratch_);
  state_doubles_ = scratch_.size();
  group_.reserve(Pool::slots_for(state_doubles_));  // collective over the node
  pool_.attach(group_.base);
  cut_.clear();
  cadence_.configure(ctx_.config.break_after);
  if (cadence_.automatic()) cadence_.checked(now);
  published_ = 0;
  last_chunk_ = 1;
  global_over_ = global_done_ = false;
  if (group_.leader()) {
    pool_.reset(scratch_);
    gctx_->epoch = ctx_.epoch;
    gmeter_->reset(true, ctx_.config.delay_us, nullptr);
    gresults_.start(0);
    gfb_->start(n, now);
    if (!gsched_) gsched_ = make_scheduler(*gctx_, *gfb_);
    gsched_->start(n);
  }
  barrier(group_.node);  // the pool is ready before any rank of the node takes from it
}

void HierScheduler::service() {
  if (!gsched_ || global_done_) return;
  if (global_rma_) {
    if (gctx_->is_coordinator() && gctx_->size > 1) {
      int flag = 0;  // the other leaders' atomics progress (MPICH over UCX)
      check_mpi(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, gctx_->comm, &flag, MPI_STATUS_IGNORE), "MPI_Iprobe");
    }
  } else {
    ctx_.engine->drain();  // a coordinator answers, a worker receives its reply
  }
  refill(false, false);
}

bool HierScheduler::refill(bool need, bool may_wait) {
  if (global_over_) return false;
  if (!need) {
    // Prefetch: the next global piece before the node runs dry.
    const Index threshold = std::max<Index>(prefetch_per_rank(group_.nodes) * group_.node_size, last_chunk_ / 2);
    if (pool_.unscheduled(published_) > threshold) return false;
  }
  if (!pool_.room()) return false;
  const double t0 = ctx_.meter->observed() ? clock_now() : 0.0;
  const Grab g = gsched_->acquire(need && may_wait);
  switch (g.kind) {
    case Grab::Kind::Piece: {
      if (g.new_chunk) last_chunk_ = g.chunk.size;
      pool_.publish(g.piece.begin, g.piece.size, g.chunk_id);
      if (ctx_.meter->observed()) ctx_.meter->node_chunk(g.piece.begin, g.piece.size, t0, clock_now());
      published_ += g.piece.size;
      // What the global level learns: the node's time per iteration, its
      // ranks working side by side (measured on the node's sub-chunks).
      double work = 0.0;
      if (global_timed_) {
        const double per = pool_.seconds_per_iteration() / static_cast<double>(group_.node_size);
        work = static_cast<double>(g.piece.size) * std::max(per, 1e-9);
      }
      gsched_->finished(g.chunk_id, g.piece.size, work);
      return true;
    }
    case Grab::Kind::NotNow:
      return false;
    case Grab::Kind::Serving:
    case Grab::Kind::Done:
      global_over_ = true;
      global_done_ = g.kind == Grab::Kind::Done;
      pool_.close();
      return false;
  }
  return false;
}

Grab::Kind HierScheduler::finish_global(bool may_wait) {
  while (!global_done_) {
    const Grab g = gsched_->acquire(may_wait);
    if (g.kind == Grab::Kind::Done) {
      global_done_ = true;
      break;
    }
    if (g.kind == Grab::Kind::Piece) throw Error("lb4mpi: internal error: a global piece after the last");
    if (!may_wait) return Grab::Kind::Serving;
  }
  return Grab::Kind::Done;
}

Grab HierScheduler::acquire(bool may_wait) {
  Grab grab;
  grab.kind = Grab::Kind::Piece;
  if (!cut_.empty()) {
    Index k = cut_.left();
    if (group_.leader()) {
      if (cadence_.due()) {
        service();
        cadence_.checked(cadence_.automatic() ? ctx_.meter->now() : 0.0);
      }
      k = std::min(k, cadence_.budget());
      cadence_.executed(std::min(k, cut_.left()));
    }
    grab.piece = cut_.take(k);
    grab.chunk_id = cut_.id();
    return grab;
  }
  const bool timing = node_fb_.timed() || global_timed_;
  int polls = 0;
  for (;;) {
    if (group_.leader()) refill(false, false);
    const bool over = pool_.over();  // read before taking: then nothing more comes
    const double now = node_fb_.timed() ? ctx_.meter->now() : 0.0;
    if (const std::optional<Pool::Taken> t = pool_.take(node_fb_, group_.node_rank, now, scratch_, polls)) {
      ctx_.meter->calculation();
      cut_.begin(t->chunk, t->id);
      Index k = t->chunk.size;
      if (group_.leader()) {
        k = std::min(k, cadence_.budget());
        cadence_.executed(k);
      }
      grab.piece = cut_.take(k);
      grab.chunk_id = t->id;
      grab.new_chunk = true;
      grab.chunk = t->chunk;
      if (timing) t_piece_ = ctx_.meter->now();
      return grab;
    }
    if (over) {
      if (group_.leader()) {
        const Grab::Kind k = finish_global(may_wait);
        if (k != Grab::Kind::Done) return Grab::of(k);
      }
      return Grab::of(Grab::Kind::Done);
    }
    if (group_.leader()) {
      if (refill(true, may_wait)) continue;
      if (!may_wait && !global_over_) return Grab::of(Grab::Kind::NotNow);
      backoff(polls++);
      continue;
    }
    if (!may_wait) return Grab::of(Grab::Kind::NotNow);
    // The leader refills within about one of its pieces: short pauses
    // (in the simulation build 1-8 us of simulated time) before the usual
    // ones (natively the core is yielded after kSpinPolls polls either way).
    backoff(polls < kSpinPolls ? polls % 4 : polls);
    ++polls;
  }
}

void HierScheduler::finished(std::int64_t /*id*/, Index size, double work) {
  if (!node_fb_.timed() && !global_timed_) return;
  const double now = ctx_.meter->now();
  if (work <= 0.0) work = now - t_piece_;  // the execution did not time it
  t_piece_ = now;
  if (node_fb_.timed()) node_fb_.add(size, work);
  if (global_timed_) pool_.measured(size, work);
}

void HierScheduler::end(const std::vector<RankFigures>& all) {
  if (!group_.leader()) return;
  // What the node technique learnt, for the next execution.
  pool_.state(scratch_, state_doubles_);
  node_fb_.calc().load_state(scratch_);
  // The global level learns from the nodes' figures (AWF: whole time steps).
  std::vector<RankFigures> nodes(static_cast<std::size_t>(group_.nodes));
  for (std::size_t r = 0; r < all.size(); ++r) {
    RankFigures& f = nodes[static_cast<std::size_t>(group_.node_of[r])];
    f.iterations += all[r].iterations;
    f.work_time += all[r].work_time / static_cast<double>(group_.node_sizes[static_cast<std::size_t>(group_.node_of[r])]);
  }
  gsched_->end(nodes);
}

}  // namespace lb4mpi::rt::hier
