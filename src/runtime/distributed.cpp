#include "runtime/distributed.hpp"

namespace lb4mpi {

void DistributedExecutor::prepare() {
  if (!calc_ || calc_->shape().n != n_) calc_.emplace(options_.technique, LoopShape{n_, size_}, options_.params);
  walk_.emplace(*calc_);
}

void DistributedExecutor::coordinator_start() { next_step_ = 0; }

std::optional<Chunk> DistributedExecutor::own_next() {
  const Index step = next_step_++;
  inject_delay();  // the chunk calculation happens here, on the rank that executes it
  return walk_->chunk(step);
}

detail::WorkMsg DistributedExecutor::answer(int, const detail::RequestMsg&, bool& ended) {
  ended = false;  // the worker finds out itself and announces its end
  detail::WorkMsg msg;
  msg.begin = next_step_++;
  msg.size = 1;
  return msg;
}

std::optional<Chunk> DistributedExecutor::interpret(const detail::WorkMsg& reply) {
  inject_delay();
  std::optional<Chunk> c = walk_->chunk(reply.begin);
  if (!c) announce_end();
  return c;
}

}  // namespace lb4mpi
