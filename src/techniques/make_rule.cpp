// make_rule(): dispatches a technique to its unit's factory.
#include <array>
#include <string>

#include "rules.hpp"

namespace lb4mpi {

namespace {

// In the order of enum class Technique.
constexpr std::array<detail::RuleFactory, kTechniqueCount> kFactories = {
    detail::make_static, detail::make_ss,    detail::make_fsc,   detail::make_mfsc,
    detail::make_gss,    detail::make_tap,   detail::make_tss,   detail::make_fac,
    detail::make_fac2,   detail::make_tfss,  detail::make_fiss,  detail::make_viss,
    detail::make_wf,     detail::make_awf,   detail::make_awf_b, detail::make_awf_c,
    detail::make_awf_d,  detail::make_awf_e, detail::make_af,    detail::make_rnd,
    detail::make_pls,
};
static_assert(static_cast<std::size_t>(Technique::PLS) + 1 == kTechniqueCount);

}  // namespace

std::unique_ptr<ChunkRule> make_rule(Technique t, LoopShape shape, const TechniqueParams& params) {
  const auto index = static_cast<std::size_t>(t);
  if (index >= kTechniqueCount) throw Error("unknown technique id " + std::to_string(index));
  return kFactories[index](shape, params);
}

}  // namespace lb4mpi
