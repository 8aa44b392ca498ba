// The C interface's internals: state.hpp says what each is for.
#include "state.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <thread>

#include "../frontend/env.hpp"
#include "error_hook.hpp"

namespace lb4mpi::capi::detail {

int g_mode = kNoMode;
int g_num_loops = 1;
std::string g_pending;
CState* g_last_state = nullptr;

std::vector<CState*>& live_states() {
  static std::vector<CState*> states;
  return states;
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

void print_error(const std::string& msg) {
  std::fprintf(stderr, "%s\n", msg.c_str());
  std::fflush(stderr);
}

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

void conclude_deferred(CState* st) {
  try {
    st->deferred.settle();
  } catch (const Error& e) {
    exit_together(st, e.what());
  }
}

void check(CState* st, int rc, const char* what) {
  if (rc != MPI_SUCCESS) abort_job(st->user, std::string("lb4mpi: ") + what + " failed");
}

void agree(CState* st, const std::string& fn, const std::string& error, std::uint64_t hash,
           const std::function<Fields()>& describe) {
  try {
    lb4mpi::agree(st->comm, error, hash, describe, "the arguments of " + fn);
  } catch (const Error& e) {
    exit_together(st, e.what());
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

Mode effective_mode(const CState* st) {
  return g_mode == kNoMode ? st->base.mode : mode_of(g_mode);
}

int to_int(CState* st, Index v, const char* what) {
  if (v > std::numeric_limits<int>::max() || v < std::numeric_limits<int>::min()) {
    abort_job(st->user, std::string("lb4mpi: ") + what + " does not fit the C API's int");
  }
  return static_cast<int>(v);
}

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

Options setup_options(int size, int rank, int numProcs, int requestWhen, int breakAfter,
                      int minChunk, double h_overhead, double sigma, int nKNL, double Xeon_speed,
                      double KNL_speed) {
  // The method is DLS_StartLoop's argument: LB4MPI_SCHEDULING is not read
  // (docs/MIGRATION.md), so a value there, even a bad one, stops nothing.
  Options o = lb4mpi::detail::from_env_ignoring(Options{}, "LB4MPI_SCHEDULING");
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
  // What the runtime would refuse at the first loop, refused here already —
  // but failure injection: robust mode (DLS_Robust) may still come before
  // the loop, which checks it (Options::validate at DLS_StartLoop).
  Options check = o;
  check.fail_ranks.clear();
  check.validate(size);
  if (o.params.min_chunk < 1) {
    throw Error("min_chunk must be >= 1, got " + std::to_string(o.params.min_chunk) + " (from " +
                o.origin["min_chunk"] + ")");
  }
  return o;
}

std::string dropped_error(const char* fn, const char* terminated_fn, int rank, Index dropped) {
  if (dropped == 0) return {};
  return std::string("lb4mpi: ") + fn + " was called on rank " + std::to_string(rank) + " before " +
         terminated_fn + " returned 1; " + std::to_string(dropped) +
         " iterations handed to it were not executed";
}

}  // namespace lb4mpi::capi::detail

void lb4mpi::capi::reset_for_testing() {
  using namespace lb4mpi::capi::detail;
  while (!live_states().empty()) {
    CState* st = live_states().back();
    unregister(st);
    delete st;
  }
  g_mode = kNoMode;
  g_num_loops = 1;
  g_pending.clear();
}
