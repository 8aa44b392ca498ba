// Shared helpers of the technique tests.
#pragma once
#include <cstdint>
#include <vector>

#include "lb4mpi/techniques/chunk_calculator.hpp"

namespace lb4mpi::test {

inline std::vector<Index> sizes_of(const std::vector<Chunk>& chunks) {
  std::vector<Index> out;
  out.reserve(chunks.size());
  for (const Chunk& c : chunks) out.push_back(c.size);
  return out;
}

/// The closed-form sequence of one loop, steps 0, 1, 2, ... (no simulation).
inline std::vector<Index> closed_sizes(Technique t, LoopShape shape,
                                       const TechniqueParams& params) {
  const ChunkCalculator calc(t, shape, params);
  std::vector<Index> out;
  Index scheduled = 0;
  for (Index step = 0;; ++step) {
    const auto c = calc.closed_chunk(step, scheduled);
    if (!c) break;
    out.push_back(c->size);
    scheduled += c->size;
  }
  return out;
}

/// The recursive sequence of one loop with ranks asking round-robin, no feedback.
inline std::vector<Index> recursive_sizes(Technique t, LoopShape shape,
                                          const TechniqueParams& params) {
  ChunkCalculator calc(t, shape, params);
  std::vector<Index> out;
  for (int rank = 0;; rank = (rank + 1) % shape.p) {
    const auto c = calc.next(rank);
    if (!c) break;
    out.push_back(c->size);
  }
  return out;
}

/// v repeated `count` times.
inline std::vector<Index> repeat(Index v, int count) {
  return std::vector<Index>(static_cast<std::size_t>(count), v);
}

inline std::vector<Index> concat(std::initializer_list<std::vector<Index>> parts) {
  std::vector<Index> out;
  for (const auto& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

}  // namespace lb4mpi::test
