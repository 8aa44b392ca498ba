// A node's pool of work in its MPI-3 shared-memory window: the pieces of
// global chunks its leader published (a ring), the node technique's state
// under a test-and-set lock, and counters. Every rank of the node takes its
// sub-chunks here with atomics on the shared memory; no rank serves the
// others. The leader publishes without the lock (a ring entry, then the
// count), the ranks take under it.
//
// Layout (8-byte slots): kLock, kPublished (pieces published this
// execution), kOver (1: no more pieces will come), kCursor (the piece the
// technique's state is on), kStateFor (the piece the state was set up for,
// -1: none yet), kTaken (iterations handed out), kDone and kWorkNs (the
// node's measured iterations and work, for the global level's adaptive
// techniques), kNextId; then the ring (kRing entries of begin, size,
// global chunk id), then the technique's state (doubles).
#pragma once
#include <atomic>
#include <cstdint>
#include <optional>
#include <vector>

#include "lb4mpi/techniques/chunk_calculator.hpp"
#include "lb4mpi/types.hpp"
#include "feedback.hpp"

namespace lb4mpi::rt::hier {

class Pool {
 public:
  enum Slot : int { kLock, kPublished, kOver, kCursor, kStateFor, kTaken, kDone, kWorkNs, kNextId, kHeader };
  static constexpr int kRing = 64;
  static constexpr int kEntry = 3;
  static constexpr std::size_t kStateSlot = kHeader + kRing * kEntry;

  /// Slots for a technique whose state is `state_doubles` long.
  static std::size_t slots_for(std::size_t state_doubles) { return kStateSlot + state_doubles + 1; }

  void attach(std::int64_t* base) { base_ = base; }
  /// The leader, before the node's barrier at an execution's start: an empty
  /// pool with the technique's state (what it learnt so far).
  void reset(const std::vector<double>& state);

  // ---- the leader
  /// Whether the ring has room for one more piece.
  [[nodiscard]] bool room() const;
  /// Publishes [begin, begin + size) of global chunk `id`.
  void publish(Index begin, Index size, std::int64_t id);
  /// No more pieces will come this execution.
  void close() { at(kOver).store(1, std::memory_order_release); }
  /// Iterations published and not yet handed out.
  [[nodiscard]] Index unscheduled(Index published_iterations) const {
    return published_iterations - at(kTaken).load(std::memory_order_acquire);
  }
  /// The node's measured seconds per iteration and rank (0: none yet).
  [[nodiscard]] double seconds_per_iteration() const;
  /// The technique's state at the end of an execution (what it learnt).
  void state(std::vector<double>& out, std::size_t doubles) const;

  // ---- every rank
  [[nodiscard]] bool over() const { return at(kOver).load(std::memory_order_acquire) != 0; }
  struct Taken {
    Chunk chunk;               ///< absolute within the loop (0-based)
    std::int64_t id = -1;      ///< the sub-chunk's id, unique within the node's execution
    std::int64_t global = -1;  ///< the global chunk it belongs to
  };
  /// The next sub-chunk for `node_rank` by the calculator of `fb` (whose
  /// state is loaded from and saved to the pool under the lock); what `fb`
  /// measured since this rank last took one is recorded first when the
  /// technique learns (`now`). nullopt: nothing published to take.
  std::optional<Taken> take(AdaptiveFeedback& fb, int node_rank, double now, std::vector<double>& scratch,
                            int& polls);
  /// A sub-chunk of `size` iterations took `work` seconds (global adaptive feedback).
  void measured(Index size, double work);

 private:
  [[nodiscard]] std::atomic_ref<std::int64_t> at(int slot) const { return std::atomic_ref<std::int64_t>(base_[slot]); }
  [[nodiscard]] std::int64_t* entry(std::int64_t piece) const { return base_ + kHeader + (piece % kRing) * kEntry; }
  void lock(int& polls);
  void unlock() { at(kLock).store(0, std::memory_order_release); }

  std::int64_t* base_ = nullptr;
};

}  // namespace lb4mpi::rt::hier
