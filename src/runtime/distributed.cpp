#include "runtime/distributed.hpp"

#include <string>

namespace lb4mpi {

void DistributedExecutor::prepare() {
  granting_ = !info(options_.technique).has_closed_form;
  if (!calc_) {
    calc_.emplace(options_.technique, LoopShape{n_, size_}, options_.params);
  } else {
    calc_->restart(n_);  // adaptive techniques keep what they learned, also when N changed
  }
  if (!granting_) walk_.emplace(*calc_);
}

void DistributedExecutor::coordinator_start() {
  next_step_ = 0;
  locked_.reset();
  waiting_.clear();
}

// ---- closed form: steps only

std::optional<Chunk> DistributedExecutor::own_next() {
  if (granting_) return own_grant();
  const Index step = next_step_++;
  chunk_calculation();  // the chunk calculation happens here, on the rank that executes it
  return walk_->chunk(step);
}

detail::WorkMsg DistributedExecutor::answer(int worker, const detail::RequestMsg&, bool& ended, bool& deferred) {
  if (granting_) {
    if (locked_) {
      deferred = true;
      waiting_.push_back(worker);
      return {};
    }
    return grant_for(worker, ended);
  }
  ended = false;  // the worker finds out itself and announces its end
  detail::WorkMsg msg;
  msg.begin = next_step_++;
  msg.size = 1;
  return msg;
}

std::optional<Chunk> DistributedExecutor::interpret(const detail::WorkMsg& reply) {
  if (!granting_) {
    chunk_calculation();
    std::optional<Chunk> c = walk_->chunk(reply.begin);
    if (!c) announce_end();
    return c;
  }
  if (reply.size == 0) return std::nullopt;  // no more work
  ChunkCalculator::Grant g;
  g.step = reply.step;
  g.start = reply.begin;
  g.rank = rank_;
  g.inputs.remaining = reply.size;
  g.inputs.measured = reply.measured != 0;
  g.inputs.a = reply.a;
  g.inputs.b = reply.b;
  g.inputs.c = reply.c;
  chunk_calculation();  // the chunk calculation, on the rank that executes the chunk
  const Chunk c = calc_->evaluate(g);
  send_commit(c.size);
  return c;
}

// ---- no closed form: grant, evaluate, commit

detail::WorkMsg DistributedExecutor::grant_for(int worker, bool& ended) {
  detail::WorkMsg msg;
  const std::optional<ChunkCalculator::Grant> g = calc_->grant(worker);
  if (!g) {
    ended = true;  // size 0: no more work
    return msg;
  }
  locked_ = g;
  msg.begin = g->start;
  msg.size = g->inputs.remaining;
  msg.step = g->step;
  msg.measured = g->inputs.measured ? 1 : 0;
  msg.a = g->inputs.a;
  msg.b = g->inputs.b;
  msg.c = g->inputs.c;
  return msg;
}

void DistributedExecutor::on_commit(int worker, const detail::RequestMsg& commit) {
  if (!locked_ || locked_->rank != worker) {
    throw Error("lb4mpi: internal error: rank " + std::to_string(worker) + " committed a grant it does not hold");
  }
  calc_->commit(*locked_, commit.commit);
  locked_.reset();
  // Answer the requests that waited behind the lock, one grant at a time.
  while (!locked_ && !waiting_.empty()) {
    const int next = waiting_.front();
    waiting_.pop_front();
    bool ended = false;
    const detail::WorkMsg msg = grant_for(next, ended);
    send_work(next, msg, ended);
  }
}

std::optional<Chunk> DistributedExecutor::own_grant() {
  // A worker's commit is one message away. Loops in flight together do not
  // wait for it here: the rank moves on and comes back.
  while (locked_) {
    if (nonblocking()) {
      serve_available();
      if (locked_) {
        would_block();
        return std::nullopt;
      }
      break;
    }
    serve_one_blocking();
  }
  const std::optional<ChunkCalculator::Grant> g = calc_->grant(rank_);
  if (!g) return std::nullopt;
  chunk_calculation();
  const Chunk c = calc_->evaluate(*g);
  calc_->commit(*g, c.size);
  return c;
}

void DistributedExecutor::learn(const ChunkTiming& timing) {
  if (granting_) calc_->record(timing);
}

void DistributedExecutor::on_finish(const Report& report) {
  if (!granting_ || rank_ != options_.coordinator) return;
  // AWF learns across executions of the loop (time steps).
  for (int r = 0; r < static_cast<int>(report.ranks.size()); ++r) {
    const RankReport& rr = report.ranks[static_cast<std::size_t>(r)];
    if (rr.iterations > 0) calc_->record_time_step(r, rr.iterations, rr.work_time);
  }
}

}  // namespace lb4mpi
