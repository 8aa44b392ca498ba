// make_rule(): the technique's descriptor makes its rule.
#include "rules.hpp"

namespace lb4mpi {

std::unique_ptr<ChunkRule> make_rule(Technique t, LoopShape shape, const TechniqueParams& params) {
  const detail::Descriptor& d = detail::descriptor(t);
  std::unique_ptr<ChunkRule> rule = d.make(shape, params);
  rule->facts_ = &d.info;
  return rule;
}

}  // namespace lb4mpi
