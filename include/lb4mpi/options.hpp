// Run-time options of a scheduled loop: technique, execution model, tuning.
// Set them in code or read them from the environment (Options::from_env).
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "lb4mpi/mode.hpp"
#include "lb4mpi/techniques/params.hpp"
#include "lb4mpi/techniques/technique.hpp"

namespace lb4mpi {

/// The mode's name: "centralized", "distributed", "distributed-rma" or
/// "hierarchical" (what parse_mode reads back).
LB4MPI_API std::string_view name(Mode m);
/// "centralized"|"cca", "distributed"|"dca", "distributed-rma"|"dca-rma",
/// "hierarchical"|"hier" (case-insensitive).
LB4MPI_API Mode parse_mode(std::string_view text);

/// How a rank waits for another (a reply, the end of a loop, a collective):
/// "spin" (poll without pause), "yield" (poll, yielding the core between
/// polls after a short spin), "block" (poll, sleeping between polls after a
/// short spin: the cores go to the ranks that work), "auto" (block when the
/// ranks on the node outnumber its cores, else yield). docs/OPTIONS.md.
enum class Wait : std::uint8_t { Auto, Spin, Yield, Block };
/// The name of a wait policy: "auto", "spin", "yield" or "block".
LB4MPI_API std::string_view name(Wait w);
/// "auto", "spin", "yield", "block" (case-insensitive).
LB4MPI_API Wait parse_wait(std::string_view text);

/// How a loop is scheduled: technique, mode, parameters, robust mode,
/// tracing and perturbations (docs/OPTIONS.md lists every field with its
/// environment variable).
struct LB4MPI_API Options {
  /// A technique, or Technique::Auto: each execution of the loop (time
  /// step) runs a technique that auto_policy picks from what the earlier
  /// executions measured (docs/SELECTION.md).
  Technique technique = kDefaultTechnique;
  Mode mode = Mode::Centralized;  ///< execution model (CCA, DCA, DCA over RMA)
  TechniqueParams params;         ///< the technique's parameters (chunk bounds, mu, sigma, ...)
  /// Hierarchical mode: the technique inside a node (sub-chunks of a node's
  /// chunk); `technique` schedules between nodes (docs/RUNTIME.md).
  Technique node_technique = kDefaultNodeTechnique;
  /// Hierarchical mode: the model of the level between nodes (one leader per
  /// node): Centralized, Distributed or DistributedRMA. Centralized by
  /// measurement (docs/EXPERIMENTS.md, *Scale to 4096 simulated ranks*): a
  /// leader's request does not keep it waiting, where a one-sided fetch
  /// queues behind every other leader's.
  Mode global_mode = Mode::Centralized;
  /// Hierarchical mode: ranks per node; 0: the nodes MPI reports
  /// (MPI_Comm_split_type shared memory); k >= 1: emulated nodes of k
  /// consecutive ranks (the last one may be smaller).
  int ranks_per_node = 0;
  /// Automatic selection: "explore" (explore each candidate once, then
  /// exploit the best, re-explore on a change; the default), "bandit"
  /// (discounted UCB1) or "rule" (from measured rank speeds and overhead).
  std::string auto_policy = "explore";
  /// Automatic selection: the techniques it picks from, the first one
  /// without history; empty: a built-in short list (docs/SELECTION.md).
  /// Those the mode or robust mode refuse are left out.
  std::vector<Technique> auto_candidates;
  /// Coordinator: iterations it executes between checks for requests (in
  /// distributed-rma: between calls that let the MPI progress the other
  /// ranks' atomics). It also checks between two of its own chunks.
  /// < 0: automatic, checks about 20 microseconds apart, counted in
  /// iterations from the iteration time it measures (docs/RUNTIME.md), so
  /// that a request waits about that long whatever an iteration costs.
  int break_after = -1;
  /// Worker: iterations left in its chunk when it asks for the next one, so
  /// the request overlaps its computation. < 0: automatic, 15% of the chunk.
  int request_when = -1;
  /// Several chunks per reply (centralized mode, techniques of a constant
  /// chunk size: SS, FSC, mFSC; not in robust mode): a worker may take up to
  /// this many consecutive chunks in one reply, each still a chunk of its
  /// own. -1: automatic, about 20 microseconds of work per reply, measured
  /// (1 while chunks take longer); 1: one chunk per reply, as LB4MPI.
  /// Batches shrink towards the loop's end (docs/RUNTIME.md).
  int chunks_per_reply = -1;
  /// Rank that holds the scheduling state.
  int coordinator = 0;
  /// Delay injected into every chunk calculation [microseconds] (`001` §6).
  double inject_delay_us = 0.0;
  /// Ranks the delay applies to; empty = all ranks.
  std::vector<int> delay_ranks;
  /// Per-chunk trace, written by rank 0 when a loop execution finishes
  /// (empty = off). "x.json": Chrome trace-event JSON (opens in Perfetto);
  /// "x.csv": CSV; any other path: both, as path + ".json" and path + ".csv".
  /// Every execution of every loop of the process goes into the same file.
  std::string trace;
  /// Per-rank iteration CSV of `000` Table 4.2: rank r writes
  /// `<iterations_dir>/iterations_rank<r>.csv` (one row per chunk it executed).
  bool iterations_info = false;
  /// Folder for iterations_info (created if missing); "lb4mpi_iterations" when empty.
  std::string iterations_dir;
  /// Loops in flight together (LoopSet, DLS_StartMLoops): when loop l has no
  /// piece for this rank right now, next(l) waits for one (true: the idle
  /// probing of `003`'s implementation) or returns at once so that the rank
  /// moves on to another loop (false, the default: measured faster, see
  /// docs/PERFORMANCE.md). A single loop always waits.
  bool idle_probing = false;
  /// Robust mode (rDLB, `004`; docs/ROBUST.md): once every chunk is
  /// scheduled, a rank that asks for work gets a chunk that is scheduled but
  /// not yet finished elsewhere; the first completion of a chunk counts, and
  /// the loop ends when every iteration is finished, so the loop survives
  /// fail-stop failures of workers and stragglers. Every mode; every
  /// technique but STATIC (docs/ROBUST.md).
  bool robust = false;
  /// Robust mode: seconds a worker waits for a silent coordinator before it
  /// gives up with an error naming it (the coordinator is the one rank whose
  /// failure robust mode does not survive); must exceed the longest single
  /// iteration. The coordinator waits at most a tenth of it at the end of a
  /// loop for the figures of ranks that may have failed.
  double robust_timeout = 10.0;
  /// Failure injection (docs/ROBUST.md): these ranks stop (fail_how) when
  /// fail_after says; empty = nobody.
  std::vector<int> fail_ranks;
  /// When a victim stops, checked between pieces of work: after it started
  /// `chunks` chunks (>= 1), or `seconds` into a loop execution (>= 0);
  /// LB4MPI_FAIL_AFTER=3 or LB4MPI_FAIL_AFTER=0.25s. Neither set: at its
  /// first chunk.
  struct FailAfter {
    int chunks = -1;        ///< after this many chunks started (-1: not set)
    double seconds = -1.0;  ///< after this many seconds of a loop execution (-1: not set)
    /// When the loop ended on it, before the end-of-loop exchange (robust
    /// mode's end; LB4MPI_FAIL_AFTER=end).
    bool at_end = false;
    /// In that exchange: a coordinator once one rank has the report, a
    /// worker once it has it (LB4MPI_FAIL_AFTER=report).
    bool in_report = false;
  };
  FailAfter fail_after;  ///< when a rank of fail_ranks stops
  /// "kill" (SIGKILL to itself, a crashing node) or "exit" (_exit(1) without
  /// MPI_Finalize).
  std::string fail_how = "kill";
  /// Perturbation (`004` §4.1): these ranks are slowed, each piece of work
  /// they execute taking slow_factor times as long (a busy wait after it).
  std::vector<int> slow_ranks;
  /// >= 1; 1 = not slowed.
  double slow_factor = 1.0;
  /// The slowing starts with this execution (time step) of a loop, counted
  /// from 0: a rank slowed from mid-run. 0 = from the start.
  int slow_from = 0;
  /// How this rank waits for others (LB4MPI_WAIT); per rank, the process's
  /// last loop created sets it.
  Wait wait = Wait::Auto;

  /// Where a field's value came from, by the member's name: "min_chunk" ->
  /// "LB4MPI_MIN_CHUNK=-5" (from_env), "--min-chunk 5" (the apps' flags),
  /// "DLS_Parameters_Setup minChunk=0" (the C API). A value error names it.
  /// Not part of fingerprint(): ranks may get the same value differently.
  std::map<std::string, std::string> origin;

  /// Options from the environment, on top of the defaults:
  ///   LB4MPI_SCHEDULING      technique name, `000` Table 4.1 id, or auto
  ///   LB4MPI_AUTO_POLICY (explore|bandit|rule), LB4MPI_AUTO_CANDIDATES (comma-separated techniques),
  ///   LB4MPI_MODE            centralized|cca|distributed|dca|distributed-rma|dca-rma|hierarchical
  ///   LB4MPI_NODE_SCHEDULING, LB4MPI_GLOBAL_MODE, LB4MPI_RANKS_PER_NODE (hierarchical mode),
  ///   LB4MPI_MIN_CHUNK, LB4MPI_MAX_CHUNK, LB4MPI_BREAK_AFTER, LB4MPI_REQUEST_WHEN,
  ///   LB4MPI_H, LB4MPI_SIGMA, LB4MPI_MU, LB4MPI_ALPHA, LB4MPI_FISS_B,
  ///   LB4MPI_VISS_X, LB4MPI_PLS_SWR, LB4MPI_RND_BOUNDS (unit|paper004),
  ///   LB4MPI_SEED, LB4MPI_WEIGHTS (comma-separated), LB4MPI_INJECT_DELAY_US,
  ///   LB4MPI_DELAY_RANKS (comma-separated), LB4MPI_TRACE (path),
  ///   LB4MPI_ITERATIONS_INFO (0|1), LB4MPI_DIR_ID (folder name), LB4MPI_IDLE_PROBING (0|1),
  ///   LB4MPI_ROBUST (0|1), LB4MPI_ROBUST_TIMEOUT (seconds), LB4MPI_FAIL_RANKS (comma-separated),
  ///   LB4MPI_FAIL_AFTER (k chunks, "<t>s" seconds, end or report), LB4MPI_FAIL_HOW (kill|exit),
  ///   LB4MPI_SLOW_RANKS (comma-separated), LB4MPI_SLOW_FACTOR, LB4MPI_SLOW_FROM (time step),
  ///   LB4MPI_WAIT (auto|spin|yield|block).
  /// Throws lb4mpi::Error naming the variable and the valid choices.
  static Options from_env();
  /// Same, applied on top of `base`.
  static Options from_env(Options base);

  /// Throws lb4mpi::Error when these options cannot run on a communicator
  /// of `ranks` ranks (coordinator, delay injection), naming the option, its
  /// variable and the valid values. The technique's parameters are checked
  /// against each loop's length when it starts.
  void validate(int ranks) const;
  /// `e`'s message, followed by where the field's value came from when
  /// `origin` knows it: "min_chunk must be >= 1, got -5 (from LB4MPI_MIN_CHUNK=-5)".
  [[nodiscard]] std::string explain(const InvalidParameter& e) const;
  /// Checks the technique's parameters for a loop of `n` iterations on
  /// `ranks` ranks (TechniqueParams::validate), then validate(ranks); throws
  /// lb4mpi::Error with the messages of explain().
  void validate(Index n, int ranks) const;
  /// A hash of every option that all ranks must pass alike for a loop
  /// (technique, mode, parameters, tuning, tracing on or off): derived from
  /// the same list of fields as from_env.
  [[nodiscard]] std::uint64_t fingerprint() const;
  /// The same fields as (member name, value as text): what a "ranks
  /// disagree" error names. Built only when the fingerprints differ.
  [[nodiscard]] std::vector<std::pair<std::string, std::string>> agreed_fields() const;

  /// Every LB4MPI_* variable lb4mpi reads (from_env's list, and LB4MPI_STRICT).
  static std::vector<std::string> known_variables();
  /// One message per LB4MPI_* variable of this process's environment that
  /// lb4mpi does not know, with the nearest known name when it is a near
  /// miss ("LB4MPI_MDOE is not a known variable (did you mean LB4MPI_MODE?)").
  /// A loop's start reports them once per process on rank 0 (stderr), or,
  /// with LB4MPI_STRICT=1, fails on every rank.
  static std::vector<std::string> unknown_variables();
};

/// Options::fail_after from text: a number of chunks ("3"), of seconds
/// ("0.25s") or "end" (LB4MPI_FAIL_AFTER, the apps' --fail-after); `name`
/// (the variable or flag) heads the error that names the valid forms.
LB4MPI_API Options::FailAfter parse_fail_after(std::string_view text, std::string_view name = "fail_after");

}  // namespace lb4mpi
