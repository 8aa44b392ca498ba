// The LB4MPI-compatible C interface, a thin layer over lb4mpi::Loop and
// lb4mpi::LoopSet: a client of the public C++ API only (its build target
// sees no runtime header).
//
// Errors. The C functions return void, so an error ends the job. Two cases:
//  - collective calls (DLS_Parameters_Setup, DLS_StartLoop, DLS_EndLoop,
//    DLS_StartMLoops, DLS_EndMLoops) validate locally and then agree over the
//    communicator (one MPI_Allreduce of an error flag and an argument hash):
//    every rank prints the same message (the lowest failing rank's) and exits
//    with status 2 after MPI_Finalize. Errors of non-collective calls that can
//    wait (Configure_Chunk_Calculation_Mode, DLS_NumLoops) are kept and
//    reported by the next collective call in the same way.
//  - misuse only this rank can see (a chunk call outside a loop, a bad
//    DLS_TargetLoop, a runtime failure inside a loop): print the message and
//    MPI_Abort(comm, 2) — the other ranks may be waiting for this one, so
//    nothing collective is safe any more.
// Both go through abort_job / exit_together, which call the internal error
// hook first (error_hook.hpp): how the fuzz target makes them throw instead.
#include "lb4mpi/lb4mpi.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "error_hook.hpp"
#include "lb4mpi/lb4mpi.hpp"
#include "lb4mpi/loops.hpp"
#include "methods.hpp"

namespace {

using lb4mpi::Chunk;
using lb4mpi::Error;
using lb4mpi::Index;
using lb4mpi::Mode;
using lb4mpi::Options;
using lb4mpi::Technique;

constexpr int kNoMode = -1;

int g_mode = kNoMode;   // Configure_Chunk_Calculation_Mode; kNoMode: never called (LB4MPI_MODE /
                        // default decide)
int g_num_loops = 1;    // DLS_NumLoops before DLS_Parameters_Setup
std::string g_pending;  // error of a non-collective call, reported by the next collective one

// ------------------------------------------------------------------ state

struct CState {
  MPI_Comm user = MPI_COMM_NULL;  // the application's communicator
  MPI_Comm comm = MPI_COMM_NULL;  // the C API's own duplicate, for its agreements
  int rank = 0;
  int size = 1;
  Options base;  // environment, then the arguments of DLS_Parameters_Setup
  int num_loops = 1;
  int last_mode = kNoMode;  // C constant of the mode of the loop(s) started last

  // One loop at a time. Kept across DLS_EndLoop so that the next
  // DLS_StartLoop restarts it: adaptive techniques keep what they learned.
  std::unique_ptr<lb4mpi::Loop> loop;
  Technique loop_technique{};
  Mode loop_mode = Mode::Centralized;
  bool loop_active = false;      // between DLS_StartLoop and DLS_EndLoop
  std::optional<Chunk> current;  // fetched by DLS_Terminated, handed out by DLS_StartChunk
  bool terminated = false;
  Index last = 0;  // half-open end of the loop in flight
  // Robust mode's results (DLS_SetCommit, DLS_EndChunkData) and outcome.
  DLS_CommitFunction commit = nullptr;
  void* commit_user = nullptr;
  int failed_ranks = 0;  // of the last loop

  // Several loops (DLS_StartMLoops ... DLS_EndMLoops), kept likewise.
  std::unique_ptr<lb4mpi::LoopSet> set;
  std::vector<Technique> set_techniques;
  Mode set_mode = Mode::Centralized;
  bool set_active = false;
  int target = 0;

  CState() = default;
  CState(const CState&) = delete;
  CState& operator=(const CState&) = delete;
  ~CState() {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (finalized != 0) {
      // MPI is gone: its objects cannot be freed any more; leak them.
      (void)loop.release();
      (void)set.release();
      return;
    }
    loop.reset();
    set.reset();
    if (comm != MPI_COMM_NULL) MPI_Comm_free(&comm);
  }
};

// Handles set up and not yet finalized. The application's infoDLS may hold
// garbage before DLS_Parameters_Setup; it is only compared, never followed.
std::vector<CState*>& live_states() {
  static std::vector<CState*> states;
  return states;
}

// The handle of the last successful lookup: the hot path (DLS_StartChunk,
// DLS_EndChunk, DLS_Terminated on one handle) finds it with one comparison.
CState* g_last_state = nullptr;

CState* registered_slow(const infoDLS* info);

// The hot path (one comparison) inline; the search out of line.
inline CState* registered(const infoDLS* info) {
  if (info != nullptr && info->state == g_last_state && g_last_state != nullptr) return g_last_state;
  return registered_slow(info);
}

[[gnu::noinline]] CState* registered_slow(const infoDLS* info) {
  if (info == nullptr) return nullptr;
  for (CState* s : live_states()) {
    if (s == info->state) {
      g_last_state = s;
      return s;
    }
  }
  return nullptr;
}

void unregister(CState* st) {
  if (g_last_state == st) g_last_state = nullptr;
  auto& v = live_states();
  v.erase(std::remove(v.begin(), v.end(), st), v.end());
}

// ------------------------------------------------------------------ errors

void print_error(const std::string& msg) {
  std::fprintf(stderr, "%s\n", msg.c_str());
  std::fflush(stderr);
}

// Misuse only this rank knows of: end the whole job.
[[noreturn]] void abort_job(MPI_Comm comm, const std::string& msg) {
  if (const lb4mpi::capi::ErrorHook hook = lb4mpi::capi::error_hook()) hook(msg);  // may throw
  print_error(msg);
  int initialized = 0;
  int finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (initialized != 0 && finalized == 0) {
    // The launcher forwards a rank's output asynchronously, and MPI_Abort
    // tears the job down at once: MPICH's hydra lost the message now and
    // then. A moment's pause lets it through.
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    MPI_Abort(comm == MPI_COMM_NULL ? MPI_COMM_WORLD : comm, 2);
  }
  std::exit(2);
}

// Every rank of st->comm reports the same error at the same call: release
// this handle's loops (collective, every rank is here), finalize, exit 2.
[[noreturn]] void exit_together(CState* st, const std::string& msg) {
  if (const lb4mpi::capi::ErrorHook hook = lb4mpi::capi::error_hook()) hook(msg);  // may throw
  print_error(msg);
  int world = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &world);
  // MPI_Finalize is collective over every process: when the handle's
  // communicator is a part of the job, the other processes would not join.
  if (st->size != world) MPI_Abort(st->user, 2);
  st->loop.reset();
  st->set.reset();
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized == 0) MPI_Finalize();
  std::exit(2);
}

void check(CState* st, int rc, const char* what) {
  if (rc != MPI_SUCCESS) abort_job(st->user, std::string("lb4mpi: ") + what + " failed");
}

using Hasher = lb4mpi::Fingerprint;

// Collective over st->comm: `error` is this rank's validation result (empty:
// fine), `hash` covers the arguments that must be equal on every rank, and
// `describe` names them with their values ("minChunk", "2"), in hash order.
// Returns only when every rank is fine and the hashes agree; otherwise every
// rank prints the same message and exits 2 (exit_together): the lowest
// failing rank's error, or "the ranks disagree on the arguments of <fn>:
// minChunk 2 on rank 3, 1 on rank 0; ...".
using Fields = std::vector<std::pair<std::string, std::string>>;
void agree(CState* st, const std::string& fn, const std::string& error, std::uint64_t hash,
           const std::function<Fields()>& describe = {}) {
  try {
    lb4mpi::agree(st->comm, error, hash, describe, "the arguments of " + fn);
  } catch (const Error& e) {
    exit_together(st, e.what());
  }
}

// A value as the "ranks disagree" message shows it.
template <class T>
std::string shown(const T& v) {
  if constexpr (std::is_floating_point_v<T>) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    return buf;
  } else {
    return std::to_string(v);
  }
}

std::string take_pending() {
  std::string e;
  e.swap(g_pending);
  return e;
}

void defer(const std::string& msg) {
  if (g_pending.empty()) g_pending = msg;
}

[[noreturn, gnu::noinline]] void not_a_handle(const char* fn) {
  abort_job(MPI_COMM_WORLD, std::string("lb4mpi: ") + fn +
                                " called with a handle that DLS_Parameters_Setup did not initialize "
                                "(or that DLS_Finalize released)");
}

inline CState* state_of(infoDLS* info, const char* fn) {
  CState* st = registered(info);
  if (st == nullptr) not_a_handle(fn);
  return st;
}

// ------------------------------------------------------------------ conversions

using lb4mpi::capi::c_mode_of;
using lb4mpi::capi::mode_of;
using lb4mpi::capi::technique_of;

// Configure_Chunk_Calculation_Mode when it was called, else LB4MPI_MODE (read
// by DLS_Parameters_Setup), else CENTRALIZED.
Mode effective_mode(const CState* st) {
  return g_mode == kNoMode ? st->base.mode : mode_of(g_mode);
}

int to_int(CState* st, Index v, const char* what) {
  if (v > std::numeric_limits<int>::max() || v < std::numeric_limits<int>::min()) {
    abort_job(st->user, std::string("lb4mpi: ") + what + " does not fit the C API's int");
  }
  return static_cast<int>(v);
}

// A loop [first, last] (inclusive bounds, as LB4MPI): "" when valid.
std::string check_loop(const CState* st, int firstIter, int lastIter, int method, Technique& t,
                       Options& opt, const std::string& which) {
  try {
    t = technique_of(method);
  } catch (const Error& e) {
    return which + e.what();
  }
  const Index n = static_cast<Index>(lastIter) - firstIter + 1;
  if (n < 0) {
    return which +
           "lastIter must be >= firstIter - 1 (lastIter = firstIter - 1 is an empty loop), got "
           "firstIter " +
           std::to_string(firstIter) + " and lastIter " + std::to_string(lastIter);
  }
  if (n > std::numeric_limits<int>::max()) {
    return which + "the loop has " + std::to_string(n) +
           " iterations, more than the C API's int holds (at most " +
           std::to_string(std::numeric_limits<int>::max()) + "); use the C++ API for 64-bit loops";
  }
  opt.technique = t;
  try {
    opt.params.validate(t, n, st->size);
  } catch (const lb4mpi::InvalidParameter& e) {
    return which + opt.explain(e);  // names the argument or variable the value came from
  } catch (const Error& e) {
    return which + e.what();
  }
  return {};
}

template <class F>
void or_abort(CState* st, F&& f) {
  try {
    f();
  } catch (const std::exception& e) {
    abort_job(st->user, e.what());
  }
}

// The options of DLS_Parameters_Setup on top of the environment's; throws Error.
Options setup_options(int size, int rank, int numProcs, int requestWhen, int breakAfter,
                      int minChunk, double h_overhead, double sigma, int nKNL, double Xeon_speed,
                      double KNL_speed) {
  Options o = Options::from_env();
  if (numProcs != size) {
    throw Error("numProcs is " + std::to_string(numProcs) + " on rank " + std::to_string(rank) +
                ", but the communicator has " + std::to_string(size) +
                " ranks; pass the communicator's size");
  }
  // Negative requestWhen / breakAfter and minChunk <= 0 keep the environment's
  // value (LB4MPI_REQUEST_WHEN, ...) or lb4mpi's default.
  if (requestWhen >= 0) o.request_when = requestWhen;
  if (breakAfter >= 0) o.break_after = breakAfter;
  if (minChunk > 0) {
    o.params.min_chunk = minChunk;
    o.origin["min_chunk"] = "DLS_Parameters_Setup minChunk=" + std::to_string(minChunk);
  }
  o.params.h = h_overhead;
  o.params.sigma = sigma;
  o.origin["h"] = "DLS_Parameters_Setup h_overhead=" + std::to_string(h_overhead);
  o.origin["sigma"] = "DLS_Parameters_Setup sigma=" + std::to_string(sigma);
  if (nKNL < 0 || nKNL > size) {
    throw Error("nKNL must be in 0.." + std::to_string(size) + " (the number of KNL ranks), got " +
                std::to_string(nKNL));
  }
  if (nKNL > 0) {
    // As LB4MPI: ranks 0 .. P-nKNL-1 are Xeons, the last nKNL ranks are KNLs;
    // the speeds become WF's relative weights.
    const bool xeons = nKNL < size;
    if (!(std::isfinite(KNL_speed) && KNL_speed > 0.0)) {
      throw Error("KNL_speed must be a positive number when nKNL > 0, got " +
                  std::to_string(KNL_speed));
    }
    if (xeons && !(std::isfinite(Xeon_speed) && Xeon_speed > 0.0)) {
      throw Error("Xeon_speed must be a positive number when nKNL < numProcs, got " +
                  std::to_string(Xeon_speed));
    }
    o.params.weights.assign(static_cast<std::size_t>(size), Xeon_speed);
    for (int r = size - nKNL; r < size; ++r)
      o.params.weights[static_cast<std::size_t>(r)] = KNL_speed;
    o.origin["weights"] = "DLS_Parameters_Setup nKNL, Xeon_speed, KNL_speed";
  }
  // What the runtime would refuse at the first loop, refused here already.
  o.validate(size);
  if (o.params.min_chunk < 1) {
    throw Error("min_chunk must be >= 1, got " + std::to_string(o.params.min_chunk) + " (from " +
                o.origin["min_chunk"] + ")");
  }
  return o;
}

// finish()'s reports, also when an output file could not be written at the
// end (lb4mpi::OutputError, the same on every rank): the loop completed, so
// every rank prints the error and DLS_EndLoop / DLS_EndMLoops still return
// the figures — a C program's results are never lost to a trace error.
template <class Finish>
std::vector<lb4mpi::Report> finish_keeping_report(const CState* st, Finish&& finish) {
  try {
    return finish();
  } catch (const lb4mpi::OutputError& e) {
    print_error(std::string(e.what()) + " (rank " + std::to_string(st->rank) +
                "; the loop completed and its figures are returned)");
    return e.reports();
  }
}

// After DLS_EndLoop / DLS_EndMLoops: this rank's chunks it did not run.
std::string dropped_error(const char* fn, const char* terminated_fn, int rank, Index dropped) {
  if (dropped == 0) return {};
  return std::string("lb4mpi: ") + fn + " was called on rank " + std::to_string(rank) + " before " +
         terminated_fn + " returned 1; " + std::to_string(dropped) +
         " iterations handed to it were not executed";
}

}  // namespace

void lb4mpi::capi::reset_for_testing() {
  while (!live_states().empty()) {
    CState* st = live_states().back();
    unregister(st);
    delete st;
  }
  g_mode = kNoMode;
  g_num_loops = 1;
  g_pending.clear();
}

extern "C" {

void Configure_Chunk_Calculation_Mode(int mode) {
  if (mode != CENTRALIZED && mode != DECENTRALIZED && mode != DECENTRALIZED_RMA) {
    // Reported by the next collective call (DLS_Parameters_Setup, DLS_StartLoop, ...) on every
    // rank.
    defer("lb4mpi: Configure_Chunk_Calculation_Mode(" + std::to_string(mode) +
          "): valid modes are CENTRALIZED (0), DECENTRALIZED (1), DECENTRALIZED_RMA (2)");
    return;
  }
  g_mode = mode;
}

int LB4MPI_Chunk_Calculation_Mode(infoDLS* info) {
  const CState* st = registered(info);
  return st == nullptr ? kNoMode : st->last_mode;
}

void DLS_Parameters_Setup(MPI_Comm icomm, infoDLS* info, int numProcs, int requestWhen,
                          int breakAfter, int minChunk, double h_overhead, double sigma, int nKNL,
                          double Xeon_speed, double KNL_speed) {
  if (info == nullptr) abort_job(icomm, "lb4mpi: DLS_Parameters_Setup: info is NULL");
  if (icomm == MPI_COMM_NULL)
    abort_job(MPI_COMM_WORLD, "lb4mpi: DLS_Parameters_Setup: the communicator is MPI_COMM_NULL");
  auto st = std::make_unique<CState>();
  st->user = icomm;
  check(st.get(), MPI_Comm_dup(icomm, &st->comm), "DLS_Parameters_Setup: MPI_Comm_dup");
  check(st.get(), MPI_Comm_rank(st->comm, &st->rank), "MPI_Comm_rank");
  check(st.get(), MPI_Comm_size(st->comm, &st->size), "MPI_Comm_size");

  std::string error = take_pending();
  if (error.empty()) {
    try {
      st->base = setup_options(st->size, st->rank, numProcs, requestWhen, breakAfter, minChunk,
                               h_overhead, sigma, nKNL, Xeon_speed, KNL_speed);
    } catch (const std::exception& e) {
      error = std::string("lb4mpi: DLS_Parameters_Setup: ") + e.what();
    }
  }
  Hasher h;
  h.add(numProcs)
      .add(requestWhen)
      .add(breakAfter)
      .add(minChunk)
      .add(h_overhead)
      .add(sigma)
      .add(nKNL);
  h.add(Xeon_speed).add(KNL_speed).add(g_num_loops);
  if (error.empty()) h.add(st->base.fingerprint());
  agree(st.get(), "DLS_Parameters_Setup", error, h.value(), [&] {
    Fields f{{"numProcs", shown(numProcs)},     {"requestWhen", shown(requestWhen)},
             {"breakAfter", shown(breakAfter)}, {"minChunk", shown(minChunk)},
             {"h_overhead", shown(h_overhead)}, {"sigma", shown(sigma)},
             {"nKNL", shown(nKNL)},             {"Xeon_speed", shown(Xeon_speed)},
             {"KNL_speed", shown(KNL_speed)},   {"DLS_NumLoops", shown(g_num_loops)}};
    for (auto& field : st->base.agreed_fields()) f.emplace_back(std::move(field));  // LB4MPI_* variables
    return f;
  });

  st->num_loops = g_num_loops;
  g_num_loops = 1;
  if (CState* old = registered(info)) {  // set up again without DLS_Finalize
    unregister(old);
    delete old;
  }
  live_states().push_back(st.get());
  info->state = st.release();
}

void DLS_NumLoops(infoDLS* info, int n) {
  if (n < 1) {
    defer("lb4mpi: DLS_NumLoops(" + std::to_string(n) + "): the number of loops must be >= 1");
    return;
  }
  if (CState* st = registered(
          info)) {  // after DLS_Parameters_Setup: applies to this handle's next DLS_StartMLoops
    if (st->set_active)
      abort_job(st->user,
                "lb4mpi: DLS_NumLoops called while loops are in flight (call DLS_EndMLoops first)");
    st->num_loops = n;
    return;
  }
  g_num_loops = n;  // before DLS_Parameters_Setup, as LB4MPI
}

void DLS_StartLoop(infoDLS* info, int firstIter, int lastIter, int method) {
  CState* st = state_of(info, "DLS_StartLoop");
  const std::string fn = "DLS_StartLoop";
  Options opt = st->base;
  opt.mode = effective_mode(st);
  Technique t{};
  std::string error = take_pending();
  if (error.empty() && st->loop_active)
    error = "lb4mpi: DLS_StartLoop: the previous loop is still in flight (call DLS_EndLoop first)";
  if (error.empty() && st->set_active)
    error =
        "lb4mpi: DLS_StartLoop: loops started by DLS_StartMLoops are still in flight (call "
        "DLS_EndMLoops first)";
  if (error.empty())
    error = check_loop(st, firstIter, lastIter, method, t, opt, "lb4mpi: DLS_StartLoop: ");
  Hasher h;
  h.add(firstIter).add(lastIter).add(method).add(opt.mode);
  agree(st, fn, error, h.value(), [&] {
    return Fields{{"firstIter", shown(firstIter)},
                  {"lastIter", shown(lastIter)},
                  {"method", shown(method)},
                  {"chunk-calculation mode", std::string(lb4mpi::name(opt.mode))}};
  });

  const Index first = firstIter;
  const Index last = static_cast<Index>(lastIter) + 1;  // inclusive bounds, as LB4MPI
  or_abort(st, [&] {
    if (st->loop && st->loop_technique == t && st->loop_mode == opt.mode) {
      st->loop->restart(first, last);  // the next time step: keeps what the technique learned
    } else {
      st->loop.reset();
      st->loop = std::make_unique<lb4mpi::Loop>(st->user, first, last, opt);
      st->loop_technique = t;
      st->loop_mode = opt.mode;
    }
    if (st->commit != nullptr) {
      st->loop->on_commit([st](Chunk piece, const std::byte* data, std::size_t bytes) {
        st->commit(to_int(st, piece.begin, "the chunk start"), to_int(st, piece.size, "the chunk size"), data,
                   to_int(st, static_cast<Index>(bytes), "the result size"), st->commit_user);
      });
    } else {
      st->loop->on_commit({});
    }
  });
  st->failed_ranks = 0;
  st->loop_active = true;
  st->current.reset();
  st->terminated = false;
  st->last = last;
  st->last_mode = c_mode_of(opt.mode);
}

int DLS_Terminated(infoDLS* info) {
  CState* st = state_of(info, "DLS_Terminated");
  if (!st->loop_active)
    abort_job(st->user, "lb4mpi: DLS_Terminated called outside DLS_StartLoop ... DLS_EndLoop");
  if (!st->current && !st->terminated) {
    or_abort(st, [&] {
      st->current = st->loop->next();
      st->terminated = !st->current.has_value();
    });
  }
  return st->terminated ? 1 : 0;
}

void DLS_StartChunk(infoDLS* info, int* chunkStart, int* chunkSize) {
  CState* st = state_of(info, "DLS_StartChunk");
  if (chunkStart == nullptr || chunkSize == nullptr) {
    abort_job(st->user, "lb4mpi: DLS_StartChunk: chunkStart and chunkSize must not be NULL");
  }
  if (st->set_active) {
    std::optional<Chunk> c;
    or_abort(st, [&] { c = st->set->next(st->target); });
    *chunkStart = c ? to_int(st, c->begin, "the chunk start") : 0;
    *chunkSize = c ? to_int(st, c->size, "the chunk size") : 0;
    return;
  }
  if (!st->loop_active)
    abort_job(st->user, "lb4mpi: DLS_StartChunk called outside DLS_StartLoop ... DLS_EndLoop");
  if (!st->current && !st->terminated) {
    or_abort(st, [&] {
      st->current = st->loop->next();
      st->terminated = !st->current.has_value();
    });
  }
  if (st->current) {
    *chunkStart = to_int(st, st->current->begin, "the chunk start");
    *chunkSize = to_int(st, st->current->size, "the chunk size");
  } else {
    *chunkStart = static_cast<int>(std::min<Index>(st->last, std::numeric_limits<int>::max()));
    *chunkSize = 0;
  }
  st->current.reset();
}

void DLS_EndChunk(infoDLS* info) {
  CState* st = state_of(info, "DLS_EndChunk");
  if (st->set_active) {
    or_abort(st, [&] { st->set->end_chunk(); });
    return;
  }
  if (!st->loop_active)
    abort_job(st->user, "lb4mpi: DLS_EndChunk called outside DLS_StartLoop ... DLS_EndLoop");
  or_abort(st, [&] { st->loop->end_chunk(); });
}

void LB4MPI_EndChunk3(infoDLS* info, int* /*nIter*/, double* /*workTime*/) { DLS_EndChunk(info); }

void DLS_EndLoop(infoDLS* info, int* nIter, double* workTime) {
  CState* st = state_of(info, "DLS_EndLoop");
  // Without a loop in flight on this rank, the others (in the loop's
  // protocol) cannot be told: nothing collective is safe.
  if (!st->loop_active) abort_job(st->user, "lb4mpi: DLS_EndLoop called without DLS_StartLoop");
  Index dropped = 0;
  lb4mpi::Report r;
  or_abort(st, [&] {
    // A rank that ends early still takes part in the protocol, so that no
    // other rank hangs; what it had not run is reported below on every rank.
    if (st->current) dropped += st->current->size;
    st->current.reset();
    if (!st->terminated) {
      while (const std::optional<Chunk> c = st->loop->next()) dropped += c->size;
      st->terminated = true;
    }
    r = finish_keeping_report(st, [&] { return std::vector<lb4mpi::Report>{st->loop->finish()}; }).front();
  });
  st->loop_active = false;
  st->failed_ranks = static_cast<int>(r.failed_ranks.size());
  // With failed ranks (robust mode) nothing collective is possible any more.
  if (st->failed_ranks == 0) {
    agree(st, "DLS_EndLoop", dropped_error("DLS_EndLoop", "DLS_Terminated", st->rank, dropped), 0);
  }
  const lb4mpi::RankReport& mine = r.ranks[static_cast<std::size_t>(st->rank)];
  if (nIter != nullptr) *nIter = to_int(st, mine.iterations, "the iteration count");
  if (workTime != nullptr) *workTime = mine.work_time;
}

void DLS_StartMLoops(infoDLS* info, int* firstIters, int* lastIters, int* imeths) {
  CState* st = state_of(info, "DLS_StartMLoops");
  const int n = st->num_loops;
  const Mode mode = effective_mode(st);
  std::vector<lb4mpi::LoopSpec> specs(static_cast<std::size_t>(n));
  std::vector<Technique> techniques(static_cast<std::size_t>(n));
  std::string error = take_pending();
  if (error.empty() && st->loop_active)
    error =
        "lb4mpi: DLS_StartMLoops: a loop started by DLS_StartLoop is still in flight (call "
        "DLS_EndLoop first)";
  if (error.empty() && st->set_active)
    error =
        "lb4mpi: DLS_StartMLoops: the previous loops are still in flight (call DLS_EndMLoops "
        "first)";
  if (error.empty() && (firstIters == nullptr || lastIters == nullptr || imeths == nullptr)) {
    error = "lb4mpi: DLS_StartMLoops: firstIters, lastIters and imeths must not be NULL";
  }
  Hasher h;
  h.add(n).add(mode);
  for (int l = 0; l < n && error.empty(); ++l) {
    const auto i = static_cast<std::size_t>(l);
    specs[i].options = st->base;
    specs[i].options.mode = mode;
    error = check_loop(st, firstIters[l], lastIters[l], imeths[l], techniques[i], specs[i].options,
                       "lb4mpi: DLS_StartMLoops: loop " + std::to_string(l) + ": ");
    specs[i].first = firstIters[l];
    specs[i].last = static_cast<Index>(lastIters[l]) + 1;  // inclusive bounds, as LB4MPI
    h.add(firstIters[l]).add(lastIters[l]).add(imeths[l]);
  }
  agree(st, "DLS_StartMLoops", error, h.value(), [&] {
    Fields f{{"the number of loops (DLS_NumLoops)", shown(n)},
             {"chunk-calculation mode", std::string(lb4mpi::name(mode))}};
    for (int l = 0; l < n; ++l) {
      const std::string i = "[" + std::to_string(l) + "]";
      f.emplace_back("firstIters" + i, shown(firstIters[l]));
      f.emplace_back("lastIters" + i, shown(lastIters[l]));
      f.emplace_back("imeths" + i, shown(imeths[l]));
    }
    return f;
  });

  or_abort(st, [&] {
    if (st->set && st->set_techniques == techniques && st->set_mode == mode) {
      std::vector<std::pair<Index, Index>> ranges;
      ranges.reserve(specs.size());
      for (const auto& s : specs) ranges.emplace_back(s.first, s.last);
      st->set->restart(ranges);  // the next time step: keeps what the techniques learned
    } else {
      st->set.reset();
      st->set = std::make_unique<lb4mpi::LoopSet>(st->user, specs);
      st->set_techniques = techniques;
      st->set_mode = mode;
    }
  });
  st->set_active = true;
  st->target = 0;
  st->last_mode = c_mode_of(mode);
}

int DLS_MTerminated(infoDLS* info) {
  CState* st = state_of(info, "DLS_MTerminated");
  if (!st->set_active) {
    if (st->loop_active) return DLS_Terminated(info);  // one loop at a time, as LB4MPI
    abort_job(st->user, "lb4mpi: DLS_MTerminated called outside DLS_StartMLoops ... DLS_EndMLoops");
  }
  bool done = false;
  or_abort(st, [&] { done = st->set->terminated(); });
  return done ? 1 : 0;
}

void DLS_TargetLoop(infoDLS* info, int loop) {
  CState* st = state_of(info, "DLS_TargetLoop");
  const int n = st->set_active ? st->set->size() : st->num_loops;
  if (loop < 0 || loop >= n) {
    abort_job(st->user, "lb4mpi: DLS_TargetLoop(" + std::to_string(loop) +
                            "): valid loops are 0.." + std::to_string(n - 1) +
                            " (DLS_NumLoops set " + std::to_string(n) + ")");
  }
  st->target = loop;
}

void DLS_EndMLoops(infoDLS* info, int* niters, double* worktime) {
  CState* st = state_of(info, "DLS_EndMLoops");
  if (!st->set_active) abort_job(st->user, "lb4mpi: DLS_EndMLoops called without DLS_StartMLoops");
  Index dropped = 0;
  std::vector<lb4mpi::Report> reports;
  or_abort(st, [&] {
    while (!st->set->terminated()) {
      for (int l = 0; l < st->set->size(); ++l) {
        if (const std::optional<Chunk> c = st->set->next(l)) dropped += c->size;
      }
    }
    reports = finish_keeping_report(st, [&] { return st->set->finish(); });
  });
  st->set_active = false;
  agree(st, "DLS_EndMLoops", dropped_error("DLS_EndMLoops", "DLS_MTerminated", st->rank, dropped), 0);
  for (std::size_t l = 0; l < reports.size(); ++l) {
    const lb4mpi::RankReport& mine = reports[l].ranks[static_cast<std::size_t>(st->rank)];
    if (niters != nullptr) niters[l] = to_int(st, mine.iterations, "the iteration count");
    if (worktime != nullptr) worktime[l] = mine.work_time;
  }
}

void DLS_Robust(infoDLS* info, int enable) {
  CState* st = state_of(info, "DLS_Robust");
  st->base.robust = enable != 0;
  st->base.origin["robust"] = std::string("DLS_Robust enable=") + std::to_string(enable);
}

void DLS_SetCommit(infoDLS* info, DLS_CommitFunction commit, void* user) {
  CState* st = state_of(info, "DLS_SetCommit");
  st->commit = commit;
  st->commit_user = user;
}

void DLS_EndChunkData(infoDLS* info, const void* data, int bytes) {
  CState* st = state_of(info, "DLS_EndChunkData");
  if (st->set_active) {
    abort_job(st->user, "lb4mpi: DLS_EndChunkData: loops started by DLS_StartMLoops take no results (use DLS_EndChunk)");
  }
  if (!st->loop_active)
    abort_job(st->user, "lb4mpi: DLS_EndChunkData called outside DLS_StartLoop ... DLS_EndLoop");
  if (bytes < 0 || (bytes > 0 && data == nullptr)) {
    abort_job(st->user, "lb4mpi: DLS_EndChunkData: bytes must be >= 0 and data not NULL when bytes > 0, got bytes " +
                            std::to_string(bytes));
  }
  or_abort(st, [&] {
    if (bytes > 0) st->loop->result(data, static_cast<std::size_t>(bytes));
    st->loop->end_chunk();
  });
}

int DLS_FailedRanks(infoDLS* info) { return state_of(info, "DLS_FailedRanks")->failed_ranks; }

void DLS_Finalize(infoDLS* info) {
  CState* st = registered(info);
  if (st == nullptr) return;
  unregister(st);
  delete st;
  info->state = nullptr;
}

}  // extern "C"
