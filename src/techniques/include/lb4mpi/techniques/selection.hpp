// Automatic technique selection (Technique::Auto): a policy picks the
// technique of each execution of a loop from what the earlier executions of
// the same loop measured. Pure C++, no MPI, no clock: the front end feeds it
// figures every rank holds alike (the gathered report), so every rank makes
// the same choice without communicating (docs/SELECTION.md).
#pragma once
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "lb4mpi/techniques/technique.hpp"
#include "lb4mpi/types.hpp"

namespace lb4mpi::selection {

/// What one execution of a loop measured.
struct LB4MPI_API Measurement {
  Technique technique = Technique::FAC2;  ///< the technique it ran with
  Index iterations = 0;
  double t_par = 0.0;  ///< seconds
  /// Per rank: iterations executed and seconds inside the loop body (ranks
  /// that executed nothing have 0 and 0).
  std::vector<Index> rank_iterations;
  std::vector<double> rank_work;
  /// Per rank: seconds obtaining chunks (scheduling overhead).
  std::vector<double> rank_overhead;

  /// T_par per iteration: the figure the policies compare (a loop's range
  /// may change between executions). +inf without iterations.
  [[nodiscard]] double cost() const;
  /// Slowest over fastest per-iteration work time among the ranks that
  /// executed iterations, minus 1: 0 when all ranks run iterations equally
  /// fast, 3 when one is four times as slow (`004`'s slowed rank).
  [[nodiscard]] double speed_spread() const;
  /// T_par per iteration of an even split up front (STATIC) at the ranks'
  /// measured speeds: the slowest rank's time per iteration over the number
  /// of ranks. +inf without figures.
  [[nodiscard]] double upfront_cost() const;
  /// Share of the ranks' busy time spent obtaining chunks: Σ overhead / Σ (work + overhead).
  [[nodiscard]] double overhead_share() const;
};

/// A policy's choice for the next execution, and why, in words a person
/// reads in the report ("explore: trying GSS (2 of 5)").
struct Choice {
  Technique technique = Technique::FAC2;
  std::string reason;
};

/// The policies (LB4MPI_AUTO_POLICY); docs/SELECTION.md compares them.
enum class PolicyKind : std::uint8_t {
  Explore,  ///< explore each candidate once, then exploit the best; re-explore on a change
  Bandit,   ///< discounted UCB1 over the candidates (forgets old figures)
  Rule,     ///< an expert rule from measured per-rank speeds and scheduling overhead
};
LB4MPI_API std::string_view name(PolicyKind p);
/// "explore", "bandit", "rule" (case-insensitive); throws lb4mpi::Error naming them.
LB4MPI_API PolicyKind parse_policy(std::string_view text);
/// The default policy: the best on bench/run_auto_bench.py (docs/PERFORMANCE.md).
inline constexpr PolicyKind kDefaultPolicy = PolicyKind::Explore;

/// The candidates when none are given: a short list that covers the best
/// fixed technique of most benchmark cells (docs/SELECTION.md, "The default
/// candidates"); the first is what an execution without history runs (and
/// the first two executions run it: the first only warms up).
inline constexpr std::array<Technique, 4> kDefaultCandidates = {Technique::TSS, Technique::AWF_D, Technique::mFSC,
                                                                 Technique::STATIC};
LB4MPI_API std::vector<Technique> default_candidates();

class LB4MPI_API Policy {
 public:
  virtual ~Policy() = default;
  /// The technique of the next execution. Deterministic: the same calls
  /// with the same figures give the same choices on every rank.
  virtual Choice choose() = 0;
  /// What the execution that ran choose()'s technique measured.
  virtual void learn(const Measurement& m) = 0;
};

/// A policy over `candidates` (not empty, no Auto; duplicates are dropped).
/// `seed` makes any tie-breaking reproducible.
LB4MPI_API std::unique_ptr<Policy> make_policy(PolicyKind kind, std::vector<Technique> candidates,
                                               std::uint64_t seed = 0);

}  // namespace lb4mpi::selection
