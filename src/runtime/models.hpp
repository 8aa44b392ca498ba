// The scheduler of this rank for a loop, by execution model and role.
#pragma once
#include <memory>

#include "feedback.hpp"
#include "context.hpp"
#include "runtime/scheduler.hpp"

namespace lb4mpi::rt {

/// Needs the feedback's calculator started (AdaptiveFeedback::start).
std::unique_ptr<Scheduler> make_scheduler(Context& ctx, AdaptiveFeedback& feedback);

}  // namespace lb4mpi::rt
