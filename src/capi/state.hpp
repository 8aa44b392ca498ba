// The C interface's internals (src/capi): a handle's state, the registry of
// live handles, how errors end the job (on one rank or on every rank
// together), and the conversions between the C arguments and lb4mpi's
// options. The C functions themselves are in capi.cpp (setup, one loop,
// robust mode) and mloops.cpp (several loops at once).
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
#pragma once
#include <cstdint>
#include <cstdio>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "lb4mpi/lb4mpi.h"
#include "lb4mpi/lb4mpi.hpp"
#include "lb4mpi/loops.hpp"
#include "../frontend/loop_access.hpp"
#include "methods.hpp"

namespace lb4mpi::capi::detail {

using lb4mpi::Chunk;
using lb4mpi::Error;
using lb4mpi::Index;
using lb4mpi::Mode;
using lb4mpi::Options;
using lb4mpi::Technique;
using lb4mpi::capi::c_mode_of;
using lb4mpi::capi::mode_of;
using lb4mpi::capi::technique_of;

constexpr int kNoMode = -1;

struct GroupRole;  // dls4lb.hpp: a handle of DLS_GroupSetup's outer loop

extern int g_mode;          // Configure_Chunk_Calculation_Mode; kNoMode: never called (LB4MPI_MODE /
                            // default decide)
extern int g_num_loops;     // DLS_NumLoops before DLS_Parameters_Setup
extern std::string g_pending;  // error of a non-collective call, reported by the next collective one

// ------------------------------------------------------------------ state

struct CState {
  MPI_Comm user = MPI_COMM_NULL;  // the application's communicator
  MPI_Comm comm = MPI_COMM_NULL;  // the C API's own duplicate, for its agreements
  bool owns_user = false;         // `user` was made by DLS_GroupSetup: freed with the handle
  std::shared_ptr<GroupRole> group;  // DLS_GroupSetup's outer handle (dls4lb.hpp); else null
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
  Options loop_options;          // DLS_StartLoop's options of the loop (reused storage)
  // A STATIC loop runs alone (start_loop_alone): no collective at its start
  // or end; its agreement, voted at DLS_EndLoop, is concluded at the
  // handle's next call (docs/RUNTIME.md, "STATIC without waiting").
  bool loop_alone = false;
  std::uint64_t alone_hash = 0;                // its DLS_StartLoop arguments
  std::function<lb4mpi::rt::Fields()> alone_fields;  // ... as text, for a mismatch
  lb4mpi::detail::DeferredVote deferred;
  std::optional<Chunk> current;  // fetched by DLS_Terminated, handed out by DLS_StartChunk
  bool terminated = false;
  Index last = 0;  // half-open end of the loop in flight
  // Robust mode's results (DLS_SetCommit, DLS_EndChunkData) and outcome.
  DLS_CommitFunction commit = nullptr;
  void* commit_user = nullptr;
  int failed_ranks = 0;  // of the last loop (DLS_StartMLoops: of the last loops, all together)
  DLS_MCommitFunction mcommit = nullptr;  // DLS_SetMCommit: loops started by DLS_StartMLoops
  void* mcommit_user = nullptr;

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
    group.reset();
    if (comm != MPI_COMM_NULL) MPI_Comm_free(&comm);
    if (owns_user && user != MPI_COMM_NULL) MPI_Comm_free(&user);
  }
};

// Handles set up and not yet finalized. The application's infoDLS may hold
// garbage before DLS_Parameters_Setup; it is only compared, never followed.
std::vector<CState*>& live_states();

// The handle of the last successful lookup: the hot path (DLS_StartChunk,
// DLS_EndChunk, DLS_Terminated on one handle) finds it with one comparison.
extern CState* g_last_state;

CState* registered_slow(const infoDLS* info);

// The hot path (one comparison) inline; the search out of line.
inline CState* registered(const infoDLS* info) {
  if (info != nullptr && info->state == g_last_state && g_last_state != nullptr) return g_last_state;
  return registered_slow(info);
}

void unregister(CState* st);

// ------------------------------------------------------------------ errors

void print_error(const std::string& msg);

// Misuse only this rank knows of: end the whole job.
[[noreturn]] void abort_job(MPI_Comm comm, const std::string& msg);

// Every rank of st->comm reports the same error at the same call: release
// this handle's loops (collective, every rank is here), finalize, exit 2.
[[noreturn]] void exit_together(CState* st, const std::string& msg);

void check(CState* st, int rc, const char* what);

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
           const std::function<Fields()>& describe = {});

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

// The error a non-collective call left (empty if none), taken.
std::string take_pending();
// Keeps the first error of a non-collective call for the next collective one.
void defer(const std::string& msg);

[[noreturn, gnu::noinline]] void not_a_handle(const char* fn);

inline CState* state_of(infoDLS* info, const char* fn) {
  CState* st = registered(info);
  if (st == nullptr) not_a_handle(fn);
  return st;
}

// ------------------------------------------------------------------ conversions

// Configure_Chunk_Calculation_Mode when it was called, else LB4MPI_MODE (read
// by DLS_Parameters_Setup), else CENTRALIZED.
Mode effective_mode(const CState* st);

int to_int(CState* st, Index v, const char* what);

// A loop [first, last] (inclusive bounds, as LB4MPI): "" when valid.
std::string check_loop(const CState* st, int firstIter, int lastIter, int method, Technique& t,
                       Options& opt, const std::string& which);

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
                      double KNL_speed);

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

// The parts of DLS_StartLoop ... DLS_EndLoop (capi.cpp) that DLS_GroupSetup's
// outer handles (dls4lb.cpp) reuse around their own agreement and relay.
// start_loop_check: "" or the error of DLS_StartLoop's arguments (also sets t
// and opt); start_loop_run: after the agreement, creates or restarts the loop.
std::string start_loop_check(CState* st, int firstIter, int lastIter, int method, Technique& t,
                             Options& opt);
Fields start_loop_fields(int firstIter, int lastIter, int method, Mode mode);
void start_loop_run(CState* st, int firstIter, int lastIter, Technique t, const Options& opt);
// A loop that runs alone (STATIC, lb4mpi::detail::LoopAccess): started
// without a collective; its agreement on `hash` (the arguments, described
// by `fields`) and on an early end is voted at DLS_EndLoop
// (end_loop_alone) and concluded at the handle's next call.
void start_loop_alone(CState* st, int firstIter, int lastIter, Technique t, const Options& opt, std::uint64_t hash,
                      std::function<Fields()> fields);
void end_loop_alone(CState* st, int* nIter, double* workTime);
int terminated_of(CState* st);
void start_chunk_of(CState* st, int* chunkStart, int* chunkSize);
void end_chunk_of(CState* st);
// The outstanding agreements of the handle's STATIC loops (CState::deferred),
// waited for and concluded; an error ends the job on every rank
// (exit_together). Before any other collective call on the handle.
void conclude_deferred(CState* st);
// Finishes the loop; returns the error to agree on ("" or dropped_error).
std::string end_loop_run(CState* st, int* nIter, double* workTime);

// After DLS_EndLoop / DLS_EndMLoops: this rank's chunks it did not run.
std::string dropped_error(const char* fn, const char* terminated_fn, int rank, Index dropped);

}  // namespace lb4mpi::capi::detail
