// The twenty-one chunk-size techniques: names, ids and descriptive facts.
// Pure C++, no MPI.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "lb4mpi/types.hpp"

namespace lb4mpi {

/// The chunk-size techniques (docs/TECHNIQUES.md: formulas, parameters,
/// ids), each with the equation it implements, and Auto.
enum class Technique : std::uint8_t {
  STATIC,  ///< `001` Eq. 1
  SS,      ///< `001` Eq. 2
  FSC,     ///< `001` Eq. 3
  mFSC,    ///< `003` Appendix B
  GSS,     ///< `001` Eq. 4 / 14
  TAP,     ///< `001` Eq. 5 / 16
  TSS,     ///< `001` Eq. 6 / 17
  FAC,     ///< `000` Eq. 2.2 (probabilistic factoring)
  FAC2,    ///< `001` Eq. 7 / 15 (what LB4MPI calls FAC)
  TFSS,    ///< `001` Eq. 8 / 18
  FISS,    ///< `001` Eq. 9 / 19
  VISS,    ///< `001` Eq. 10 / 20
  WF,      ///< `003` §2.2.2.1, Appendix B
  AWF,     ///< `003` Appendix B (time-step weights)
  AWF_B,   ///< `003` Appendix B (batch weights, work time)
  AWF_C,   ///< `003` Appendix B (chunk weights, work time)
  AWF_D,   ///< `003` Appendix B (batch weights, elapsed time)
  AWF_E,   ///< `003` Appendix B (chunk weights, elapsed time)
  AF,      ///< `001` Eq. 11
  RND,     ///< `001` Eq. 12
  PLS,     ///< `001` Eq. 13 / 21
  /// Not a chunk-size rule: a loop's front end picks one of the 21 above for
  /// each execution from what the earlier executions measured (automatic
  /// selection, src/selection). The runtime and every rule only ever see
  /// the technique it picked.
  Auto,
};

/// The chunk-size techniques (Auto, the choice among them, is not one).
inline constexpr std::size_t kTechniqueCount = 21;

/// The technique a loop uses when none is given (options, the runtime's
/// configuration, a report before its loop ran): FAC2, LB4MPI's default.
inline constexpr Technique kDefaultTechnique = Technique::FAC2;

/// The technique that splits a loop evenly up front (STATIC): what an owned
/// loop without chunking and `000`'s fixed steal ratio are reported as.
inline constexpr Technique kEvenSplit = Technique::STATIC;

/// The technique whose first chunk a thief takes when an owned loop's steal
/// amount names none (`000` §4.1.4): GSS, ceil(R/P) of the victim's R
/// unstarted iterations. Ratios carry it too, unused.
inline constexpr Technique kDefaultStealTechnique = Technique::GSS;

/// The technique inside a node in hierarchical mode when none is named
/// (Options::node_technique, LB4MPI_NODE_SCHEDULING): GSS, few sub-chunks
/// that shrink towards the end of the node's chunk.
inline constexpr Technique kDefaultNodeTechnique = Technique::GSS;

/// What a rule learns from the timing of executed chunks (ChunkCalculator::record).
enum class ChunkFeedback : std::uint8_t {
  WorkTime,      ///< weighted performance from work time (AWF-B, AWF-C; rules that do not adapt ignore it)
  ElapsedTime,   ///< weighted performance from elapsed time, `003` tExclude (AWF-D, AWF-E)
  MeanAndSigma,  ///< mu and sigma only (AF; AWF, whose weights come from whole time steps)
};

/// Facts about a technique that the runtime, the explorer, the C API and the
/// docs use. Each technique states its own in its unit (`src/techniques/<name>.cpp`,
/// its descriptor); this table is collected from them.
struct TechniqueInfo {
  Technique technique = Technique::Auto;  ///< the technique
  std::string_view name;          ///< canonical name, e.g. "AWF-B"
  int legacy_id = -1;             ///< id of `000` Table 4.1, -1 where it has none
  bool has_closed_form = false;   ///< chunk size from the step index alone (DCA)
  bool adaptive = false;          ///< needs per-rank timing feedback
  bool batched = false;           ///< groups of P steps share one size (FAC, WF, ...)
  /// Every rank's share is fixed when the loop starts (STATIC): nothing is
  /// self-scheduled, so a failed rank's share cannot go to another.
  bool upfront = false;
  std::string_view equation;      ///< where its formula comes from
  int c_id = -1;                  ///< its id in the C API (lb4mpi.h): the legacy id, or 100 + n
  std::string_view c_name;        ///< its name in lb4mpi.h, e.g. "AWF_B", "LB4MPI_TAP"
  /// What the rule learns from each chunk's timing (ChunkRule::feedback).
  ChunkFeedback feedback = ChunkFeedback::WorkTime;
  /// The rule learns its weights from whole time steps (AWF).
  bool learns_from_time_steps = false;
  /// The recursive form is the closed sequence, the size depending on the
  /// step alone (TSS, TFSS): a capped recursive form follows the capped
  /// closed plan too.
  bool step_only = false;
  /// Every closed-form step has the same raw size (SS, FSC, mFSC): the start
  /// of step i is i times the (bounded) size.
  bool constant_size = false;
};

/// The C API id of Technique::Auto (LB4MPI_AUTO): the one after the last technique's.
inline constexpr int kAutoCId = 107;

/// All techniques in canonical order (not Auto).
LB4MPI_API const std::array<TechniqueInfo, kTechniqueCount>& all_techniques();
/// Throws lb4mpi::Error for Auto, which has no chunk-size facts.
LB4MPI_API const TechniqueInfo& info(Technique t);
/// The canonical name; "auto" for Technique::Auto.
LB4MPI_API std::string_view name(Technique t);

/// Parses a canonical name (case-insensitive; '-' and '_' are interchangeable),
/// a numeric id of `000` Table 4.1 ("7" is FAC2, "8" and "wFAC" are WF), or
/// "auto" (Technique::Auto). Throws lb4mpi::Error naming the valid choices.
LB4MPI_API Technique parse_technique(std::string_view text);

/// "STATIC, SS, FSC, ..., PLS, auto" — used in error messages and --help texts.
LB4MPI_API std::string valid_technique_names();

}  // namespace lb4mpi
