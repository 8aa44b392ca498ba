// Wall-clock helpers of the apps. No MPI.
#pragma once
#include <chrono>
#include <cstdint>

namespace lb4mpi::apps {

using SteadyClock = std::chrono::steady_clock;

/// Seconds elapsed since `start` on the steady clock.
inline double seconds_since(SteadyClock::time_point start) {
  return std::chrono::duration<double>(SteadyClock::now() - start).count();
}

/// Busy-waits until `ns` nanoseconds of wall-clock time have passed. Time the
/// process spends descheduled counts, so a spun iteration lasts its nominal
/// time however many ranks share a core.
void spin_for_ns(std::int64_t ns);

/// Sleeps for `ns` nanoseconds (at least; the OS timer slack adds to it).
void sleep_for_ns(std::int64_t ns);

}  // namespace lb4mpi::apps
