#include "runtime/centralized.hpp"

namespace lb4mpi {

void CentralizedExecutor::coordinator_start() {
  if (calc_) {
    calc_->restart(n_);  // keeps what adaptive techniques learned, also when N changed
  } else {
    calc_.emplace(options_.technique, LoopShape{n_, size_}, options_.params);
  }
}

std::optional<Chunk> CentralizedExecutor::own_next() {
  if (calc_->remaining() == 0) return std::nullopt;
  chunk_calculation();
  return calc_->next(rank_);
}

detail::WorkMsg CentralizedExecutor::answer(int worker, const detail::RequestMsg&, bool& ended, bool&) {
  detail::WorkMsg msg;
  if (calc_->remaining() > 0) chunk_calculation();
  if (const std::optional<Chunk> c = calc_->next(worker)) {
    msg.begin = c->begin;
    msg.size = c->size;
  } else {
    ended = true;
  }
  return msg;
}

std::optional<Chunk> CentralizedExecutor::interpret(const detail::WorkMsg& reply) {
  if (reply.size == 0) return std::nullopt;
  return Chunk{reply.begin, reply.size};
}

void CentralizedExecutor::learn(const ChunkTiming& timing) { calc_->record(timing); }

void CentralizedExecutor::on_finish(const Report& report) {
  // AWF learns across executions of the loop (time steps).
  if (!calc_) return;
  for (int r = 0; r < static_cast<int>(report.ranks.size()); ++r) {
    const RankReport& rr = report.ranks[static_cast<std::size_t>(r)];
    if (rr.iterations > 0) calc_->record_time_step(r, rr.iterations, rr.work_time);
  }
}

}  // namespace lb4mpi
