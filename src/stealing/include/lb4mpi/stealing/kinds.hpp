// The choices of an owned loop (a loop over distributed data, where every
// rank owns a range of iterations and their data; docs/STEALING.md): which
// balancer runs it, how much a thief takes, which rank it takes from.
// Pure C++, no MPI.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

#include "lb4mpi/export.h"
#include "lb4mpi/techniques/params.hpp"
#include "lb4mpi/techniques/technique.hpp"

namespace lb4mpi {

/// The balancer of an owned loop: one engine each, behind one interface
/// (src/stealing/internal/stealing/engine.hpp). A balancer whose engine is
/// not part of the build is refused on every rank ("not built in this build").
enum class Balancer : std::uint8_t {
  None,         ///< "none": each rank executes exactly the iterations it owns
  Steal,        ///< "steal": coordinator-relayed work stealing (`000` §4.1)
  A2WS,         ///< "a2ws": decentralized adaptive asynchronous work stealing (`002`)
  LW,           ///< "lw": leader-workers, the centralized baseline of `002`
  RandomSteal,  ///< "random-steal": decentralized random work stealing, a baseline of `002`
  Token,        ///< "token": token-based stealing, a baseline of `002`
};
/// The balancer's name: "none", "steal", "a2ws", "lw", "random-steal" or "token".
LB4MPI_API std::string_view name(Balancer b);
/// "none", "steal", "a2ws", "lw", "random-steal" (also "random_steal"), "token";
/// case-insensitive. Throws lb4mpi::Error naming the valid choices.
LB4MPI_API Balancer parse_balancer(std::string_view text);

/// Which rank a thief's request is relayed to (`000` §4.1.3).
enum class Victim : std::uint8_t {
  Random,         ///< "random": any rank that still has unstarted iterations, uniformly
  Locality,       ///< "locality": a rank on the thief's node first (MPI_COMM_TYPE_SHARED, or
                  ///< StealOptions::ranks_per_node), another node only when the thief's has none left
  NaiveLocality,  ///< "naive-locality": among the size/2 ranks next to the thief in rank order (`000` §4.1.3.3)
};
/// The victim selection's name: "random", "locality" or "naive-locality".
LB4MPI_API std::string_view name(Victim v);
/// "random", "locality", "naive-locality" (also "laws", "nlaws", `000`'s
/// names); case-insensitive. Throws lb4mpi::Error naming the valid choices.
LB4MPI_API Victim parse_victim(std::string_view text);

/// How many of a victim's unstarted iterations a thief takes (`000` §4.1.4):
/// a fixed share of them, or the first chunk that a DLS technique gives for
/// them (the technique applied to the victim's R remaining iterations on P
/// ranks: GSS takes ceil(R/P), FAC2 ceil(R/2P), SS one iteration, ...).
/// At least one iteration, at most R.
struct LB4MPI_API StealAmount {
  bool is_ratio = true;                ///< a share of the victim's iterations, not a technique
  double ratio = 0.5;                  ///< in (0, 1] when is_ratio
  Technique technique = kDefaultStealTechnique;  ///< a non-adaptive technique when !is_ratio

  /// A ratio of the victim's remaining iterations.
  static StealAmount of_ratio(double r) { return StealAmount{true, r, kDefaultStealTechnique}; }
  /// The technique's chunk of the victim's remaining iterations.
  static StealAmount of(Technique t) { return StealAmount{false, 0.5, t}; }
  /// "50%" or the technique's name.
  [[nodiscard]] std::string text() const;
  /// Iterations a thief takes from `remaining` (>= 1) unstarted ones on a
  /// communicator of `ranks` ranks; `thief` is the thief's rank (WF's
  /// weights). In [1, remaining].
  [[nodiscard]] Index take(Index remaining, int ranks, int thief, const TechniqueParams& params) const;
  /// "" when usable, else why not (a ratio outside (0, 1], an adaptive technique).
  [[nodiscard]] std::string check() const;
};
/// A technique name or `000` Table 4.1 id ("GSS", "4"), or a ratio as a
/// percentage or fraction ("50%", "0.5"). Throws lb4mpi::Error naming the forms.
LB4MPI_API StealAmount parse_steal_amount(std::string_view text);

}  // namespace lb4mpi
