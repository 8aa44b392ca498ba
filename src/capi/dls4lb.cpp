// DLS4LB's setup calls (dls4lb.hpp says what each is): DLS_Setup,
// get_DLS_ShortName, DLS_GroupSetup and the outer ("Type II") loop's relay.
#include "dls4lb.hpp"

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "lb4mpi/lb4mpi.h"

using namespace lb4mpi::capi::detail;  // NOLINT(google-build-using-namespace): this layer's internals

namespace lb4mpi::capi::detail {
namespace {

// DLS4LB's defaults for FSC (DLS.f90's infoDLS: h = 0.0002 s, sigma = 0.0001 s).
constexpr double kDls4lbH = 0.0002;
constexpr double kDls4lbSigma = 0.0001;

// A CState for agreements over `c` (its own duplicate of it).
std::unique_ptr<CState> own_state(MPI_Comm c) {
  auto st = std::make_unique<CState>();
  st->user = c;
  check(st.get(), MPI_Comm_dup(c, &st->comm), "DLS_GroupSetup: MPI_Comm_dup");
  st->deferred.open(st->comm, "the arguments of DLS_StartLoop");
  check(st.get(), MPI_Comm_rank(st->comm, &st->rank), "MPI_Comm_rank");
  check(st.get(), MPI_Comm_size(st->comm, &st->size), "MPI_Comm_size");
  return st;
}

// LB4MPI_RANKS_PER_NODE (emulated nodes of k consecutive ranks), 0 when
// unset: "" or the error.
std::string ranks_per_node(int& k) {
  k = 0;
  const char* v = std::getenv("LB4MPI_RANKS_PER_NODE");
  if (v == nullptr || *v == '\0') return {};
  char* end = nullptr;
  const long n = std::strtol(v, &end, 10);
  if (*end != '\0' || n < 0 || n > 1 << 30) {
    return std::string("lb4mpi: DLS_GroupSetup: LB4MPI_RANKS_PER_NODE='") + v +
           "': valid: 0 (group by processor name) or ranks per emulated node >= 1";
  }
  k = static_cast<int>(n);
  return {};
}

// The group of each rank: the lowest rank on the same node (processor name),
// or rank / k for emulated nodes of k ranks.
int node_color(CState* world, int k) {
  if (k > 0) return world->rank / k;
  std::vector<char> mine(MPI_MAX_PROCESSOR_NAME + 1, '\0');
  int len = 0;
  check(world, MPI_Get_processor_name(mine.data(), &len), "DLS_GroupSetup: MPI_Get_processor_name");
  const auto width = static_cast<std::size_t>(MPI_MAX_PROCESSOR_NAME + 1);
  std::vector<char> all(width * static_cast<std::size_t>(world->size));
  check(world, MPI_Allgather(mine.data(), static_cast<int>(width), MPI_CHAR, all.data(),
                             static_cast<int>(width), MPI_CHAR, world->comm),
        "DLS_GroupSetup: MPI_Allgather");
  for (int r = 0; r < world->size; ++r) {
    if (std::strncmp(all.data() + width * static_cast<std::size_t>(r), mine.data(), width) == 0) return r;
  }
  return world->rank;
}

GroupRole& role(CState* st) { return *st->group; }

// The leader's chunk (or the end) to every member of the group, once per chunk.
void relay(CState* st) {
  GroupRole& g = role(st);
  if (g.relayed) return;
  if (g.leader) {
    g.msg[0] = terminated_of(st);
    g.msg[1] = st->current ? st->current->begin : 0;
    g.msg[2] = st->current ? st->current->size : 0;
  }
  if (g.crew_size > 1) check(st, MPI_Bcast(g.msg, 3, MPI_INT64_T, 0, g.crew), "DLS_GroupSetup relay: MPI_Bcast");
  g.relayed = true;
}

}  // namespace

GroupRole::~GroupRole() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized == 0 && crew != MPI_COMM_NULL) MPI_Comm_free(&crew);
}

void group_start_loop(CState* st, int firstIter, int lastIter, int method) {
  GroupRole& g = role(st);
  Technique t{};
  Options opt;
  std::string error = start_loop_check(st, firstIter, lastIter, method, t, opt);
  if (error.empty() && g.active) error = "lb4mpi: DLS_StartLoop: the previous loop is still in flight (call DLS_EndLoop first)";
  Hasher h;
  h.add(firstIter).add(lastIter).add(method).add(opt.mode);
  // Over the whole job: a member's mistake is reported on every rank.
  agree(g.world.get(), "DLS_StartLoop", error, h.value(),
        [&] { return start_loop_fields(firstIter, lastIter, method, opt.mode); });
  if (g.leader) start_loop_run(st, firstIter, lastIter, t, opt);
  g.active = true;
  g.relayed = false;
  g.iterations = 0;
  g.work_time = 0.0;
  g.chunk_started = -1.0;
}

int group_terminated(CState* st) {
  GroupRole& g = role(st);
  if (!g.active) abort_job(st->user, "lb4mpi: DLS_Terminated called outside DLS_StartLoop ... DLS_EndLoop");
  relay(st);
  return static_cast<int>(g.msg[0]);
}

void group_start_chunk(CState* st, int* chunkStart, int* chunkSize) {
  GroupRole& g = role(st);
  if (chunkStart == nullptr || chunkSize == nullptr)
    abort_job(st->user, "lb4mpi: DLS_StartChunk: chunkStart and chunkSize must not be NULL");
  if (!g.active) abort_job(st->user, "lb4mpi: DLS_StartChunk called outside DLS_StartLoop ... DLS_EndLoop");
  relay(st);
  if (g.leader) {
    start_chunk_of(st, chunkStart, chunkSize);
  } else {
    *chunkStart = to_int(st, g.msg[1], "the chunk start");
    *chunkSize = to_int(st, g.msg[2], "the chunk size");
  }
  g.relayed = false;  // the next call relays the next chunk
  g.iterations += *chunkSize;
  g.chunk_started = *chunkSize > 0 ? MPI_Wtime() : -1.0;
}

void group_end_chunk(CState* st) {
  GroupRole& g = role(st);
  if (!g.active) abort_job(st->user, "lb4mpi: DLS_EndChunk called outside DLS_StartLoop ... DLS_EndLoop");
  if (g.chunk_started >= 0.0) g.work_time += MPI_Wtime() - g.chunk_started;
  g.chunk_started = -1.0;
  if (g.leader) end_chunk_of(st);
}

void group_end_loop(CState* st, int* nIter, double* workTime) {
  GroupRole& g = role(st);
  if (!g.active) abort_job(st->user, "lb4mpi: DLS_EndLoop called without DLS_StartLoop");
  std::string error;
  if (g.leader) {
    error = end_loop_run(st, nIter, workTime);
  } else {
    if (!g.relayed || g.msg[0] == 0) {
      error = "lb4mpi: DLS_EndLoop was called on rank " + std::to_string(g.world->rank) +
              " before DLS_Terminated returned 1 (a member of a DLS_GroupSetup group)";
    }
    if (nIter != nullptr) *nIter = to_int(st, g.iterations, "the iteration count");
    if (workTime != nullptr) *workTime = g.work_time;
  }
  g.active = false;
  g.relayed = false;
  agree(g.world.get(), "DLS_EndLoop", error, 0);
}

}  // namespace lb4mpi::capi::detail

extern "C" {

char* get_DLS_ShortName(int method) {
  static std::vector<std::string> names;  // the technique layer's names, kept for the returned pointers
  static std::string unknown = "unknown";
  std::string n;
  try {
    n = std::string(lb4mpi::name(technique_of(method)));
  } catch (const std::exception&) {
    return unknown.data();
  }
  for (std::string& s : names)
    if (s == n) return s.data();
  names.reserve(64);  // never reallocates: pointers handed out stay valid
  names.push_back(n);
  return names.back().data();
}

void DLS_Setup(MPI_Comm comm, infoDLS* info) {
  if (comm == MPI_COMM_NULL) abort_job(MPI_COMM_WORLD, "lb4mpi: DLS_Setup: the communicator is MPI_COMM_NULL");
  int size = 0;
  MPI_Comm_size(comm, &size);
  // DLS4LB's FSC defaults, unless LB4MPI_H / LB4MPI_SIGMA say otherwise (an
  // invalid variable is reported by DLS_Parameters_Setup on every rank).
  double h = kDls4lbH;
  double sigma = kDls4lbSigma;
  try {
    const Options env = Options::from_env();
    if (env.origin.count("h") != 0) h = env.params.h;
    if (env.origin.count("sigma") != 0) sigma = env.params.sigma;
  } catch (const std::exception&) {
  }
  DLS_Parameters_Setup(comm, info, size, -1, -1, 0, h, sigma, 0, 1.0, 1.0);
}

void DLS_GroupSetup(MPI_Comm world, int coordinator, infoDLS* GS, infoDLS* LS) {
  if (world == MPI_COMM_NULL) abort_job(MPI_COMM_WORLD, "lb4mpi: DLS_GroupSetup: the communicator is MPI_COMM_NULL");
  if (GS == nullptr || LS == nullptr) abort_job(world, "lb4mpi: DLS_GroupSetup: GS and LS must not be NULL");
  std::unique_ptr<CState> whole = own_state(world);
  int k = 0;
  std::string error = take_pending();
  if (error.empty()) error = ranks_per_node(k);
  if (error.empty() && (coordinator < 0 || coordinator >= whole->size)) {
    error = "lb4mpi: DLS_GroupSetup: the coordinator must be a rank of the communicator, 0.." +
            std::to_string(whole->size - 1) + ", got " + std::to_string(coordinator);
  }
  Hasher h;
  h.add(coordinator).add(k);
  agree(whole.get(), "DLS_GroupSetup", error, h.value(), [&] {
    return Fields{{"coordinator", shown(coordinator)}, {"LB4MPI_RANKS_PER_NODE", shown(k)}};
  });

  // Groups: the nodes, the coordinator in a group of its own (it schedules
  // the outer loop and runs outer iterations too, alone).
  const bool is_coordinator = whole->rank == coordinator;
  const int node = node_color(whole.get(), k);  // collective (processor names)
  const int color = is_coordinator ? whole->size : node;
  MPI_Comm icomm = MPI_COMM_NULL;
  check(whole.get(), MPI_Comm_split(world, color, whole->rank, &icomm), "DLS_GroupSetup: MPI_Comm_split");
  int group_rank = 0;
  int group_size = 1;
  MPI_Comm_rank(icomm, &group_rank);
  MPI_Comm_size(icomm, &group_size);
  const bool leader = group_rank == 0;  // the coordinator, or a foreman
  MPI_Comm jcomm = MPI_COMM_NULL;
  check(whole.get(),
        MPI_Comm_split(world, leader ? 0 : MPI_UNDEFINED, is_coordinator ? -1 : whole->rank, &jcomm),
        "DLS_GroupSetup: MPI_Comm_split");

  DLS_Setup(icomm, LS);
  static_cast<CState*>(LS->state)->owns_user = true;

  auto g = std::make_shared<GroupRole>();
  g->leader = leader;
  g->crew_size = group_size;
  check(whole.get(), MPI_Comm_dup(icomm, &g->crew), "DLS_GroupSetup: MPI_Comm_dup");
  if (leader) {
    DLS_Setup(jcomm, GS);
    auto* st = static_cast<CState*>(GS->state);
    st->owns_user = true;
    st->group = g;
  } else {
    // A member: no outer Loop; the foreman relays the outer chunks on the
    // group's communicator (nothing collective of its own: no duplicate).
    auto st = std::make_unique<CState>();
    st->user = g->crew;
    st->rank = group_rank;
    st->size = group_size;
    or_abort(st.get(), [&] { st->base = Options::from_env(); });
    st->group = g;
    if (CState* old = registered(GS)) {
      unregister(old);
      delete old;
    }
    live_states().push_back(st.get());
    GS->state = st.release();
  }
  g->world = std::move(whole);
}

}  // extern "C"
