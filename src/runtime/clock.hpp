// Monotonic time in seconds and the delay-injection spin (`001` §6).
#pragma once
#include <chrono>

namespace lb4mpi::detail {

inline double now() {
  using clock = std::chrono::steady_clock;
  return std::chrono::duration<double>(clock::now().time_since_epoch()).count();
}

/// Busy-waits `us` microseconds (a slowed-down chunk calculation).
inline void spin_for_us(double us) {
  if (us <= 0.0) return;
  const double until = now() + us * 1e-6;
  while (now() < until) {
  }
}

}  // namespace lb4mpi::detail
