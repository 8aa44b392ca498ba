// Chunk calculation for one loop: the recursive form (a coordinator hands out
// chunks one by one, in step order) and the closed form (any rank computes
// the size of step i from i alone, for DCA). Pure C++, no MPI.
#pragma once
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "lb4mpi/techniques/params.hpp"
#include "lb4mpi/techniques/perf_stats.hpp"
#include "lb4mpi/techniques/technique.hpp"
#include "lb4mpi/types.hpp"

namespace lb4mpi {

/// What a rule sees when asked for the size of the next chunk.
struct StepContext {
  Index step = 0;                   ///< scheduling step i, 0-based
  Index remaining = 0;              ///< R_i: iterations not yet scheduled (> 0)
  int rank = 0;                     ///< the rank that will execute the chunk
  const PerfTable* perf = nullptr;  ///< per-rank statistics (adaptive rules)
};

/// DCA for a rule without a closed form (`001` §4, AF): the coordinator
/// serializes the step and hands over the inputs only it holds (R_i, the
/// batch chunk, the rank's weight, AF's D and 1/E); the rank that executes
/// the chunk evaluates the formula from them alone.
struct SharedInputs {
  bool measured = true;  ///< false: the rank has no measurement yet (gets the minimum chunk)
  Index remaining = 0;   ///< R_i
  double a = 0.0;        ///< WF/AWF*: the rank's weight;   AF: D = sum sigma_p^2/mu_p
  double b = 0.0;        ///< WF/AWF*: the chunk base c;     AF: 1/E = sum_p 1/mu_p
  double c = 0.0;        ///< AF: mu of the executing rank
};

class ChunkRule;

/// Creates the rule of `t` for `shape` (params must be valid).
LB4MPI_API std::unique_ptr<ChunkRule> make_rule(Technique t, LoopShape shape, const TechniqueParams& params);

/// One technique's chunk-size rule for one loop. Implementations live in
/// src/techniques/, one small unit per technique, with the paper's equation
/// cited. Sizes returned here are raw: ChunkCalculator applies the minimum
/// and maximum chunk and clips to the remaining iterations.
class LB4MPI_API ChunkRule {
 public:
  virtual ~ChunkRule() = default;
  /// Recursive form: size of the chunk of step ctx.step. Called once per step,
  /// in step order; may update the rule's own state (batch, previous size).
  virtual Index next(const StepContext& ctx) = 0;
  /// Closed form: size of step `step` from the step index alone. Only called
  /// when info(technique).has_closed_form; const and thread-safe.
  [[nodiscard]] virtual Index closed(Index step) const;
  /// Closed form under a maximum chunk (see ChunkCalculator::closed_size):
  /// for techniques whose closed-form sizes shrink over the loop (GSS, TAP,
  /// TSS, FAC, FAC2, TFSS, PLS), the largest raw size the closed form gives
  /// for this loop; 0 for the others (fixed, growing or random sizes), which
  /// the cap bounds step by step. Const and thread-safe.
  [[nodiscard]] virtual Index closed_peak() const { return 0; }
  /// Start of a new execution of the same loop (a time step): AWF updates
  /// its weights here; stateful rules restart their sequence.
  virtual void restart() {}

  // ---- facts the runtime asks instead of switching on the technique's name.
  // Each technique states them once, in its descriptor (TechniqueInfo);
  // make_rule() hands the rule its technique's.
  /// How the rule learns from chunk timings (ChunkCalculator::record).
  [[nodiscard]] ChunkFeedback feedback() const { return facts().feedback; }
  /// Whether the rule learns its weights from whole time steps (AWF).
  [[nodiscard]] bool learns_from_time_steps() const { return facts().learns_from_time_steps; }
  /// Whether the recursive form is the closed sequence (TechniqueInfo::step_only).
  [[nodiscard]] bool step_only() const { return facts().step_only; }
  /// Whether every closed-form step has the same raw size (TechniqueInfo::constant_size).
  [[nodiscard]] bool constant_size() const { return facts().constant_size; }
  /// The start of step `step` in O(1) where the rule knows it without the
  /// sizes before (STATIC's balanced blocks); -1 otherwise. Raw, unbounded.
  [[nodiscard]] virtual Index closed_start(Index /*step*/) const { return -1; }

  // DCA without a closed form; next(ctx) == commit(ctx, in, evaluate(in)) with in = share(ctx).
  /// Coordinator: the inputs of step ctx (may open a batch). Default: throws.
  virtual SharedInputs share(const StepContext& ctx);
  /// Executing rank: the raw size from the inputs alone. Default: throws.
  [[nodiscard]] virtual Index evaluate(const SharedInputs& in) const;
  /// Coordinator: bookkeeping once the raw size is known (batch consumption).
  virtual void commit(const StepContext& /*ctx*/, const SharedInputs& /*in*/, Index /*raw*/) {}
  /// Mutable state for replication (DCA over RMA): save appends, load reads
  /// from `at` and advances it. Stateless rules save nothing.
  virtual void save(std::vector<double>& /*out*/) const {}
  virtual void load(const double*& /*at*/) {}

 private:
  friend std::unique_ptr<ChunkRule> make_rule(Technique t, LoopShape shape, const TechniqueParams& params);
  /// The technique's facts (defaults for a rule make_rule did not create);
  /// inline: ChunkCalculator::record asks per chunk.
  [[nodiscard]] const TechniqueInfo& facts() const { return facts_ != nullptr ? *facts_ : kNoFacts; }
  static constexpr TechniqueInfo kNoFacts{};
  const TechniqueInfo* facts_ = nullptr;
};


/// Which of the two forms to use.
enum class Form : std::uint8_t { Recursive, Closed };

/// Whether executing technique `t`'s chunks needs them assigned at run
/// time: false for STATIC, whose step i is rank i's one block.
[[nodiscard]] constexpr bool needs_assignment(Technique t) { return t != Technique::STATIC; }

/// The chunk calculation of one loop: a rule plus the bookkeeping every
/// technique shares (step counter, remaining iterations, min/max chunk).
class LB4MPI_API ChunkCalculator {
 public:
  /// Validates the parameters (throws lb4mpi::Error).
  ChunkCalculator(Technique t, LoopShape shape, TechniqueParams params);

  /// Recursive form: the next chunk for `rank`; nullopt once all N
  /// iterations are scheduled. Chunks are contiguous from iteration 0.
  std::optional<Chunk> next(int rank);
  /// Size of step `step` by the closed form, bounded by min/max chunk, not
  /// yet clipped to the remaining iterations. Throws lb4mpi::Error if the
  /// technique has no closed form. A pure function of `step` (DCA).
  ///
  /// With a maximum chunk M, a technique whose sizes shrink (GSS, TAP, TSS,
  /// FAC, FAC2, TFSS, PLS) is not simply cut at M: its first `capped_steps()`
  /// steps get M, up to the first step s* at which the technique's closed
  /// form over the N - s* M iterations left peaks at M or less (for batched
  /// techniques s* is rounded up to whole batches); step i >= s* gets that
  /// closed form's step i - s*. So the capped closed form follows the
  /// recursive one (full-size chunks while R_i is large, then the technique's
  /// decay) instead of decaying by step index into hundreds of min_chunk
  /// chunks. s* is found once, at construction (binary search, O(log N)).
  [[nodiscard]] Index closed_size(Index step) const;
  /// s* of closed_size: the steps that get max_chunk before the technique's
  /// own closed form takes over (0 without a cap or when it does not bite).
  [[nodiscard]] Index capped_steps() const { return capped_steps_; }
  /// Closed form with assignment: the chunk of step `step` given that
  /// `scheduled` iterations were already handed out (size clipped to the rest).
  [[nodiscard]] std::optional<Chunk> closed_chunk(Index step, Index scheduled) const;
  /// The start of step `step` of the closed form in O(1), when the
  /// technique knows it without summing the sizes before (fixed sizes,
  /// STATIC); -1 otherwise (ClosedSequence then sums them).
  [[nodiscard]] Index closed_start(Index step) const;
  /// Roughly how many chunks one execution takes (an upper estimate, for
  /// reserving memory; at least 1 for N > 0).
  [[nodiscard]] Index estimated_chunks() const;
  /// lb4mpi::needs_assignment(technique).
  [[nodiscard]] bool needs_assignment() const { return !unbounded_; }
  /// Whether the rule adapts to timings of executed chunks or time steps
  /// (so the runtime measures every chunk; others need no clock per chunk).
  [[nodiscard]] bool needs_timing() const { return info(technique_).adaptive; }

  /// DCA without a closed form, the coordinator's half: serializes the next
  /// step for `rank` (nullopt once everything is scheduled).
  struct Grant {
    Index step = 0;
    Index start = 0;
    int rank = 0;
    SharedInputs inputs;
  };
  std::optional<Grant> grant(int rank);
  /// The executing rank's half: the chunk of a grant (bounded, clipped).
  [[nodiscard]] Chunk evaluate(const Grant& g) const;
  /// The coordinator records the size the executing rank took (the rule
  /// books the grant's raw size, as the recursive form does).
  void commit(const Grant& g, Index size);

  /// The whole mutable state (step, scheduled, rule state, statistics) as
  /// numbers, and back: how DCA over RMA replicates an adaptive technique.
  void save_state(std::vector<double>& out) const;
  void load_state(const std::vector<double>& in);

  /// Adaptive feedback from an executed chunk (any technique may be fed;
  /// AWF-D/E use its elapsed time for the weights; AWF (see restart()) and
  /// AF feed only mu/sigma, not the weighted history they do not read).
  /// Throws lb4mpi::Error for a rank outside [0, P).
  void record(const ChunkTiming& timing);
  /// AWF: one rank's totals over a whole execution of the loop (time step),
  /// called for every rank before restart(); the weights change at restart.
  /// Ranks that did not get one are measured from their recorded chunks
  /// (iterations and work time of this execution) at restart(). Ignored by
  /// the other techniques (they learn from chunks); throws lb4mpi::Error for
  /// a rank outside [0, P).
  void record_time_step(int rank, Index iterations, double work_time);
  /// Starts the next execution of the same loop (time step): resets the
  /// step counter and remaining iterations, keeps what adaptive rules learned.
  /// AWF: the next execution uses the weights of all time steps so far
  /// (time step k weighs k, `003` Appendix B).
  void restart();
  /// The same, for an execution over `n` iterations (a time step whose loop
  /// changed its length): what adaptive rules learned per rank (statistics,
  /// AWF's weights) carries over; the rule is set up anew for `n`. Throws
  /// lb4mpi::Error if the parameters are invalid for `n`.
  void restart(Index n);

  [[nodiscard]] Technique technique() const { return technique_; }
  [[nodiscard]] LoopShape shape() const { return shape_; }
  [[nodiscard]] const TechniqueParams& params() const { return params_; }
  [[nodiscard]] Index step() const { return step_; }
  [[nodiscard]] Index scheduled() const { return scheduled_; }
  [[nodiscard]] Index remaining() const { return shape_.n - scheduled_; }
  [[nodiscard]] const PerfTable& perf() const { return perf_; }

 private:
  /// max(raw, min_chunk), then at most max_chunk when one is set, and >= 1;
  /// STATIC's blocks are not bounded (one block per rank, whatever the
  /// minimum and maximum chunk). Inline: it is on every chunk's path.
  [[nodiscard]] Index bound(Index raw) const {
    if (unbounded_) return raw > 0 ? raw : 1;
    Index size = raw > params_.min_chunk ? raw : params_.min_chunk;
    if (params_.max_chunk > 0 && size > params_.max_chunk) size = params_.max_chunk;
    return size > 0 ? size : 1;
  }
  [[nodiscard]] Index closed_raw(Index step) const;
  void plan_capped_closed_form();

  Technique technique_;
  LoopShape shape_;
  TechniqueParams params_;
  std::unique_ptr<ChunkRule> rule_;
  Index capped_steps_ = 0;                ///< s*: steps that get max_chunk (closed form)
  std::unique_ptr<ChunkRule> tail_rule_;  ///< the closed form over the N - s* M iterations left
  bool capped_recursive_ = false;         ///< TSS, TFSS: the recursive form follows the plan too
  bool unbounded_ = false;                ///< STATIC: min_chunk and max_chunk do not apply
  PerfTable perf_;
  Index step_ = 0;
  Index scheduled_ = 0;
};

/// The closed form in assignment order, as DCA walks it: the chunk of step i
/// starts where the sizes of steps 0 .. i-1 end. Steps must not decrease
/// between calls, so one execution costs O(steps) on a rank (O(1) per step
/// where the technique knows the start directly). Holds a reference to the
/// calculator.
class LB4MPI_API ClosedSequence {
 public:
  explicit ClosedSequence(const ChunkCalculator& calc) : calc_(&calc) {}
  /// The chunk of step `step` (clipped to N), nullopt once the step starts at
  /// or beyond N.
  std::optional<Chunk> chunk(Index step);

 private:
  const ChunkCalculator* calc_;
  Index step_ = 0;   // steps summed so far
  Index start_ = 0;  // start of step_
};

/// Runs the whole recursive or closed sequence for ranks of equal speed
/// (adaptive techniques see every chunk take `iteration_time` per iteration;
/// ranks ask in the order they become free, ties by the lowest rank, and
/// every finished chunk is fed to ChunkCalculator::record). The closed form
/// takes steps 0, 1, 2, ... with closed_chunk (throws lb4mpi::Error if the
/// technique has none). One execution of the loop. Used by the explorer,
/// the tests and the benchmarks.
LB4MPI_API std::vector<Chunk> simulate_chunks(Technique t, LoopShape shape, const TechniqueParams& params,
                                              Form form, double iteration_time = 1e-6);

/// How for_each_simulated_chunk models the ranks.
struct SimulationSetup {
  double iteration_time = 1e-6;  ///< seconds per iteration on a rank of slowdown 1
  std::vector<double> slowdown;  ///< per-rank factor on iteration_time; empty = all 1
};

/// Streaming form of simulate_chunks (nothing is stored, for huge N), with
/// ranks of different speeds: calls sink(chunk, rank) for every chunk in
/// step order. Throws lb4mpi::Error for invalid parameters or a slowdown
/// vector that is not empty or P positive finite factors.
LB4MPI_API void for_each_simulated_chunk(Technique t, LoopShape shape, const TechniqueParams& params,
                                         Form form, const SimulationSetup& setup,
                                         const std::function<void(const Chunk& chunk, int rank)>& sink);

}  // namespace lb4mpi
