#include "timing.hpp"

#include <thread>

namespace lb4mpi::apps {

void spin_for_ns(std::int64_t ns) {
  if (ns <= 0) return;
  const auto deadline = SteadyClock::now() + std::chrono::nanoseconds(ns);
  while (SteadyClock::now() < deadline) {
  }
}

void sleep_for_ns(std::int64_t ns) {
  if (ns <= 0) return;
  std::this_thread::sleep_for(std::chrono::nanoseconds(ns));
}

}  // namespace lb4mpi::apps
