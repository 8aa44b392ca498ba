// The LB4MPI-compatible C interface, a thin layer over lb4mpi::Loop.
#include "lb4mpi/lb4mpi.h"

#include <cstdio>
#include <cstdlib>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "lb4mpi/lb4mpi.hpp"
#include "lb4mpi/loops.hpp"

namespace {

using lb4mpi::Chunk;
using lb4mpi::Error;
using lb4mpi::Index;
using lb4mpi::Technique;

int g_mode = CENTRALIZED;  // Configure_Chunk_Calculation_Mode
int g_num_loops = 1;       // DLS_NumLoops, taken by the next DLS_Parameters_Setup

struct CState {
  MPI_Comm comm = MPI_COMM_NULL;
  lb4mpi::Options options;
  std::unique_ptr<lb4mpi::Loop> loop;
  std::optional<Chunk> current;  // fetched by DLS_Terminated, handed out by DLS_StartChunk
  bool terminated = false;
  Index first = 0;
  Index last = 0;  // half-open
  // Several loops (DLS_StartMLoops ... DLS_EndMLoops).
  int num_loops = 1;
  int target = 0;
  std::unique_ptr<lb4mpi::LoopSet> set;
};

[[noreturn]] void fail(const std::string& msg) {
  std::fprintf(stderr, "%s\n", msg.c_str());
  std::fflush(stderr);
  // Every rank reaches this point (lb4mpi agrees on errors before acting),
  // so a collective finalize is safe and the job ends with status 2.
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized == 0) MPI_Finalize();
  std::exit(2);
}

CState* state_of(infoDLS* info, const char* fn) {
  if (info == nullptr || info->state == nullptr) {
    fail(std::string("lb4mpi: ") + fn + " called before DLS_Parameters_Setup");
  }
  return static_cast<CState*>(info->state);
}

template <class F>
void guarded(F&& f) {
  try {
    f();
  } catch (const std::exception& e) {
    fail(e.what());
  }
}

Technique technique_of(int method) {
  switch (method) {
    case LB4MPI_TAP: return Technique::TAP;
    case LB4MPI_FAC_PROB: return Technique::FAC;
    case LB4MPI_TFSS: return Technique::TFSS;
    case LB4MPI_FISS: return Technique::FISS;
    case LB4MPI_VISS: return Technique::VISS;
    case LB4MPI_RND: return Technique::RND;
    case LB4MPI_PLS: return Technique::PLS;
    default: break;
  }
  try {
    return lb4mpi::parse_technique(std::to_string(method));  // the `000` Table 4.1 ids
  } catch (const Error&) {
    throw Error("lb4mpi: unknown scheduling method " + std::to_string(method) +
                "; valid: STATIC=0, SS=1, FSC=2, mFSC=3, GSS=4, TSS=5, FAC=7, WF=8, AWF=9, AWF_B=10, "
                "AWF_C=11, AWF_D=12, AWF_E=13, AF=14, LB4MPI_TAP=100, LB4MPI_FAC_PROB=101, "
                "LB4MPI_TFSS=102, LB4MPI_FISS=103, LB4MPI_VISS=104, LB4MPI_RND=105, LB4MPI_PLS=106");
  }
}

int to_int(Index v, const char* what) {
  if (v > std::numeric_limits<int>::max() || v < std::numeric_limits<int>::min()) {
    throw Error(std::string("lb4mpi: ") + what + " does not fit the C API's int; use the C++ API for 64-bit loops");
  }
  return static_cast<int>(v);
}

}  // namespace

extern "C" {

void Configure_Chunk_Calculation_Mode(int mode) {
  if (mode != CENTRALIZED && mode != DECENTRALIZED && mode != DECENTRALIZED_RMA) {
    fail("lb4mpi: Configure_Chunk_Calculation_Mode(" + std::to_string(mode) +
         "): valid modes are CENTRALIZED (0), DECENTRALIZED (1), DECENTRALIZED_RMA (2)");
  }
  g_mode = mode;
}

void DLS_Parameters_Setup(MPI_Comm icomm, infoDLS* info, int numProcs, int requestWhen, int breakAfter,
                          int minChunk, double h_overhead, double sigma, int nKNL, double Xeon_speed,
                          double KNL_speed) {
  if (info == nullptr) fail("lb4mpi: DLS_Parameters_Setup: info is NULL");
  guarded([&] {
    auto st = std::make_unique<CState>();
    st->comm = icomm;
    // Environment first (LB4MPI_MODE, tuning), then the explicit arguments.
    st->options = lb4mpi::Options::from_env();
    st->options.mode = g_mode == CENTRALIZED     ? lb4mpi::Mode::Centralized
                       : g_mode == DECENTRALIZED ? lb4mpi::Mode::Distributed
                                                 : lb4mpi::Mode::DistributedRMA;
    int size = 0;
    if (MPI_Comm_size(icomm, &size) != MPI_SUCCESS) throw Error("lb4mpi: DLS_Parameters_Setup: invalid communicator");
    if (numProcs != size) {
      throw Error("lb4mpi: DLS_Parameters_Setup: numProcs is " + std::to_string(numProcs) +
                  " but the communicator has " + std::to_string(size) + " ranks");
    }
    st->options.request_when = requestWhen;
    st->options.break_after = breakAfter;
    st->options.params.min_chunk = minChunk > 0 ? minChunk : 1;
    st->options.params.h = h_overhead;
    st->options.params.sigma = sigma;
    if (nKNL > 0) {
      st->options.params.weights.assign(static_cast<std::size_t>(size), Xeon_speed);
      for (int r = 0; r < nKNL && r < size; ++r) st->options.params.weights[static_cast<std::size_t>(r)] = KNL_speed;
    }
    st->num_loops = g_num_loops;
    g_num_loops = 1;
    info->state = st.release();
  });
}

void DLS_NumLoops(infoDLS* /*info*/, int n) {
  if (n < 1) fail("lb4mpi: DLS_NumLoops(" + std::to_string(n) + "): the number of loops must be >= 1");
  g_num_loops = n;
}

void DLS_StartMLoops(infoDLS* info, int* firstIters, int* lastIters, int* imeths) {
  CState* st = state_of(info, "DLS_StartMLoops");
  guarded([&] {
    if (firstIters == nullptr || lastIters == nullptr || imeths == nullptr) {
      throw Error("lb4mpi: DLS_StartMLoops: NULL array");
    }
    std::vector<lb4mpi::LoopSpec> specs;
    for (int l = 0; l < st->num_loops; ++l) {
      lb4mpi::LoopSpec s;
      s.first = firstIters[l];
      s.last = static_cast<Index>(lastIters[l]) + 1;  // inclusive bounds, as LB4MPI
      s.options = st->options;
      s.options.technique = technique_of(imeths[l]);
      specs.push_back(s);
    }
    st->target = 0;
    st->set = std::make_unique<lb4mpi::LoopSet>(st->comm, specs);
  });
}

int DLS_MTerminated(infoDLS* info) {
  CState* st = state_of(info, "DLS_MTerminated");
  if (!st->set) return DLS_Terminated(info);  // one loop at a time, as LB4MPI
  int done = 0;
  guarded([&] { done = st->set->terminated() ? 1 : 0; });
  return done;
}

void DLS_TargetLoop(infoDLS* info, int loop) {
  CState* st = state_of(info, "DLS_TargetLoop");
  if (loop < 0 || loop >= st->num_loops) {
    fail("lb4mpi: DLS_TargetLoop(" + std::to_string(loop) + "): valid loops are 0.." +
         std::to_string(st->num_loops - 1));
  }
  st->target = loop;
}

void DLS_EndMLoops(infoDLS* info, int* niters, double* worktime) {
  CState* st = state_of(info, "DLS_EndMLoops");
  if (!st->set) fail("lb4mpi: DLS_EndMLoops called without DLS_StartMLoops");
  guarded([&] {
    const std::vector<lb4mpi::Report> reports = st->set->finish();
    int rank = 0;
    MPI_Comm_rank(st->comm, &rank);
    for (std::size_t l = 0; l < reports.size(); ++l) {
      const lb4mpi::RankReport& mine = reports[l].ranks[static_cast<std::size_t>(rank)];
      if (niters != nullptr) niters[l] = to_int(mine.iterations, "the iteration count");
      if (worktime != nullptr) worktime[l] = mine.work_time;
    }
    st->set.reset();
  });
}

void DLS_StartLoop(infoDLS* info, int firstIter, int lastIter, int method) {
  CState* st = state_of(info, "DLS_StartLoop");
  guarded([&] {
    st->options.technique = technique_of(method);
    st->first = firstIter;
    st->last = static_cast<Index>(lastIter) + 1;  // inclusive bounds, as LB4MPI
    st->current.reset();
    st->terminated = false;
    st->loop = std::make_unique<lb4mpi::Loop>(st->comm, st->first, st->last, st->options);
  });
}

int DLS_Terminated(infoDLS* info) {
  CState* st = state_of(info, "DLS_Terminated");
  if (!st->loop) fail("lb4mpi: DLS_Terminated called outside DLS_StartLoop ... DLS_EndLoop");
  guarded([&] {
    if (!st->current && !st->terminated) {
      st->current = st->loop->next();
      st->terminated = !st->current.has_value();
    }
  });
  return st->terminated ? 1 : 0;
}

void DLS_StartChunk(infoDLS* info, int* chunkStart, int* chunkSize) {
  CState* st = state_of(info, "DLS_StartChunk");
  if (st->set) {
    guarded([&] {
      const std::optional<Chunk> c = st->set->next(st->target);
      *chunkStart = c ? to_int(c->begin, "the chunk start") : 0;
      *chunkSize = c ? to_int(c->size, "the chunk size") : 0;
    });
    return;
  }
  if (!st->loop) fail("lb4mpi: DLS_StartChunk called outside DLS_StartLoop ... DLS_EndLoop");
  guarded([&] {
    if (!st->current && !st->terminated) {
      st->current = st->loop->next();
      st->terminated = !st->current.has_value();
    }
    if (st->current) {
      *chunkStart = to_int(st->current->begin, "the chunk start");
      *chunkSize = to_int(st->current->size, "the chunk size");
    } else {
      *chunkStart = to_int(st->last, "the loop end");
      *chunkSize = 0;
    }
    st->current.reset();
  });
}

void DLS_EndChunk(infoDLS* info) {
  CState* st = state_of(info, "DLS_EndChunk");
  if (st->set) {
    guarded([&] { st->set->end_chunk(); });
    return;
  }
  if (!st->loop) fail("lb4mpi: DLS_EndChunk called outside DLS_StartLoop ... DLS_EndLoop");
  guarded([&] { st->loop->end_chunk(); });
}

void DLS_EndLoop(infoDLS* info, int* nIter, double* workTime) {
  CState* st = state_of(info, "DLS_EndLoop");
  if (!st->loop) fail("lb4mpi: DLS_EndLoop called without DLS_StartLoop");
  guarded([&] {
    const lb4mpi::Report r = st->loop->finish();
    int rank = 0;
    MPI_Comm_rank(st->comm, &rank);
    const lb4mpi::RankReport& mine = r.ranks[static_cast<std::size_t>(rank)];
    if (nIter != nullptr) *nIter = to_int(mine.iterations, "the iteration count");
    if (workTime != nullptr) *workTime = mine.work_time;
    st->loop.reset();
  });
}

void DLS_Finalize(infoDLS* info) {
  if (info == nullptr || info->state == nullptr) return;
  delete static_cast<CState*>(info->state);
  info->state = nullptr;
}

}  // extern "C"
