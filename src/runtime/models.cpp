// Which scheduler a rank runs for a loop: the one place that knows every
// execution model (the models do not know each other).
#include "models.hpp"

#include "assign.hpp"
#include "coordinator.hpp"
#include "hier/hier.hpp"
#include "local.hpp"
#include "rma.hpp"
#include "recovery/policy.hpp"
#include "worker.hpp"

namespace lb4mpi::rt {

namespace {

std::unique_ptr<Scheduler> make_role(Context& ctx, AdaptiveFeedback& feedback) {
  switch (ctx.config.model) {
    case Model::DistributedRMA:
      if (!ctx.bounded()) return std::make_unique<RmaScheduler>(ctx, feedback);
      // Under recovery: the recovery unit's one-sided roles, or (techniques
      // without a closed form) the two-sided grants below.
      if (std::unique_ptr<Scheduler> s = make_recovering_rma(ctx, feedback)) return s;
      break;
    case Model::Centralized:
    case Model::Distributed:
    case Model::Hierarchical:
      break;
  }
  std::unique_ptr<Assignment> a = make_assignment(ctx.config.model, ctx, feedback);
  if (ctx.is_coordinator()) return std::make_unique<Coordinator>(ctx, feedback, std::move(a));
  return std::make_unique<Worker>(ctx, feedback, std::move(a));
}

}  // namespace

std::unique_ptr<Scheduler> make_scheduler(Context& ctx, AdaptiveFeedback& feedback) {
  // Two levels: the global level among the nodes' leaders is one of the models below.
  if (ctx.config.model == Model::Hierarchical) return std::make_unique<hier::HierScheduler>(ctx);
  // The technique is asked whether its chunks need assigning at all.
  if (!feedback.calc().needs_assignment()) return std::make_unique<LocalScheduler>(ctx, feedback);
  std::unique_ptr<Scheduler> role = make_role(ctx, feedback);
  // Under recovery a failed coordinator is replaced (recovery/failover.cpp).
  if (ctx.bounded()) return make_failover(ctx, feedback, std::move(role));
  return role;
}

}  // namespace lb4mpi::rt
