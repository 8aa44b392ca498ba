// liblb4mpi_perturb: latency perturbation through the MPI profiling interface
// (004 §4.1, "Injecting failures and perturbations": "MPI communication calls
// are intercepted through MPI profiling interface, and [...] delays are added
// for any communication to or from a specified node").
//
// Loaded with LD_PRELOAD, it defines MPI_* entry points that wait
// LB4MPI_PERTURB_LATENCY_US microseconds and then call the PMPI_* function.
// A message is delayed once, on the sending side (the origin of a one-sided
// operation), when the caller or the destination (target) is one of the
// perturbed ranks of MPI_COMM_WORLD (LB4MPI_PERTURB_RANKS): a round trip
// between a perturbed rank and any other rank is 2 latencies longer.
// Destination ranks are translated to MPI_COMM_WORLD ranks through the
// communicator's (window's) group, cached per handle and forgotten when the
// program frees the handle. Not thread-safe (the counters and caches are
// plain globals); docs/PERTURBATION.md lists what is and is not intercepted.
#include <mpi.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "config.hpp"

#define LB4MPI_PERTURB_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

using Clock = std::chrono::steady_clock;
using lb4mpi::perturb::Config;

struct State {
  bool active = false;            // after MPI_Init, with perturbed ranks, before MPI_Finalize
  int world_rank = -1;
  int world_size = 0;
  bool self_perturbed = false;    // this rank is one of the perturbed ranks
  std::vector<char> world_flag;   // world rank -> perturbed
  std::chrono::nanoseconds latency{0};
  Config config;
  MPI_Group world_group = MPI_GROUP_NULL;
  std::unordered_map<MPI_Comm, std::vector<char>> comm_flags;  // (remote) group rank -> perturbed
  std::unordered_map<MPI_Win, std::vector<char>> win_flags;
  long long delayed_calls = 0;
  long long delayed_ns = 0;
  int depth = 0;                  // > 0 inside an intercepted call: no second delay
};

State& state() {
  static State* s = new State;  // never destroyed: a program may call MPI_Finalize from atexit
  return *s;
}

std::optional<std::string_view> env(const char* name) {
  const char* v = std::getenv(name);
  if (v == nullptr) return std::nullopt;
  return std::string_view(v);
}

// Waits d: nanosleep for all but the last 60 µs of waits of 100 µs or more
// (the scheduler's wake-up lateness), then a spin on steady_clock to the deadline.
void wait_for(std::chrono::nanoseconds d) {
  const auto deadline = Clock::now() + d;
  if (d >= std::chrono::microseconds(100)) {
    auto rest = d - std::chrono::microseconds(60);
    timespec ts{static_cast<time_t>(rest.count() / 1'000'000'000), static_cast<long>(rest.count() % 1'000'000'000)};
    timespec left{};
    while (nanosleep(&ts, &left) != 0 && errno == EINTR) ts = left;
  }
  while (Clock::now() < deadline) {
  }
}

std::vector<char> flags_of_group(MPI_Group group) {
  State& s = state();
  int n = 0;
  PMPI_Group_size(group, &n);
  std::vector<int> in(static_cast<std::size_t>(n)), out(static_cast<std::size_t>(n), MPI_UNDEFINED);
  for (int i = 0; i < n; ++i) in[static_cast<std::size_t>(i)] = i;
  if (n > 0) PMPI_Group_translate_ranks(group, n, in.data(), s.world_group, out.data());
  std::vector<char> flags(static_cast<std::size_t>(n), 0);
  for (std::size_t i = 0; i < flags.size(); ++i) {
    const int w = out[i];
    flags[i] = (w >= 0 && w < s.world_size && s.world_flag[static_cast<std::size_t>(w)]) ? 1 : 0;
  }
  return flags;
}

bool comm_rank_perturbed(MPI_Comm comm, int rank) {
  State& s = state();
  if (rank < 0) return false;  // MPI_PROC_NULL, MPI_ANY_SOURCE: no message to a rank
  if (comm == MPI_COMM_WORLD) return rank < s.world_size && s.world_flag[static_cast<std::size_t>(rank)];
  auto it = s.comm_flags.find(comm);
  if (it == s.comm_flags.end()) {
    int inter = 0;
    PMPI_Comm_test_inter(comm, &inter);
    MPI_Group g = MPI_GROUP_NULL;
    if (inter) {
      PMPI_Comm_remote_group(comm, &g);
    } else {
      PMPI_Comm_group(comm, &g);
    }
    it = s.comm_flags.emplace(comm, flags_of_group(g)).first;
    PMPI_Group_free(&g);
  }
  return static_cast<std::size_t>(rank) < it->second.size() && it->second[static_cast<std::size_t>(rank)];
}

bool win_rank_perturbed(MPI_Win win, int rank) {
  State& s = state();
  if (rank < 0) return false;
  auto it = s.win_flags.find(win);
  if (it == s.win_flags.end()) {
    MPI_Group g = MPI_GROUP_NULL;
    PMPI_Win_get_group(win, &g);
    it = s.win_flags.emplace(win, flags_of_group(g)).first;
    PMPI_Group_free(&g);
  }
  return static_cast<std::size_t>(rank) < it->second.size() && it->second[static_cast<std::size_t>(rank)];
}

// RAII: marks the intercepted call (so an MPI library that implements one
// MPI_ function with another public one does not delay twice) and delays a
// message to `peer` (MPI_PROC_NULL: no message, no delay) when the caller is
// perturbed or `is_perturbed()` (evaluated only when the caller is not).
class Intercept {
 public:
  template <class IsPerturbed>
  Intercept(int peer, IsPerturbed&& is_perturbed) {
    State& s = state();
    if (s.active && s.depth == 0 && peer != MPI_PROC_NULL && (s.self_perturbed || is_perturbed())) {
      wait_for(s.latency);
      ++s.delayed_calls;
      s.delayed_ns += s.latency.count();
    }
    ++s.depth;
  }
  ~Intercept() { --state().depth; }
  Intercept(const Intercept&) = delete;
  Intercept& operator=(const Intercept&) = delete;
};

#define LB4MPI_TO_COMM_RANK(comm, rank) Intercept guard_(rank, [&] { return comm_rank_perturbed(comm, rank); })
#define LB4MPI_TO_WIN_RANK(win, rank) Intercept guard_(rank, [&] { return win_rank_perturbed(win, rank); })

// After PMPI_Init(_thread): reads the configuration; on a bad value, every
// rank learns it (so none is left waiting in a collective), the lowest rank
// that saw it prints the message, and all end with exit code 2.
void after_init() {
  State& s = state();
  PMPI_Comm_rank(MPI_COMM_WORLD, &s.world_rank);
  PMPI_Comm_size(MPI_COMM_WORLD, &s.world_size);
  const auto parsed = lb4mpi::perturb::parse_config(env("LB4MPI_PERTURB_RANKS"), env("LB4MPI_PERTURB_LATENCY_US"),
                                                    env("LB4MPI_PERTURB_VERBOSE"));
  const int mine = parsed.error.empty() ? s.world_size : s.world_rank;
  int first_bad = s.world_size;
  PMPI_Allreduce(&mine, &first_bad, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (first_bad < s.world_size) {
    if (first_bad == s.world_rank) {
      std::fprintf(stderr, "lb4mpi_perturb: %s\n", parsed.error.c_str());
      std::fflush(stderr);
    }
    PMPI_Barrier(MPI_COMM_WORLD);
    PMPI_Finalize();
    std::exit(2);
  }
  s.config = parsed.config;
  s.latency = std::chrono::microseconds(s.config.latency_us);
  s.world_flag.assign(static_cast<std::size_t>(s.world_size), 0);
  std::string listed, ignored;
  for (int r : s.config.ranks) {
    std::string& to = r < s.world_size ? listed : ignored;
    to += (to.empty() ? "" : ",") + std::to_string(r);
    if (r < s.world_size) s.world_flag[static_cast<std::size_t>(r)] = 1;
  }
  s.self_perturbed = s.world_flag[static_cast<std::size_t>(s.world_rank)] != 0;
  PMPI_Comm_group(MPI_COMM_WORLD, &s.world_group);
  s.active = !listed.empty();
  if (s.world_rank == 0 && !ignored.empty()) {
    std::fprintf(stderr, "lb4mpi_perturb: LB4MPI_PERTURB_RANKS: rank(s) %s not in MPI_COMM_WORLD (size %d), ignored\n",
                 ignored.c_str(), s.world_size);
  }
  if (s.world_rank == 0 && s.config.verbose) {
    std::fprintf(stderr, "lb4mpi_perturb: +%lld us per message to or from world rank(s) %s\n",
                 static_cast<long long>(s.config.latency_us), listed.empty() ? "(none)" : listed.c_str());
  }
}

}  // namespace

// ---- Counters (for tests and tools: dlsym(RTLD_DEFAULT, ...)) ----------------------
/// Intercepted calls this rank delayed so far.
LB4MPI_PERTURB_EXPORT long long lb4mpi_perturb_delayed_calls(void) { return state().delayed_calls; }
/// Total delay this rank added so far, in nanoseconds.
LB4MPI_PERTURB_EXPORT long long lb4mpi_perturb_delayed_ns(void) { return state().delayed_ns; }

// ---- Set-up and tear-down -----------------------------------------------------------
LB4MPI_PERTURB_EXPORT int MPI_Init(int* argc, char*** argv) {
  const int rc = PMPI_Init(argc, argv);
  if (rc == MPI_SUCCESS) after_init();
  return rc;
}

LB4MPI_PERTURB_EXPORT int MPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
  const int rc = PMPI_Init_thread(argc, argv, required, provided);
  if (rc == MPI_SUCCESS) after_init();
  return rc;
}

LB4MPI_PERTURB_EXPORT int MPI_Finalize(void) {
  State& s = state();
  if (s.config.verbose && s.world_rank >= 0) {
    std::fprintf(stderr, "lb4mpi_perturb: rank %d delayed %lld calls, %.3f ms in all\n", s.world_rank,
                 s.delayed_calls, static_cast<double>(s.delayed_ns) / 1e6);
  }
  s.active = false;
  s.comm_flags.clear();
  s.win_flags.clear();
  if (s.world_group != MPI_GROUP_NULL) PMPI_Group_free(&s.world_group);
  return PMPI_Finalize();
}

// Freed handles may be reused by the next communicator or window: forget them.
LB4MPI_PERTURB_EXPORT int MPI_Comm_free(MPI_Comm* comm) {
  state().comm_flags.erase(*comm);
  return PMPI_Comm_free(comm);
}

LB4MPI_PERTURB_EXPORT int MPI_Comm_disconnect(MPI_Comm* comm) {
  state().comm_flags.erase(*comm);
  return PMPI_Comm_disconnect(comm);
}

LB4MPI_PERTURB_EXPORT int MPI_Win_free(MPI_Win* win) {
  state().win_flags.erase(*win);
  return PMPI_Win_free(win);
}

// ---- Point-to-point sends: delayed when the caller or `dest` is perturbed ----------
LB4MPI_PERTURB_EXPORT int MPI_Send(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  LB4MPI_TO_COMM_RANK(comm, dest);
  return PMPI_Send(buf, count, type, dest, tag, comm);
}

LB4MPI_PERTURB_EXPORT int MPI_Ssend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  LB4MPI_TO_COMM_RANK(comm, dest);
  return PMPI_Ssend(buf, count, type, dest, tag, comm);
}

LB4MPI_PERTURB_EXPORT int MPI_Rsend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  LB4MPI_TO_COMM_RANK(comm, dest);
  return PMPI_Rsend(buf, count, type, dest, tag, comm);
}

LB4MPI_PERTURB_EXPORT int MPI_Bsend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  LB4MPI_TO_COMM_RANK(comm, dest);
  return PMPI_Bsend(buf, count, type, dest, tag, comm);
}

LB4MPI_PERTURB_EXPORT int MPI_Isend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                                   MPI_Request* req) {
  LB4MPI_TO_COMM_RANK(comm, dest);
  return PMPI_Isend(buf, count, type, dest, tag, comm, req);
}

LB4MPI_PERTURB_EXPORT int MPI_Issend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                                    MPI_Request* req) {
  LB4MPI_TO_COMM_RANK(comm, dest);
  return PMPI_Issend(buf, count, type, dest, tag, comm, req);
}

LB4MPI_PERTURB_EXPORT int MPI_Irsend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                                    MPI_Request* req) {
  LB4MPI_TO_COMM_RANK(comm, dest);
  return PMPI_Irsend(buf, count, type, dest, tag, comm, req);
}

LB4MPI_PERTURB_EXPORT int MPI_Ibsend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                                    MPI_Request* req) {
  LB4MPI_TO_COMM_RANK(comm, dest);
  return PMPI_Ibsend(buf, count, type, dest, tag, comm, req);
}

LB4MPI_PERTURB_EXPORT int MPI_Sendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest,
                                      int sendtag, void* recvbuf, int recvcount, MPI_Datatype recvtype, int source,
                                      int recvtag, MPI_Comm comm, MPI_Status* status) {
  LB4MPI_TO_COMM_RANK(comm, dest);
  return PMPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source, recvtag,
                       comm, status);
}

LB4MPI_PERTURB_EXPORT int MPI_Sendrecv_replace(void* buf, int count, MPI_Datatype type, int dest, int sendtag,
                                              int source, int recvtag, MPI_Comm comm, MPI_Status* status) {
  LB4MPI_TO_COMM_RANK(comm, dest);
  return PMPI_Sendrecv_replace(buf, count, type, dest, sendtag, source, recvtag, comm, status);
}

// ---- One-sided operations: delayed when the caller or the target is perturbed ------
LB4MPI_PERTURB_EXPORT int MPI_Put(const void* origin, int origin_count, MPI_Datatype origin_type, int target,
                                 MPI_Aint disp, int target_count, MPI_Datatype target_type, MPI_Win win) {
  LB4MPI_TO_WIN_RANK(win, target);
  return PMPI_Put(origin, origin_count, origin_type, target, disp, target_count, target_type, win);
}

LB4MPI_PERTURB_EXPORT int MPI_Get(void* origin, int origin_count, MPI_Datatype origin_type, int target, MPI_Aint disp,
                                 int target_count, MPI_Datatype target_type, MPI_Win win) {
  LB4MPI_TO_WIN_RANK(win, target);
  return PMPI_Get(origin, origin_count, origin_type, target, disp, target_count, target_type, win);
}

LB4MPI_PERTURB_EXPORT int MPI_Accumulate(const void* origin, int origin_count, MPI_Datatype origin_type, int target,
                                        MPI_Aint disp, int target_count, MPI_Datatype target_type, MPI_Op op,
                                        MPI_Win win) {
  LB4MPI_TO_WIN_RANK(win, target);
  return PMPI_Accumulate(origin, origin_count, origin_type, target, disp, target_count, target_type, op, win);
}

LB4MPI_PERTURB_EXPORT int MPI_Get_accumulate(const void* origin, int origin_count, MPI_Datatype origin_type,
                                            void* result, int result_count, MPI_Datatype result_type, int target,
                                            MPI_Aint disp, int target_count, MPI_Datatype target_type, MPI_Op op,
                                            MPI_Win win) {
  LB4MPI_TO_WIN_RANK(win, target);
  return PMPI_Get_accumulate(origin, origin_count, origin_type, result, result_count, result_type, target, disp,
                             target_count, target_type, op, win);
}

LB4MPI_PERTURB_EXPORT int MPI_Fetch_and_op(const void* origin, void* result, MPI_Datatype type, int target,
                                          MPI_Aint disp, MPI_Op op, MPI_Win win) {
  LB4MPI_TO_WIN_RANK(win, target);
  return PMPI_Fetch_and_op(origin, result, type, target, disp, op, win);
}

LB4MPI_PERTURB_EXPORT int MPI_Compare_and_swap(const void* origin, const void* compare, void* result,
                                              MPI_Datatype type, int target, MPI_Aint disp, MPI_Win win) {
  LB4MPI_TO_WIN_RANK(win, target);
  return PMPI_Compare_and_swap(origin, compare, result, type, target, disp, win);
}

LB4MPI_PERTURB_EXPORT int MPI_Rput(const void* origin, int origin_count, MPI_Datatype origin_type, int target,
                                  MPI_Aint disp, int target_count, MPI_Datatype target_type, MPI_Win win,
                                  MPI_Request* req) {
  LB4MPI_TO_WIN_RANK(win, target);
  return PMPI_Rput(origin, origin_count, origin_type, target, disp, target_count, target_type, win, req);
}

LB4MPI_PERTURB_EXPORT int MPI_Rget(void* origin, int origin_count, MPI_Datatype origin_type, int target,
                                  MPI_Aint disp, int target_count, MPI_Datatype target_type, MPI_Win win,
                                  MPI_Request* req) {
  LB4MPI_TO_WIN_RANK(win, target);
  return PMPI_Rget(origin, origin_count, origin_type, target, disp, target_count, target_type, win, req);
}

LB4MPI_PERTURB_EXPORT int MPI_Raccumulate(const void* origin, int origin_count, MPI_Datatype origin_type, int target,
                                         MPI_Aint disp, int target_count, MPI_Datatype target_type, MPI_Op op,
                                         MPI_Win win, MPI_Request* req) {
  LB4MPI_TO_WIN_RANK(win, target);
  return PMPI_Raccumulate(origin, origin_count, origin_type, target, disp, target_count, target_type, op, win, req);
}

LB4MPI_PERTURB_EXPORT int MPI_Rget_accumulate(const void* origin, int origin_count, MPI_Datatype origin_type,
                                             void* result, int result_count, MPI_Datatype result_type, int target,
                                             MPI_Aint disp, int target_count, MPI_Datatype target_type, MPI_Op op,
                                             MPI_Win win, MPI_Request* req) {
  LB4MPI_TO_WIN_RANK(win, target);
  return PMPI_Rget_accumulate(origin, origin_count, origin_type, result, result_count, result_type, target, disp,
                              target_count, target_type, op, win, req);
}
