#include "pool.hpp"

#include <cstring>

#include "runtime/mpi.hpp"

namespace lb4mpi::rt::hier {

void Pool::reset(const std::vector<double>& state) {
  for (int s = 0; s < kHeader; ++s) at(s).store(0, std::memory_order_relaxed);
  at(kStateFor).store(-1, std::memory_order_relaxed);
  base_[kStateSlot] = static_cast<std::int64_t>(state.size());
  std::memcpy(base_ + kStateSlot + 1, state.data(), state.size() * sizeof(double));
  std::atomic_thread_fence(std::memory_order_release);
}

bool Pool::room() const {
  return at(kPublished).load(std::memory_order_relaxed) - at(kCursor).load(std::memory_order_acquire) < kRing - 1;
}

void Pool::publish(Index begin, Index size, std::int64_t id) {
  const std::int64_t n = at(kPublished).load(std::memory_order_relaxed);
  std::int64_t* e = entry(n);
  e[0] = begin;
  e[1] = size;
  e[2] = id;
  at(kPublished).store(n + 1, std::memory_order_release);
}

double Pool::seconds_per_iteration() const {
  const std::int64_t done = at(kDone).load(std::memory_order_relaxed);
  if (done <= 0) return 0.0;
  return 1e-9 * static_cast<double>(at(kWorkNs).load(std::memory_order_relaxed)) / static_cast<double>(done);
}

void Pool::measured(Index size, double work) {
  at(kDone).fetch_add(size, std::memory_order_relaxed);
  at(kWorkNs).fetch_add(static_cast<std::int64_t>(work * 1e9), std::memory_order_relaxed);
}

void Pool::state(std::vector<double>& out, std::size_t doubles) const {
  std::atomic_thread_fence(std::memory_order_acquire);
  out.resize(doubles);
  std::memcpy(out.data(), base_ + kStateSlot + 1, doubles * sizeof(double));
}

// A test-and-set lock: an exchange that returns 0 takes it. A rank waiting
// for it polls politely (rt::backoff: yields the core natively; in the
// simulation build simulated time passes, so the holder runs).
void Pool::lock(int& polls) {
  for (;;) {
    if (at(kLock).load(std::memory_order_relaxed) == 0 && at(kLock).exchange(1, std::memory_order_acquire) == 0) {
      return;
    }
    backoff(polls++);
  }
}

std::optional<Pool::Taken> Pool::take(AdaptiveFeedback& fb, int node_rank, double now, std::vector<double>& scratch,
                                      int& polls) {
  ChunkCalculator& calc = fb.calc();
  // Nothing published beyond the cursor: no lock needed to say so.
  if (at(kCursor).load(std::memory_order_acquire) >= at(kPublished).load(std::memory_order_acquire)) {
    return std::nullopt;
  }
  lock(polls);
  const auto doubles = static_cast<std::size_t>(base_[kStateSlot]);
  std::int64_t cursor = at(kCursor).load(std::memory_order_relaxed);
  const std::int64_t published = at(kPublished).load(std::memory_order_acquire);
  const std::int64_t state_for = at(kStateFor).load(std::memory_order_relaxed);
  // This rank's calculator takes the shared state: set up for the piece the
  // state belongs to, then loaded.
  if (state_for >= 0 && calc.shape().n != entry(state_for)[1]) calc.restart(entry(state_for)[1]);
  scratch.resize(doubles);
  std::memcpy(scratch.data(), base_ + kStateSlot + 1, doubles * sizeof(double));
  calc.load_state(scratch);
  if (fb.timed()) {
    if (fb.pending()) {
      calc.record(fb.take(node_rank, now));
    } else {
      fb.restart_period(now);
    }
  }
  std::optional<Taken> out;
  std::int64_t for_piece = state_for;
  while (cursor < published) {
    const std::int64_t* e = entry(cursor);
    if (for_piece != cursor) {  // the first sub-chunk of a piece: the technique starts over it
      calc.restart(e[1]);
      for_piece = cursor;
    }
    if (const std::optional<Chunk> c = calc.next(node_rank)) {
      Taken t;
      t.chunk = Chunk{e[0] + c->begin, c->size};
      t.global = e[2];
      t.id = at(kNextId).fetch_add(1, std::memory_order_relaxed);
      at(kTaken).fetch_add(c->size, std::memory_order_release);
      out = t;
      break;
    }
    ++cursor;
  }
  calc.save_state(scratch);
  if (scratch.size() != doubles) throw Error("lb4mpi: internal error: the node technique's state changed its size");
  std::memcpy(base_ + kStateSlot + 1, scratch.data(), doubles * sizeof(double));
  at(kStateFor).store(for_piece, std::memory_order_relaxed);
  at(kCursor).store(cursor, std::memory_order_release);
  unlock();
  return out;
}

}  // namespace lb4mpi::rt::hier
