// What the runtime needs to run one loop: the execution model and its
// tuning, resolved by a front end from its own options (lb4mpi::Options,
// the C API's arguments). The runtime never sees a front end's types.
#pragma once
#include <cstdint>

#include "lb4mpi/mode.hpp"
#include "lb4mpi/techniques/params.hpp"
#include "lb4mpi/techniques/technique.hpp"
#include "lb4mpi/types.hpp"
#include "runtime/waiting.hpp"

namespace lb4mpi::rt {

/// Execution model of the chunk calculation: the front ends' lb4mpi::Mode.
using Model = Mode;

struct ExecConfig {
  Technique technique = kDefaultTechnique;
  TechniqueParams params;
  Model model = Model::Centralized;
  /// Hierarchical model: the technique inside a node, the model between the
  /// nodes' leaders, and the nodes (0: shared memory; k: emulated, k ranks).
  Technique node_technique = kDefaultNodeTechnique;
  Model global_model = Model::DistributedRMA;
  int ranks_per_node = 0;
  /// Coordinator: iterations between two checks for requests; < 0: automatic,
  /// the checks kServeLatency apart, counted in iterations from the measured
  /// iteration time (a request waits about that long at most).
  int break_after = -1;
  /// Worker: iterations left in its chunk when it asks for the next one, so
  /// that the reply travels while it computes; < 0: automatic, 15 % of the chunk.
  int request_when = -1;
  /// Several chunks per reply (Options::chunks_per_reply): -1 automatic, K >= 1 at most K.
  int chunks_per_reply = -1;
  int coordinator = 0;
  /// Busy-wait added to every chunk calculation on this rank [microseconds] (`001` §6).
  double delay_us = 0.0;
  /// Per-chunk timing for an observer (tracing): every piece is timed.
  bool observe = false;
  /// Robust mode (rDLB): scheduled-unfinished chunks are handed out again
  /// once every chunk is scheduled; the first completion counts; the report
  /// is exchanged among the ranks that finished (docs/ROBUST.md).
  bool robust = false;
  /// Robust mode: seconds a worker waits for a silent coordinator.
  double robust_timeout = 10.0;
  /// Failure injection on this rank: it stops after `fail_after_chunks`
  /// chunks started (>= 1) or `fail_after_s` seconds into an execution
  /// (>= 0), checked between pieces; by SIGKILL (fail_exit false) or _exit.
  bool fail_here = false;
  int fail_after_chunks = -1;
  double fail_after_s = -1.0;
  bool fail_at_end = false;  // instead: when the loop ends on it, before the end-of-loop exchange
  bool fail_in_report = false;  // instead: in that exchange (a coordinator once one rank has the report)
  bool fail_exit = false;
  /// Perturbation on this rank: every piece of work takes this many times
  /// as long (a busy wait after it); 1 = none.
  double slow_factor = 1.0;
  /// The perturbation starts with this execution of the loop (0: the first).
  int slow_from = 0;
  /// How this rank waits for others (runtime/waiting.hpp); set for the
  /// process when the execution is created.
  WaitPolicy wait = WaitPolicy::Auto;
};

/// Automatic break_after: a coordinator checks for requests about this often
/// while it executes its own chunks [seconds].
inline constexpr double kServeLatency = 20e-6;
/// Between two of its own chunks a coordinator looks for requests once it
/// executed about this much work since it last looked [seconds]: about a
/// round trip (ServeCadence::answer_due).
inline constexpr double kAnswerLatency = 1e-6;
/// Several chunks per reply: a worker whose chunks of a constant size are
/// far shorter than a message asks for about this much work in one reply
/// [seconds] (AskMessage::want) ...
inline constexpr double kBatchSpan = 20e-6;
/// ... and for at most this many chunks.
inline constexpr int kMaxBatch = 4096;

}  // namespace lb4mpi::rt
