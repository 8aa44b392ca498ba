// The runtime's one clock (seconds, monotonic) and the delay-injection spin
// (`001` §6). Everything in lb4mpi that measures time reads it here.
#pragma once
#include <chrono>

namespace lb4mpi::rt {

inline double clock_now() {
  using clock = std::chrono::steady_clock;
  return std::chrono::duration<double>(clock::now().time_since_epoch()).count();
}

/// Busy-waits `us` microseconds (a slowed-down chunk calculation).
inline void spin_for_us(double us) {
  if (us <= 0.0) return;
  const double until = clock_now() + us * 1e-6;
  while (clock_now() < until) {
  }
}

}  // namespace lb4mpi::rt
