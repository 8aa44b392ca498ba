// The C API's way to a Loop's runtime, for what lb4mpi::Loop does not offer
// its users: a STATIC loop that starts and ends without its ranks meeting
// (the C API agrees on it later, rt::DeferredAgreement; docs/RUNTIME.md,
// "STATIC without waiting").
#pragma once
#include <mpi.h>

#include <memory>
#include <string>

#include "lb4mpi/lb4mpi.hpp"
// The C API sees the front end only; the one runtime header it needs, by path.
#include "../runtime/include/runtime/agreement.hpp"

namespace lb4mpi::detail {

/// The C API's agreements (rt::DeferredAgreement: an agreement voted
/// without waiting and concluded later, the same Error on every rank).
using DeferredVote = rt::DeferredAgreement;

struct LoopAccess {
  /// Whether a loop with options `o` runs alone (rt::Execution::runs_alone).
  static bool runs_alone(const Options& o);
  /// A Loop on `comm` with `o`, not started (start_alone() starts it). Not collective.
  static std::unique_ptr<Loop> unstarted(MPI_Comm comm, const Options& o);
  /// Starts `loop`'s next execution over [first, last) alone: "" when it
  /// started, else this rank's error (nothing started). Not collective.
  static std::string start_alone(Loop& loop, Index first, Index last);
  /// Ends it alone, after its last chunk: this rank's figures; `dropped`
  /// gets the iterations it took but did not run. Not collective.
  static RankReport finish_alone(Loop& loop, Index& dropped);
};

}  // namespace lb4mpi::detail
