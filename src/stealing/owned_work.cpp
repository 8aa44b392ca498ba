#include "stealing/owned_work.hpp"

#include <algorithm>

namespace lb4mpi::st {

OwnedWork::OwnedWork(const Run& run) : back_(run.mine().size()), rank_(run.rank()) {
  const Config& c = run.config();
  if (c.chunking && back_ > 0) calc_.emplace(*c.chunking, LoopShape{back_, run.size()}, c.params);
}

std::optional<Chunk> OwnedWork::next_chunk(Index piece) {
  if (front_ >= back_) return std::nullopt;
  Index k = piece;
  if (calc_) {
    // The calculator believes more is left than thieves left (never less),
    // so its sequence runs as long as there is work.
    const std::optional<Chunk> c = calc_->next(rank_);
    k = c ? c->size : 1;
  }
  k = std::clamp<Index>(k, 1, back_ - front_);
  const Chunk out{front_, k};
  front_ += k;
  return out;
}

Chunk OwnedWork::give(Index k) {
  k = std::clamp<Index>(k, 0, back_ - front_);
  back_ -= k;
  return Chunk{back_, k};
}

}  // namespace lb4mpi::st
