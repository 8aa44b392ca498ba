// Which scheduler a rank runs for a loop: the one place that knows every
// execution model (the models do not know each other).
#include "models.hpp"

#include "assign.hpp"
#include "coordinator.hpp"
#include "hier/hier.hpp"
#include "local.hpp"
#include "rma.hpp"
#include "robust_rma.hpp"
#include "worker.hpp"

namespace lb4mpi::rt {

std::unique_ptr<Scheduler> make_scheduler(Context& ctx, AdaptiveFeedback& feedback) {
  // Two levels: the global level among the nodes' leaders is one of the models below.
  if (ctx.config.model == Model::Hierarchical) return std::make_unique<hier::HierScheduler>(ctx);
  // The technique is asked whether its chunks need assigning at all.
  if (!feedback.calc().needs_assignment()) return std::make_unique<LocalScheduler>(ctx, feedback);
  switch (ctx.config.model) {
    case Model::DistributedRMA:
      if (!ctx.config.robust) return std::make_unique<RmaScheduler>(ctx, feedback);
      // Robust: closed forms keep the one-sided assignment. A technique
      // without one would lock the window's state while a rank computes its
      // chunk, and a rank that failed holding the lock would stop the loop:
      // its chunks are granted and evaluated as in robust distributed mode
      // (two-sided, nothing locked).
      if (info(ctx.config.technique).has_closed_form) return std::make_unique<RobustRmaScheduler>(ctx, feedback);
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

}  // namespace lb4mpi::rt
