// What the machine gives lb4mpi and its apps — a clock, a way to spend time
// working — on a real machine. The simulation build (LB4MPI_SIMGRID=ON)
// replaces this header with src/platform/simgrid/platform/platform.hpp; the
// build chooses one of the two include roots (src/platform/CMakeLists.txt),
// so no code that uses them is conditional on the build.
#pragma once
#include <sched.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <thread>

namespace lb4mpi::platform {

/// Whether time is simulated (SimGrid's SMPI) rather than the host's.
inline constexpr bool kSimulated = false;
/// The platform's name, for reports: "native" or "simgrid".
inline constexpr const char* kName = "native";
/// Whether lb4mpi's waits block inside MPI (MPI_Wait, blocking collectives)
/// rather than poll and yield the core between polls (runtime/mpi.hpp): on a
/// real machine with more ranks than cores a rank that waits must not take
/// the core from the one it waits for.
inline constexpr bool kBlockingWaits = false;

/// Seconds on the host's steady (monotonic) clock.
inline double now() {
  using clock = std::chrono::steady_clock;
  return std::chrono::duration<double>(clock::now().time_since_epoch()).count();
}

/// Spends `seconds` working: a busy wait on now(). Time the process spends
/// descheduled counts, so the work lasts its nominal time however many
/// ranks share a core.
inline void spend(double seconds) {
  if (seconds <= 0.0) return;
  const double until = now() + seconds;
  while (now() < until) {
  }
}

/// Lets `seconds` pass without working (at least; the OS timer slack adds to it).
inline void sleep(double seconds) {
  if (seconds <= 0.0) return;
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
}

/// The pause after fruitless poll number `polls` (from 0) of something
/// another rank must do first (a reply, a lock): none for the first
/// `spin_polls` polls (a reply on its way arrives within them), then the
/// core is yielded, so that a rank waiting for a peer that shares its core
/// (more ranks than cores) does not take the core's time from that peer.
inline void pause(int polls, int spin_polls) {
  if (polls >= spin_polls) sched_yield();
}

/// A fail-stop failure of this rank (failure injection): the process dies
/// by SIGKILL (a crashing node) or `_exit(1)` (`by_exit`), without
/// MPI_Finalize; the other ranks' waits on it never complete.
[[noreturn]] inline void fail_stop(bool by_exit) {
  if (!by_exit) raise(SIGKILL);
  _exit(1);
}

/// This rank leaves the job with `status`, without MPI_Finalize (which
/// could wait for a dead rank): the process ends. Flush output first.
[[noreturn]] inline void leave(int status) { _exit(status); }

}  // namespace lb4mpi::platform
