// The twenty-one chunk-size techniques: names, ids and descriptive facts.
// Pure C++, no MPI.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "lb4mpi/types.hpp"

namespace lb4mpi {

enum class Technique : std::uint8_t {
  STATIC,  // 001 Eq. 1
  SS,      // 001 Eq. 2
  FSC,     // 001 Eq. 3
  mFSC,    // 003 Appendix B
  GSS,     // 001 Eq. 4 / 14
  TAP,     // 001 Eq. 5 / 16
  TSS,     // 001 Eq. 6 / 17
  FAC,     // 000 Eq. 2.2 (probabilistic factoring)
  FAC2,    // 001 Eq. 7 / 15 (what LB4MPI calls FAC)
  TFSS,    // 001 Eq. 8 / 18
  FISS,    // 001 Eq. 9 / 19
  VISS,    // 001 Eq. 10 / 20
  WF,      // 003 §2.2.2.1, Appendix B
  AWF,     // 003 Appendix B (time-step weights)
  AWF_B,   // 003 Appendix B (batch weights, work time)
  AWF_C,   // 003 Appendix B (chunk weights, work time)
  AWF_D,   // 003 Appendix B (batch weights, elapsed time)
  AWF_E,   // 003 Appendix B (chunk weights, elapsed time)
  AF,      // 001 Eq. 11
  RND,     // 001 Eq. 12
  PLS,     // 001 Eq. 13 / 21
};

inline constexpr std::size_t kTechniqueCount = 21;

/// Facts about a technique that the runtime, the explorer and the docs use.
struct TechniqueInfo {
  Technique technique;
  std::string_view name;      ///< canonical name, e.g. "AWF-B"
  int legacy_id;              ///< id of `000` Table 4.1, -1 where it has none
  bool has_closed_form;       ///< chunk size from the step index alone (DCA)
  bool adaptive;              ///< needs per-rank timing feedback
  bool batched;               ///< groups of P steps share one size (FAC, WF, ...)
  std::string_view equation;  ///< where its formula comes from
};

/// All techniques in canonical order.
LB4MPI_API const std::array<TechniqueInfo, kTechniqueCount>& all_techniques();
LB4MPI_API const TechniqueInfo& info(Technique t);
LB4MPI_API std::string_view name(Technique t);

/// Parses a canonical name (case-insensitive; '-' and '_' are interchangeable)
/// or a numeric id of `000` Table 4.1 ("7" is FAC2, "8" and "wFAC" are WF).
/// Throws lb4mpi::Error naming the valid choices.
LB4MPI_API Technique parse_technique(std::string_view text);

/// "STATIC, SS, FSC, ..." — used in error messages and --help texts.
LB4MPI_API std::string valid_technique_names();

}  // namespace lb4mpi
