// mFSC: modified fixed-size chunking, `003` Appendix B (no h or sigma needed).
#include <cmath>

#include "math.hpp"
#include "rules.hpp"

namespace lb4mpi::detail {
namespace {

// `003` Appendix B: T = ceil(N/P), K = trunc(0.55 + T * ln 2 / ln T); T <= 1 gives 1.
Index mfsc_chunk(LoopShape shape) {
  const Index t = ceil_div(shape.n, shape.p);
  if (t <= 1) return 1;
  const double td = static_cast<double>(t);
  const Index k = trunc_to_index(0.55 + td * std::log(2.0) / std::log(td));
  return k < 1 ? 1 : k;
}

class MfscRule final : public ChunkRule {
 public:
  explicit MfscRule(Index chunk) : chunk_(chunk) {}
  Index next(const StepContext& /*ctx*/) override { return chunk_; }
  [[nodiscard]] Index closed(Index /*step*/) const override { return chunk_; }

 private:
  Index chunk_;
};

std::unique_ptr<ChunkRule> make_mfsc(LoopShape shape, const TechniqueParams& /*params*/) {
  return std::make_unique<MfscRule>(mfsc_chunk(shape));
}

}  // namespace

extern const Descriptor kMfscDescriptor{
    .info = {.technique = Technique::mFSC,
             .name = "mFSC",
             .legacy_id = 3,
             .has_closed_form = true,
             .equation = "003 Appendix B",
             .c_id = 3,
             .c_name = "mFSC",
             .constant_size = true},
    .make = make_mfsc,
};

}  // namespace lb4mpi::detail
