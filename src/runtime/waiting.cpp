#include "runtime/waiting.hpp"

#include <sched.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cstdlib>

#include "platform/platform.hpp"
#include "runtime/mpi.hpp"

namespace lb4mpi::rt {

namespace {

NodeShare g_share;
WaitPolicy g_policy = WaitPolicy::Yield;
WaitPolicy g_requested = WaitPolicy::Auto;  // what set_wait_policy was asked for

int env_count(const char* var) {
  const char* v = std::getenv(var);
  return v == nullptr ? 0 : std::max(0, std::atoi(v));
}

// This rank's affinity mask as words (MPI_BOR over the node's ranks).
using Mask = std::array<unsigned long, CPU_SETSIZE / (8 * sizeof(unsigned long))>;

Mask affinity() {
  Mask words{};
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return words;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (CPU_ISSET(cpu, &set)) {
      const auto bit = static_cast<std::size_t>(cpu);
      words[bit / (8 * sizeof(unsigned long))] |= 1UL << (bit % (8 * sizeof(unsigned long)));
    }
  }
  return words;
}

// Whether `local_ranks` ranks outnumber the `cores` they share (both known).
bool crowded(int local_ranks, int cores) { return local_ranks > 0 && cores > 0 && local_ranks > cores; }

}  // namespace

std::string_view name(WaitPolicy w) {
  switch (w) {
    case WaitPolicy::Auto: return "auto";
    case WaitPolicy::Spin: return "spin";
    case WaitPolicy::Yield: return "yield";
    case WaitPolicy::Block: return "block";
  }
  return "auto";
}

WaitPolicy choose_wait(WaitPolicy requested, int local_ranks, int cores) {
  if (requested != WaitPolicy::Auto) return requested;
  return crowded(local_ranks, cores) ? WaitPolicy::Block : WaitPolicy::Yield;
}

NodeShare detect_node_share(MPI_Comm comm) {
  if constexpr (platform::kSimulated) {
    return g_share;  // simulated hosts: the host machine's cores say nothing
  } else {
    MPI_Comm node = MPI_COMM_NULL;
    check_mpi(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node), "MPI_Comm_split_type");
    int here = 0;
    MPI_Comm_size(node, &here);
    Mask mask = affinity();
    const int rc = MPI_Allreduce(MPI_IN_PLACE, mask.data(), static_cast<int>(mask.size()), MPI_UNSIGNED_LONG,
                                 MPI_BOR, node);
    MPI_Comm_free(&node);
    check_mpi(rc, "MPI_Allreduce");
    NodeShare s;
    s.local_ranks = std::max({here, env_count("OMPI_COMM_WORLD_LOCAL_SIZE"), env_count("MPI_LOCALNRANKS")});
    for (unsigned long w : mask) s.cores += std::popcount(w);
    // Oversubscribed once is oversubscribed: keep the most crowded view.
    if (crowded(s.local_ranks, s.cores) || !crowded(g_share.local_ranks, g_share.cores)) g_share = s;
    return s;
  }
}

NodeShare node_share() { return g_share; }

void set_wait_policy(WaitPolicy requested) {
  g_policy = choose_wait(requested, g_share.local_ranks, g_share.cores);
  g_requested = requested;
}

bool collectives_block(WaitPolicy requested, int local_ranks, int cores) {
  if (requested == WaitPolicy::Spin) return true;
  return requested == WaitPolicy::Auto && local_ranks > 0 && cores > 0 && !crowded(local_ranks, cores);
}

bool blocking_collectives() {
  if constexpr (platform::kBlockingWaits) return true;
  return collectives_block(g_requested, g_share.local_ranks, g_share.cores);
}

WaitPolicy wait_policy() { return g_policy; }

double latency_factor() { return g_policy == WaitPolicy::Block ? kBlockLatencyFactor : 1.0; }

void backoff(int polls) {
  if constexpr (platform::kSimulated) {
    platform::pause(polls, kSpinPolls);
  } else {
    switch (g_policy) {
      case WaitPolicy::Spin:
        return;
      case WaitPolicy::Block:
        if (polls >= kBlockSpinPolls) {
          const int doubling = std::min(polls - kBlockSpinPolls, 6);
          platform::sleep(std::min(kBlockPauseCap, 1e-6 * static_cast<double>(1 << doubling)));
        }
        return;
      default:
        platform::pause(polls, kSpinPolls);
        return;
    }
  }
}

}  // namespace lb4mpi::rt
