// Which scheduler a rank runs for a loop: the one place that knows every
// execution model (the models do not know each other).
#include "models.hpp"

#include "assign.hpp"
#include "coordinator.hpp"
#include "local.hpp"
#include "rma.hpp"
#include "recovery/policy.hpp"
#include "worker.hpp"

namespace lb4mpi::rt {

std::unique_ptr<Scheduler> make_scheduler(Context& ctx, AdaptiveFeedback& feedback) {
  // The technique is asked whether its chunks need assigning at all.
  if (!feedback.calc().needs_assignment()) return std::make_unique<LocalScheduler>(ctx, feedback);
  switch (ctx.config.model) {
    case Model::DistributedRMA:
      if (!ctx.bounded()) return std::make_unique<RmaScheduler>(ctx, feedback);
      // Under recovery: the recovery unit's one-sided roles, or (techniques
      // without a closed form) the two-sided grants below.
      if (std::unique_ptr<Scheduler> s = make_recovering_rma(ctx, feedback)) return s;
      break;
    case Model::Centralized:
    case Model::Distributed:
      break;
  }
  std::unique_ptr<Assignment> a = make_assignment(ctx.config.model, ctx, feedback);
  if (ctx.is_coordinator()) return std::make_unique<Coordinator>(ctx, feedback, std::move(a));
  return std::make_unique<Worker>(ctx, feedback, std::move(a));
}

}  // namespace lb4mpi::rt
