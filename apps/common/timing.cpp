#include "timing.hpp"

namespace lb4mpi::apps {

void spin_for_ns(std::int64_t ns) {
  if (ns <= 0) return;
  platform::spend(static_cast<double>(ns) * 1e-9);
}

void sleep_for_ns(std::int64_t ns) {
  if (ns <= 0) return;
  platform::sleep(static_cast<double>(ns) * 1e-9);
}

}  // namespace lb4mpi::apps
