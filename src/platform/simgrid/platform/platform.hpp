// What the machine gives lb4mpi and its apps — a clock, a way to spend time
// working — in a simulation by SimGrid's SMPI (LB4MPI_SIMGRID=ON; the native
// build has src/platform/native/platform/platform.hpp with the same names).
//
// Every rank is a simulated process on a simulated host: its clock is the
// simulated clock (MPI_Wtime), and work is simulated computation on its host
// (smpi_execute_benched: the simulated clock advances by the time given while
// the host does nothing). A host busy wait or a read of the host's clock
// would measure the simulator, not the simulated cluster.
#pragma once
#include <mpi.h>  // SMPI's: MPI_Wtime, smpi_execute_benched
#include <simgrid/actor.h>

#include <cstdio>
#include <cstdlib>

namespace lb4mpi::platform {

inline constexpr bool kSimulated = true;
inline constexpr const char* kName = "simgrid";
/// A simulated rank that waits costs no host time when it blocks in
/// MPI_Wait / MPI_Waitany or a blocking collective, while every MPI_Test of a
/// polling loop is a step of the simulation (and SMPI's nonblocking
/// collectives send O(P^2) messages: 40-60 s of host time for one
/// MPI_Iallreduce at 256 ranks), so waits block here.
inline constexpr bool kBlockingWaits = true;

/// Seconds on the simulated clock of this rank.
inline double now() { return MPI_Wtime(); }

/// Simulated computation of `seconds` on this rank's host.
inline void spend(double seconds) {
  if (seconds <= 0.0) return;
  smpi_execute_benched(seconds);
}

/// Lets `seconds` of simulated time pass without computing.
inline void sleep(double seconds) {
  if (seconds <= 0.0) return;
  sg_actor_sleep_for(seconds);
}

/// The pause after fruitless poll number `polls` (from 0) of something
/// another rank must do first (the RMA lock of the techniques without a
/// closed form, robust mode's waits with a deadline): every poll is a step
/// of the simulation, so a rank does not spin but lets simulated time pass,
/// 1 us after its first fruitless poll, doubling up to 64 us. (A spinning
/// rank, natively, polls again within a microsecond; 255 ranks spinning on
/// one lock made a 256-rank AF loop take over 10 minutes of host time.)
/// `spin_polls`, the native spin count, does not apply.
inline void pause(int polls, int /*spin_polls*/) {
  sleep(1e-6 * static_cast<double>(1 << (polls < 6 ? polls : 6)));
}

// A rank that stops (fail_stop, leave) does not end its actor: SMPI 3.32
// aborts the whole simulation ("Actor pid=N is gone??") when a rank starts
// a communication with an ended one, which lb4mpi's survivors may do (they
// cannot know it died or left), and SimGrid crashed in its teardown
// (~ActorImpl, EngineImpl::shutdown) after runs whose ranks ended without
// MPI_Finalize. The rank sleeps instead, for kStoppedFor simulated seconds:
// it takes no part in anything, messages sent to it are delivered to its
// mailbox (eager) or never matched (rendezvous). The first to wake up ends
// the host process (every rank's output flushed), before the teardown;
// every rank still running by then has hung.
inline constexpr double kStoppedFor = 1e6;

[[noreturn]] inline void stop_for_good() {
  std::fflush(nullptr);
  sg_actor_sleep_for(kStoppedFor);
  std::fflush(nullptr);
  std::_Exit(0);
}

/// A fail-stop failure of this rank (failure injection): the others never
/// hear from it again, as from a crashed process (stop_for_good).
[[noreturn]] inline void fail_stop(bool /*by_exit*/) { stop_for_good(); }

/// This rank leaves without MPI_Finalize (stop_for_good): `status` is not
/// seen by anybody.
[[noreturn]] inline void leave(int /*status*/) { stop_for_good(); }

}  // namespace lb4mpi::platform
