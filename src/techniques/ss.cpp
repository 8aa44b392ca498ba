// SS: self-scheduling, one iteration per chunk, `001` Eq. 2.
#include "rules.hpp"

namespace lb4mpi::detail {
namespace {

class SsRule final : public ChunkRule {
 public:
  [[nodiscard]] bool constant_size() const override { return true; }
  Index next(const StepContext& /*ctx*/) override { return 1; }
  // `001` Eq. 2: K_i = 1.
  [[nodiscard]] Index closed(Index /*step*/) const override { return 1; }
};

}  // namespace

std::unique_ptr<ChunkRule> make_ss(LoopShape /*shape*/, const TechniqueParams& /*params*/) {
  return std::make_unique<SsRule>();
}

}  // namespace lb4mpi::detail
