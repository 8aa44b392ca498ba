// How a rank waits for another (a reply, a lock, the end of a loop, a
// collective): every poll loop of lb4mpi pauses through rt::backoff(), which
// follows the process's wait policy (LB4MPI_WAIT, Options::wait; collectives
// may block in the MPI library instead, blocking_collectives()):
//   spin   poll without pause: the lowest latency, a core per waiting rank;
//   yield  poll, after kSpinPolls fruitless polls yield the core between
//          polls (sched_yield): the core goes to a ready peer, if any;
//   block  poll, after a short spin sleep between polls (1 us doubling to
//          kBlockPauseCap): the core is left to the ranks that work, at the
//          price of up to kBlockPauseCap (plus the timer's slack) of latency.
// Automatic (the default): block when the ranks on this node outnumber the
// cores they may run on (their affinity masks together), else yield.
// The simulation build pauses in simulated time whatever the policy.
#pragma once
#include <mpi.h>

#include <cstdint>
#include <string_view>

namespace lb4mpi::rt {

enum class WaitPolicy : std::uint8_t { Auto, Spin, Yield, Block };
std::string_view name(WaitPolicy w);

/// What `requested` means on a node where `local_ranks` ranks of the job
/// share `cores` cores: itself unless Auto; Auto is Block when the ranks
/// outnumber the cores (and both are known, > 0), else Yield.
WaitPolicy choose_wait(WaitPolicy requested, int local_ranks, int cores);

/// Ranks and cores of this node, as seen by the ranks of `comm` here.
struct NodeShare {
  int local_ranks = 0;  ///< the most of: `comm`'s ranks on this node, the launcher's count
                        ///< (OMPI_COMM_WORLD_LOCAL_SIZE, MPI_LOCALNRANKS)
  int cores = 0;        ///< CPUs in the union of those ranks' affinity masks (0: unknown)
};
/// Collective over `comm` (MPI_Comm_split_type, MPI_Allreduce): done when
/// lb4mpi first uses a communicator (rt::private_channel). Remembered: the
/// node counts as oversubscribed once any communicator found it so.
NodeShare detect_node_share(MPI_Comm comm);
/// The share remembered by detect_node_share (zeros before any).
NodeShare node_share();

/// Sets the policy of this process's waits (an execution starts with its
/// configuration's), Auto resolved by choose_wait on node_share().
void set_wait_policy(WaitPolicy requested);
/// The policy in force (never Auto).
WaitPolicy wait_policy();

inline constexpr int kSpinPolls = 256;
/// Block: polls before the first sleep.
inline constexpr int kBlockSpinPolls = 64;
/// Block: the longest sleep between two polls [seconds].
inline constexpr double kBlockPauseCap = 50e-6;
/// Block: a rank that works between its looks for messages (a coordinator
/// executing its own chunks, a stealing victim) looks this many times less
/// often, and a worker asks for this many times more work per reply
/// (several chunks per reply). On an oversubscribed node each look may give
/// the core away — an MPI library yields in its progress engine there (Open
/// MPI's mpi_yield_when_idle) — and the ranks that wait sleep meanwhile:
/// Mandelbrot 256², FAC2, 4 ranks on 2 cores, the coordinator holding the
/// costliest chunk took 72 ms at 20 µs, 56 ms at 500 µs (factor 25), 49.8
/// ms at 2 ms (docs/RUNTIME.md).
inline constexpr double kBlockLatencyFactor = 100.0;
/// kBlockLatencyFactor under the Block policy in force, else 1.
double latency_factor();
/// The pause between two fruitless polls number `polls` and `polls + 1` of
/// something another rank must do first, by the policy in force.
void backoff(int polls);
/// Whether lb4mpi's collectives (rt::allreduce, allgather, barrier) call the
/// MPI library's blocking form instead of polling a non-blocking one through
/// backoff(), for a `requested` policy on a node where `local_ranks` ranks
/// share `cores` cores: under `spin`, and under `auto` when every rank has a
/// core (known counts only). The library's own wait then costs less (Open
/// MPI: about 3 us less per collective on 2 ranks) and yields nothing,
/// which only ranks that outnumber the cores need (a blocking collective
/// there spins: the 8-rank A2WS test took minutes) or a `yield` or `block`
/// asked for by name.
bool collectives_block(WaitPolicy requested, int local_ranks, int cores);
/// collectives_block() for this process: the policy last set and node_share().
/// A preference only: what a communicator's collectives are is decided by
/// all its ranks together (blocking_collectives(MPI_Comm), runtime/mpi.hpp).
bool blocking_collectives();

}  // namespace lb4mpi::rt
