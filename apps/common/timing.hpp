// Time helpers of the apps, on the platform's clock (src/platform: the
// host's steady clock natively, the simulated clock in the simulation
// build). No MPI natively.
#pragma once
#include <cstdint>

#include "platform/platform.hpp"

namespace lb4mpi::apps {

/// Seconds on the platform's clock.
inline double now() { return platform::now(); }

/// Seconds elapsed since `start` (a reading of now()).
inline double seconds_since(double start) { return now() - start; }

/// Spends `ns` nanoseconds working (platform::spend: a busy wait natively,
/// in which time the process spends descheduled counts, so a spun iteration
/// lasts its nominal time however many ranks share a core; simulated
/// computation in the simulation build).
void spin_for_ns(std::int64_t ns);

/// Lets `ns` nanoseconds pass without working (natively a sleep: at least
/// that long, the OS timer slack adds to it).
void sleep_for_ns(std::int64_t ns);

}  // namespace lb4mpi::apps
