// Parameters of the chunk-size techniques. Defaults are the values `001`
// used for its Table 2 (N = 1000, P = 4). Pure C++, no MPI.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "lb4mpi/techniques/technique.hpp"
#include "lb4mpi/types.hpp"

namespace lb4mpi {

/// Bounds of RND's uniform chunk-size draw.
enum class RndBounds : std::uint8_t {
  Unit,      ///< [1, N/P]            (`001` Eq. 12, the default)
  Paper004,  ///< [N/(100P), N/(2P)]  (`004` and the original RND proposal)
};
/// "unit" or "paper004".
LB4MPI_API std::string_view name(RndBounds b);
/// "unit" or "paper004" (case-insensitive); throws lb4mpi::Error naming the
/// valid values.
LB4MPI_API RndBounds parse_rnd_bounds(std::string_view text);

/// A technique parameter outside its valid range. field() is the member's
/// name ("min_chunk", "sigma", ...), so a front end can say where the value
/// came from (an LB4MPI_* variable, a flag, a C API argument).
class LB4MPI_API InvalidParameter : public Error {
 public:
  /// The error `what` about the parameter `field`.
  InvalidParameter(std::string field, const std::string& what) : Error(what), field_(std::move(field)) {}
  /// The parameter's member name in TechniqueParams ("min_chunk", "sigma", ...).
  [[nodiscard]] const std::string& field() const { return field_; }

 private:
  std::string field_;
};

/// The parameters of the chunk-size techniques (docs/TECHNIQUES.md; each
/// has its LB4MPI_* variable, docs/OPTIONS.md). Defaults: `001`'s Table 2.
struct LB4MPI_API TechniqueParams {
  Index min_chunk = 1;   ///< every chunk but the last has at least this size
  Index max_chunk = 0;   ///< 0: no cap (AF: ceil(N/(2P)) unless set)
  double h = 0.013716;   ///< FSC: scheduling overhead of one chunk [s]
  double sigma = 0.0605; ///< FSC, TAP, FAC: std. deviation of an iteration's time [s]
  double mu = 0.1;       ///< TAP, FAC: mean of an iteration's time [s]
  double alpha = 0.0005; ///< TAP: the confidence factor v_alpha = alpha*sigma/mu
  int fiss_batches = 3;  ///< FISS: B, the number of batches (>= 2)
  double viss_x = 4.0;   ///< VISS: X, first chunk N/(X*P) (> 0)
  double pls_swr = 0.7;  ///< PLS: static workload ratio in [0, 1]
  RndBounds rnd_bounds = RndBounds::Unit;  ///< RND: the bounds of the draw
  std::uint64_t seed = 1;       ///< RND: the draw is a function of (seed, step)
  std::vector<double> weights;  ///< WF (and AWF's start): one positive weight per rank; empty = all 1

  /// Throws lb4mpi::Error saying what is wrong (e.g. "FISS needs
  /// fiss_batches >= 2, got 1"); InvalidParameter for a parameter. Only the
  /// parameters `t` uses are checked, plus N >= 0, P >= 1 and the chunk bounds
  /// (only these for Technique::Auto, whose candidates are checked one by one).
  void validate(Technique t, Index n, int p) const;
};

/// The shape of one loop: N iterations over P ranks.
struct LoopShape {
  Index n = 0;  ///< N, the loop's iterations
  int p = 1;    ///< P, the ranks
};

}  // namespace lb4mpi
