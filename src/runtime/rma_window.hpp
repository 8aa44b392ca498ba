// The coordinator's window of the distributed-rma models: memory at the
// coordinator (none elsewhere) that every rank reaches with passive-target
// one-sided operations inside one MPI_Win_lock_all epoch, and the atomic
// operations the models use on its 64-bit slots. Windows are kept by the
// channel between executions (creating one is collective and costly).
//
// When the context is bounded (recovery) every operation that needs the coordinator is
// request-based (MPI_Rget_accumulate) and waited for at most the patience:
// where the MPI carries out atomics through the target's progress engine, an
// operation on a failed coordinator's window would otherwise wait forever.
// Not in a simulation (platform::kSimulated): SMPI 3.32's request-based
// accumulates never complete under MPI_Test (every rank gave the
// coordinator up one patience after the start) and crash MPI_Wait, and its
// one-sided operations are carried out by the origin alone, so a stopped
// coordinator's window still answers (bounded_ops()). Nor on the
// coordinator itself: its own window needs no other rank to answer, and
// the request-based form cost it about a quarter of its time per chunk
// (SS, one report per iteration).
#pragma once
#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "context.hpp"

namespace lb4mpi::rt {

class RmaWindow {
 public:
  explicit RmaWindow(Context& ctx) : ctx_(ctx) {}
  /// A window still held (an execution that did not finish) is unlocked
  /// and freed: collective, as every rank destroys its loop. Not when bounded
  /// (recovery), where ranks may have failed: it is left to MPI.
  ~RmaWindow();
  RmaWindow(const RmaWindow&) = delete;
  RmaWindow& operator=(const RmaWindow&) = delete;

  /// A window of at least `doubles` 8-byte slots at the coordinator, in a
  /// lock_all epoch: one the channel kept (its first slot is 0), else a new
  /// one, zeroed (collective). Every rank asks for the same size.
  void take(std::size_t doubles);
  /// Gives the window back to the channel (the coordinator sets its first
  /// slot to 0 first) at the end of an execution.
  void give_back();
  [[nodiscard]] MPI_Win win() const { return win_; }
  /// Slots of this execution's part.
  [[nodiscard]] std::size_t size() const { return doubles_; }

  /// The int64 at `slot` of the coordinator's window combined with `value`
  /// by `op` (MPI_SUM, MPI_REPLACE, MPI_NO_OP), completed; returns the value
  /// before. `what` names the wait in a timeout.
  std::int64_t fetch_op(int slot, std::int64_t value, MPI_Op op);
  std::int64_t fetch_add(int slot, std::int64_t value) { return fetch_op(slot, value, MPI_SUM); }
  std::int64_t swap(int slot, std::int64_t value) { return fetch_op(slot, value, MPI_REPLACE); }
  /// The int64 at `slot`, by a plain get, not an atomic: for the words
  /// ranks poll (a flag, a counter, a version), which are only ever set
  /// whole, so the value read is the old or the new one. Why not an atomic:
  /// Open MPI's shared-memory and RDMA windows carry out every atomic
  /// (also MPI_NO_OP's fetch) under a lock in the target's memory, and a
  /// rank killed while it holds that lock leaves it held: every later atomic
  /// on the window, the coordinator's own included, spins for ever. A rank
  /// that waits polls, so polling with atomics made such a death likely
  /// (docs/ROBUST.md, "What robust mode cannot survive").
  std::int64_t read(int slot);
  /// `count` int64 from `slot` on, each read atomically.
  void read(int slot, std::int64_t* out, int count);
  /// `count` int64 to `slot` on, each written atomically (the coordinator's
  /// own window under recovery; any rank otherwise).
  void write(int slot, const std::int64_t* in, int count);
  /// Plain transfers of doubles (under the models' own lock), completed.
  void put(const double* in, int count, int slot, int target);
  void get(double* out, int count, int slot, int target);

 private:
  /// Operations on the coordinator's window request-based and bounded (see above).
  [[nodiscard]] bool bounded_ops() const;
  /// Completes `request` of an operation on the coordinator: when bounded
  /// within the patience, else an error naming the coordinator.
  void complete(MPI_Request& request, const char* what);

  /// Where a request-based operation's origin value and result live: this
  /// window's memory, not the caller's. An operation given up at the
  /// patience (its request freed: the coordinator is taken for failed) may
  /// still complete — a coordinator that was only slow answers late — and
  /// MPI then writes its result here; so a given-up landing is let go, never
  /// reused nor freed (once per failover of this rank).
  struct Landing {
    std::int64_t in = 0;
    std::vector<std::int64_t> out;
  };
  /// The landing, with room for `count` results.
  Landing& landing(int count);

  Context& ctx_;
  std::unique_ptr<Landing> landing_;
  MPI_Win win_ = MPI_WIN_NULL;
  std::size_t doubles_ = 0;   // of the window, this execution's part
  std::size_t capacity_ = 0;  // of the window, at the coordinator
};

}  // namespace lb4mpi::rt
