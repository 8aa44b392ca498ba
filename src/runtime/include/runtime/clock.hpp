// The runtime's one clock (seconds, monotonic) and the delay-injection spin
// (`001` §6). Everything in lb4mpi that measures time reads it here. Both
// come from the platform (src/platform): the host's steady clock and a busy
// wait natively, the simulated clock and simulated computation in the
// simulation build (LB4MPI_SIMGRID=ON).
#pragma once
#include "platform/platform.hpp"

namespace lb4mpi::rt {

inline double clock_now() { return platform::now(); }

/// Spends `us` microseconds working (a slowed-down chunk calculation, a
/// slowed rank's extra work).
inline void spin_for_us(double us) { platform::spend(us * 1e-6); }

}  // namespace lb4mpi::rt
