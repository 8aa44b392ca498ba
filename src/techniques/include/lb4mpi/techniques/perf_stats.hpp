// Per-rank timing statistics that the adaptive techniques consume
// (WF/AWF weights, AWF-B..E weighted performance, AF's mu and sigma).
// The runtime measures; this layer only accumulates and derives. No MPI.
#pragma once
#include <utility>
#include <vector>

#include "lb4mpi/types.hpp"

namespace lb4mpi {

/// One executed chunk as the runtime measured it.
struct ChunkTiming {
  int rank = 0;
  Index size = 0;             ///< iterations in the chunk
  double work_time = 0.0;     ///< seconds spent executing the chunk body
  double elapsed_time = 0.0;  ///< seconds from requesting the chunk to finishing it,
                              ///< minus time spent in other loops (AWF-D/E, `003` tExclude)
};

/// Accumulated statistics of one rank.
struct LB4MPI_API RankStats {
  // Per execution of the loop (cleared by PerfTable::start_new_execution):
  Index chunks = 0;                 ///< chunks measured in this loop execution
  Index iterations = 0;             ///< iterations measured in this loop execution
  double work_time = 0.0;           ///< sum of work times
  double m2 = 0.0;                  ///< sum over chunks of size * (time/size - mu)^2, for sigma
                                    ///< (West's weighted update, numerically stable)
  bool time_step_recorded = false;  ///< PerfTable::record_time_step was called in this execution
  // AWF family: performance weighted by the chunk (or time-step) ordinal,
  // later measurements weighing more (`003` Appendix B). Kept across executions.
  double weighted_time = 0.0;  ///< sum of ordinal * time
  double weighted_size = 0.0;  ///< sum of ordinal * iterations
  Index weighted_count =
      0;  ///< weighted measurements so far (the next has ordinal weighted_count + 1)

  /// Mean time of one iteration, sum(time) / sum(size) (0 when nothing was measured).
  [[nodiscard]] double mu() const;
  /// Standard deviation of one iteration's time estimated from chunk means
  /// m_c = time_c / size_c: Var = sum(n_c (m_c - mu)^2) / (chunks - 1);
  /// 0 with fewer than 2 chunks.
  [[nodiscard]] double sigma() const;
  /// Weighted average time per iteration (AWF "wap"); 0 when none.
  [[nodiscard]] double weighted_performance() const;
};

/// Statistics of all P ranks of one loop.
///
/// Besides the per-rank sums it keeps the cross-rank aggregates the adaptive
/// rules need per chunk (AF's D and E, the AWF weight normalization) up to
/// date incrementally, so that reading them is O(1) (amortized O(1) per record;
/// an O(P) rebuild every max(P, 1024) records bounds rounding drift).
/// Times below kMinIterationTime per iteration count as kMinIterationTime
/// (a zero timer reading must not divide by zero).
class LB4MPI_API PerfTable {
 public:
  static constexpr double kMinIterationTime = 1e-15;

  explicit PerfTable(int p = 1);
  [[nodiscard]] int ranks() const { return static_cast<int>(stats_.size()); }
  [[nodiscard]] const RankStats& rank(int r) const {
    return stats_.at(static_cast<std::size_t>(r));
  }

  /// Records a finished chunk. `use_elapsed` selects elapsed_time (AWF-D/E)
  /// instead of work_time for the weighted performance. Chunks of size <= 0
  /// are ignored; negative or non-finite times count as 0. Throws
  /// lb4mpi::Error for a rank outside [0, P).
  void record(const ChunkTiming& t, bool use_elapsed);
  /// Records a finished chunk for mu and sigma only, not for the weighted
  /// performance (AWF, whose weights come from whole time steps).
  void record_unweighted(const ChunkTiming& t);
  /// One weighted measurement for a whole execution (time step) of the loop
  /// on `rank`: `iterations` executed in `time` seconds (AWF, `003` Appendix B;
  /// the ordinal is the rank's time-step count).
  void record_time_step(int rank, Index iterations, double time);

  /// True once every rank has measured at least one chunk (this execution).
  [[nodiscard]] bool all_reported() const;
  /// Rank r has measured a chunk in this execution (its mu and sigma exist).
  [[nodiscard]] bool measured(int r) const;
  /// Rank r has a weighted performance (AWF family; kept across executions).
  [[nodiscard]] bool has_weighted_performance(int r) const;

  /// Relative weights from weighted performance, normalized to sum to P:
  /// w_r = (awap / wap_r) * P / sum_i(awap / wap_i) (`003` Appendix B),
  /// awap the mean wap (it cancels: w_r = P (1/wap_r) / sum_i (1/wap_i)).
  /// Ranks without a measurement get the weight of the slowest measured rank.
  /// All ones when no rank has a measurement.
  [[nodiscard]] std::vector<double> weights() const;
  /// weights() into `out` (resized to P) without allocating when it fits.
  void weights_into(std::vector<double>& out) const;
  /// weights()[r] in O(1).
  [[nodiscard]] double weight(int r) const;

  // AF (`001` Eq. 11) over all P ranks; a rank that has not measured a chunk
  // in this execution counts with the mu and sigma of the slowest measured
  // rank (largest mu). All three are 0 while no rank has measured.
  /// sum_p 1/mu_p (E = 1 / this).
  [[nodiscard]] double sum_inv_mu() const;
  /// sum_p sigma_p^2 / mu_p (D).
  [[nodiscard]] double sum_sigma2_over_mu() const;
  /// mu_r, or the slowest measured rank's mu if r has not measured.
  [[nodiscard]] double effective_mu(int r) const;

  /// Clears the per-execution accumulators (chunks, iterations, mu, sigma)
  /// but keeps the weighted history (AWF learns across time steps).
  void start_new_execution();
  /// Clears everything.
  void reset();
  /// Every rank's RankStats as numbers (11 per rank, the counts exact), and back; the
  /// aggregates are rebuilt on load. DCA over RMA replicates the table this way.
  void save(std::vector<double>& out) const;
  void load(const double*& at);

 private:
  /// What rank r currently contributes to one aggregate.
  struct Term {
    bool in = false;     ///< included in the aggregate's sums
    double value = 0.0;  ///< mu (AF) or wap (AWF), at least kMinIterationTime
    double inv = 0.0;    ///< 1 / value, summed into Aggregate::sum_a
    double extra = 0.0;  ///< AF: sigma^2 / mu, summed into Aggregate::sum_b; AWF: 0
  };
  /// What rank r currently contributes to the aggregates.
  struct Terms {
    double mean = 0.0;  ///< RankStats::mu() itself (West's update reads it back)
    Term af;            ///< AF: value mu
    Term weighted;      ///< AWF: value wap
  };
  /// Sums over the measured ranks of one aggregate, and the slowest measured
  /// rank (kept exact while some rank is unmeasured; only then is it needed).
  struct Aggregate {
    int count = 0;
    int slowest = -1;
    double sum_a = 0.0;
    double sum_b = 0.0;
    /// While some rank is unmeasured: a max-heap of (mu or wap, -rank) of
    /// the measured ranks, entries of older values left in it until they
    /// reach the top. When the slowest rank gets faster, the next slowest is
    /// its top: O(log P), where a rescan of all P ranks made a rank that
    /// kept being the slowest and getting faster cost O(P) per record.
    std::vector<std::pair<double, int>> candidates;
  };
  using Which = Term Terms::*;  ///< &Terms::af or &Terms::weighted

  RankStats& checked(int r);
  void add_chunk(int r, const ChunkTiming& t, double work_time);
  void update_af(int r);
  void update_af(int r, double mean);
  void update_weighted(int r);
  /// The one update of both aggregates: rank r's term of `which` becomes
  /// (max(value, kMinIterationTime), its inverse `inv` unless clamped, extra).
  void update(Aggregate& a, Which which, int r, double value, double inv, double extra);
  /// `a` anew from the terms (drops the rounding drift of the updates).
  void rebuild(Aggregate& a, Which which);
  void note_update();
  /// The candidate at the top of `a` that is still its rank's value (popping
  /// the older ones): the slowest rank.
  int slowest_candidate(Aggregate& a, Which which);

  std::vector<RankStats> stats_;
  std::vector<Terms> terms_;
  Aggregate af_;        ///< sum_a = sum 1/mu, sum_b = sum sigma^2/mu
  Aggregate weighted_;  ///< sum_a = sum 1/wap
  Index updates_since_rebuild_ = 0;
};

// ---- the O(1) figures the rules read per chunk, inline ----------------------

inline bool PerfTable::measured(int r) const { return terms_.at(static_cast<std::size_t>(r)).af.in; }

inline bool PerfTable::has_weighted_performance(int r) const {
  return terms_.at(static_cast<std::size_t>(r)).weighted.in;
}

inline double PerfTable::weight(int r) const {
  if (weighted_.count == 0) return 1.0;
  const auto missing = static_cast<double>(ranks() - weighted_.count);
  const Term& own = terms_.at(static_cast<std::size_t>(r)).weighted;
  const double slowest_inv =
      missing > 0.0 ? terms_[static_cast<std::size_t>(weighted_.slowest)].weighted.inv : 0.0;
  const double total = weighted_.sum_a + missing * slowest_inv;
  const double inv = own.in ? own.inv : slowest_inv;
  return static_cast<double>(ranks()) * inv / total;
}

inline double PerfTable::sum_inv_mu() const {
  if (af_.count == 0) return 0.0;
  const auto missing = static_cast<double>(ranks() - af_.count);
  return af_.sum_a +
         (missing > 0.0 ? missing * terms_[static_cast<std::size_t>(af_.slowest)].af.inv : 0.0);
}

inline double PerfTable::sum_sigma2_over_mu() const {
  if (af_.count == 0) return 0.0;
  const auto missing = static_cast<double>(ranks() - af_.count);
  return af_.sum_b + (missing > 0.0
                          ? missing * terms_[static_cast<std::size_t>(af_.slowest)].af.extra
                          : 0.0);
}

inline double PerfTable::effective_mu(int r) const {
  const Term& own = terms_.at(static_cast<std::size_t>(r)).af;
  if (own.in) return own.value;
  return af_.count > 0 ? terms_[static_cast<std::size_t>(af_.slowest)].af.value : 0.0;
}

}  // namespace lb4mpi
