// SS: self-scheduling, one iteration per chunk, `001` Eq. 2.
#include "rules.hpp"

namespace lb4mpi::detail {
namespace {

class SsRule final : public ChunkRule {
 public:
  Index next(const StepContext& /*ctx*/) override { return 1; }
  // `001` Eq. 2: K_i = 1.
  [[nodiscard]] Index closed(Index /*step*/) const override { return 1; }
};

std::unique_ptr<ChunkRule> make_ss(LoopShape /*shape*/, const TechniqueParams& /*params*/) {
  return std::make_unique<SsRule>();
}

}  // namespace

extern const Descriptor kSsDescriptor{
    .info = {.technique = Technique::SS,
             .name = "SS",
             .legacy_id = 1,
             .has_closed_form = true,
             .equation = "001 Eq. 2",
             .c_id = 1,
             .c_name = "SS",
             .constant_size = true},
    .make = make_ss,
};

}  // namespace lb4mpi::detail
