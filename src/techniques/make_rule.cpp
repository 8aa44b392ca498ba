// make_rule(): the technique's descriptor makes its rule.
#include "rules.hpp"

namespace lb4mpi {

std::unique_ptr<ChunkRule> make_rule(Technique t, LoopShape shape, const TechniqueParams& params) {
  const detail::Descriptor& d = detail::descriptor(t);
  std::unique_ptr<ChunkRule> rule = d.make(shape, params);
  rule->facts_ = &d.info;
  return rule;
}

const TechniqueInfo& ChunkRule::facts() const {
  static const TechniqueInfo kDefaults{};
  return facts_ != nullptr ? *facts_ : kDefaults;
}

}  // namespace lb4mpi
