// Private: one factory per technique unit (src/techniques/<name>.cpp). Each
// unit keeps its ChunkRule subclass to itself; make_rule() only dispatches.
// Every factory gets a shape and parameters that validate() accepted.
#pragma once
#include <memory>

#include "lb4mpi/techniques/chunk_calculator.hpp"

namespace lb4mpi::detail {

using RuleFactory = std::unique_ptr<ChunkRule> (*)(LoopShape, const TechniqueParams&);

std::unique_ptr<ChunkRule> make_static(LoopShape shape, const TechniqueParams& params);
std::unique_ptr<ChunkRule> make_ss(LoopShape shape, const TechniqueParams& params);
std::unique_ptr<ChunkRule> make_fsc(LoopShape shape, const TechniqueParams& params);
std::unique_ptr<ChunkRule> make_mfsc(LoopShape shape, const TechniqueParams& params);
std::unique_ptr<ChunkRule> make_gss(LoopShape shape, const TechniqueParams& params);
std::unique_ptr<ChunkRule> make_tap(LoopShape shape, const TechniqueParams& params);
std::unique_ptr<ChunkRule> make_tss(LoopShape shape, const TechniqueParams& params);
std::unique_ptr<ChunkRule> make_fac(LoopShape shape, const TechniqueParams& params);
std::unique_ptr<ChunkRule> make_fac2(LoopShape shape, const TechniqueParams& params);
std::unique_ptr<ChunkRule> make_tfss(LoopShape shape, const TechniqueParams& params);
std::unique_ptr<ChunkRule> make_fiss(LoopShape shape, const TechniqueParams& params);
std::unique_ptr<ChunkRule> make_viss(LoopShape shape, const TechniqueParams& params);
std::unique_ptr<ChunkRule> make_wf(LoopShape shape, const TechniqueParams& params);
std::unique_ptr<ChunkRule> make_awf(LoopShape shape, const TechniqueParams& params);
std::unique_ptr<ChunkRule> make_awf_b(LoopShape shape, const TechniqueParams& params);
std::unique_ptr<ChunkRule> make_awf_c(LoopShape shape, const TechniqueParams& params);
std::unique_ptr<ChunkRule> make_awf_d(LoopShape shape, const TechniqueParams& params);
std::unique_ptr<ChunkRule> make_awf_e(LoopShape shape, const TechniqueParams& params);
std::unique_ptr<ChunkRule> make_af(LoopShape shape, const TechniqueParams& params);
std::unique_ptr<ChunkRule> make_rnd(LoopShape shape, const TechniqueParams& params);
std::unique_ptr<ChunkRule> make_pls(LoopShape shape, const TechniqueParams& params);

}  // namespace lb4mpi::detail
