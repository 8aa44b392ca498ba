// The LB4MPI-compatible C interface, a thin layer over lb4mpi::Loop and
// lb4mpi::LoopSet: a client of the public C++ API only (its build target
// sees no runtime header). This file: the mode, setup, one loop at a time,
// robust mode and finalization; mloops.cpp: several loops at once;
// state.hpp: a handle's state and how errors end the job.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "lb4mpi/lb4mpi.h"
#include "dls4lb.hpp"
#include "state.hpp"

using namespace lb4mpi::capi::detail;  // NOLINT(google-build-using-namespace): this layer's internals

extern "C" {


void Configure_Chunk_Calculation_Mode(int mode) {
  if (mode != CENTRALIZED && mode != DECENTRALIZED && mode != DECENTRALIZED_RMA && mode != HIERARCHICAL) {
    // Reported by the next collective call (DLS_Parameters_Setup, DLS_StartLoop, ...) on every
    // rank.
    defer("lb4mpi: Configure_Chunk_Calculation_Mode(" + std::to_string(mode) +
          "): valid modes are CENTRALIZED (0), DECENTRALIZED (1), DECENTRALIZED_RMA (2), "
          "HIERARCHICAL (3)");
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
  st->deferred.open(st->comm, "the arguments of DLS_StartLoop");
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
  if (st->group) return group_start_loop(st, firstIter, lastIter, method);
  Technique t{};
  Options& opt = st->loop_options;  // kept: its strings and map are not allocated anew per loop
  const std::string error = start_loop_check(st, firstIter, lastIter, method, t, opt);
  // What decides whether the loop runs alone is hashed too (robust; the
  // rest was agreed by DLS_Parameters_Setup): ranks that decide alike.
  Hasher h;
  h.add(firstIter).add(lastIter).add(method).add(opt.mode).add(opt.robust);
  // 16 bytes, so that the std::function keeps them in place (no allocation).
  struct Args {
    int first, last, method;
    Mode mode;
    bool robust;
  };
  static_assert(sizeof(Args) <= 16);
  const Args args{firstIter, lastIter, method, opt.mode, opt.robust};
  std::function<Fields()> fields = [args] {
    Fields f = start_loop_fields(args.first, args.last, args.method, args.mode);
    f.emplace_back("robust mode (DLS_Robust)", args.robust ? "on" : "off");
    return f;
  };
  if (error.empty() && lb4mpi::detail::LoopAccess::runs_alone(opt)) {
    start_loop_alone(st, firstIter, lastIter, t, opt, h.value(), std::move(fields));
    return;
  }
  // The same vote as a loop that runs alone: a rank that runs alone and one
  // that does not (their arguments differ) meet in it.
  try {
    st->deferred.agree(error, h.value(), std::move(fields));
  } catch (const Error& e) {
    exit_together(st, e.what());
  }
  start_loop_run(st, firstIter, lastIter, t, opt);
}

int DLS_Terminated(infoDLS* info) {
  CState* st = state_of(info, "DLS_Terminated");
  return st->group ? group_terminated(st) : terminated_of(st);
}

void DLS_StartChunk(infoDLS* info, int* chunkStart, int* chunkSize) {
  CState* st = state_of(info, "DLS_StartChunk");
  if (st->group) return group_start_chunk(st, chunkStart, chunkSize);
  start_chunk_of(st, chunkStart, chunkSize);
}

void DLS_EndChunk(infoDLS* info) {
  CState* st = state_of(info, "DLS_EndChunk");
  if (st->group) return group_end_chunk(st);
  end_chunk_of(st);
}

void LB4MPI_EndChunk3(infoDLS* info, int* /*nIter*/, double* /*workTime*/) { DLS_EndChunk(info); }

void DLS_EndLoop(infoDLS* info, int* nIter, double* workTime) {
  CState* st = state_of(info, "DLS_EndLoop");
  if (st->group) return group_end_loop(st, nIter, workTime);
  if (st->loop_alone) return end_loop_alone(st, nIter, workTime);
  const std::string error = end_loop_run(st, nIter, workTime);
  // With failed ranks (robust mode) nothing collective is possible any more.
  if (st->failed_ranks == 0) agree(st, "DLS_EndLoop", error, 0);
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

void DLS_SetMCommit(infoDLS* info, DLS_MCommitFunction commit, void* user) {
  CState* st = state_of(info, "DLS_SetMCommit");
  st->mcommit = commit;
  st->mcommit_user = user;
}

void DLS_EndChunkData(infoDLS* info, const void* data, int bytes) {
  CState* st = state_of(info, "DLS_EndChunkData");
  if (!st->loop_active && !st->set_active)
    abort_job(st->user, "lb4mpi: DLS_EndChunkData called outside DLS_StartLoop ... DLS_EndLoop (or DLS_StartMLoops ... "
                        "DLS_EndMLoops)");
  if (bytes < 0 || (bytes > 0 && data == nullptr)) {
    abort_job(st->user, "lb4mpi: DLS_EndChunkData: bytes must be >= 0 and data not NULL when bytes > 0, got bytes " +
                            std::to_string(bytes));
  }
  or_abort(st, [&] {
    if (st->set_active) {  // the loop of the chunk DLS_StartChunk handed out last
      if (bytes > 0) st->set->result(data, static_cast<std::size_t>(bytes));
      st->set->end_chunk();
      return;
    }
    if (bytes > 0) st->loop->result(data, static_cast<std::size_t>(bytes));
    st->loop->end_chunk();
  });
}

int DLS_FailedRanks(infoDLS* info) { return state_of(info, "DLS_FailedRanks")->failed_ranks; }

void DLS_Finalize(infoDLS* info) {
  CState* st = registered(info);
  if (st == nullptr) return;
  conclude_deferred(st);  // the last STATIC loop's agreement
  unregister(st);
  delete st;
  info->state = nullptr;
}

}  // extern "C"

namespace lb4mpi::capi::detail {

Fields start_loop_fields(int firstIter, int lastIter, int method, Mode mode) {
  return Fields{{"firstIter", shown(firstIter)},
                {"lastIter", shown(lastIter)},
                {"method", shown(method)},
                {"chunk-calculation mode", std::string(lb4mpi::name(mode))}};
}

std::string start_loop_check(CState* st, int firstIter, int lastIter, int method, Technique& t,
                             Options& opt) {
  opt = st->base;
  opt.mode = effective_mode(st);
  std::string error = take_pending();
  if (error.empty() && st->loop_active)
    error = "lb4mpi: DLS_StartLoop: the previous loop is still in flight (call DLS_EndLoop first)";
  if (error.empty() && st->set_active)
    error =
        "lb4mpi: DLS_StartLoop: loops started by DLS_StartMLoops are still in flight (call "
        "DLS_EndMLoops first)";
  if (error.empty())
    error = check_loop(st, firstIter, lastIter, method, t, opt, "lb4mpi: DLS_StartLoop: ");
  return error;
}

namespace {

// After the loop started (start_loop_run, start_loop_alone): the commit
// function and the handle's state of a loop in flight.
void loop_started(CState* st, Index last, const Options& opt) {
  or_abort(st, [&] {
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

// DLS_EndLoop's way to its figures: a rank that ends early still takes part
// in the protocol, so that no other rank hangs; returns the iterations it
// took and did not run, which every rank reports.
Index drain_rest(CState* st) {
  Index dropped = 0;
  or_abort(st, [&] {
    if (st->current) dropped += st->current->size;
    st->current.reset();
    if (!st->terminated) {
      while (const std::optional<Chunk> c = st->loop->next()) dropped += c->size;
      st->terminated = true;
    }
  });
  return dropped;
}

void return_figures(CState* st, const lb4mpi::RankReport& mine, int* nIter, double* workTime) {
  if (nIter != nullptr) *nIter = to_int(st, mine.iterations, "the iteration count");
  if (workTime != nullptr) *workTime = mine.work_time;
}

}  // namespace

void start_loop_run(CState* st, int firstIter, int lastIter, Technique t, const Options& opt) {
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
  });
  st->loop_alone = false;
  loop_started(st, last, opt);
}

void start_loop_alone(CState* st, int firstIter, int lastIter, Technique t, const Options& opt, std::uint64_t hash,
                      std::function<Fields()> fields) {
  using lb4mpi::detail::LoopAccess;
  const Index first = firstIter;
  const Index last = static_cast<Index>(lastIter) + 1;
  std::string error;
  or_abort(st, [&] {
    const bool reuse = st->loop && st->loop_technique == t && st->loop_mode == opt.mode &&
                       LoopAccess::runs_alone(st->loop->options());
    if (!reuse) {
      st->loop.reset();
      st->loop = LoopAccess::unstarted(st->user, opt);
      st->loop_technique = t;
      st->loop_mode = opt.mode;
    }
    error = LoopAccess::start_alone(*st->loop, first, last);
  });
  if (!error.empty()) {
    // Every rank must hear of it: this rank votes now and waits for the
    // others' votes, which they cast at their DLS_EndLoop.
    try {
      st->deferred.agree(error, hash, std::move(fields));
    } catch (const Error& e) {
      exit_together(st, e.what());
    }
    exit_together(st, error);  // not reached: the vote carried an error
  }
  st->loop_alone = true;
  st->alone_hash = hash;
  st->alone_fields = std::move(fields);
  loop_started(st, last, opt);
}

void end_loop_alone(CState* st, int* nIter, double* workTime) {
  if (!st->loop_active) abort_job(st->user, "lb4mpi: DLS_EndLoop called without DLS_StartLoop");
  const Index taken = drain_rest(st);
  Index dropped = 0;
  lb4mpi::RankReport mine;
  or_abort(st, [&] { mine = lb4mpi::detail::LoopAccess::finish_alone(*st->loop, dropped); });
  st->loop_active = false;
  st->loop_alone = false;
  st->failed_ranks = 0;
  return_figures(st, mine, nIter, workTime);
  // One vote for the loop: DLS_StartLoop's arguments and an early end.
  const std::string error = dropped_error("DLS_EndLoop", "DLS_Terminated", st->rank, taken + dropped);
  try {
    // No look at the posted ballot: even MPI_Test yields the core where
    // ranks outnumber cores (Open MPI), which costs a time slice. A rank
    // that knows of an error waits for the outcome at once.
    if (error.empty()) {
      st->deferred.add(error, st->alone_hash, std::move(st->alone_fields));
    } else {
      st->deferred.agree(error, st->alone_hash, std::move(st->alone_fields));
    }
    st->alone_fields = nullptr;
  } catch (const Error& e) {
    exit_together(st, e.what());
  }
}

int terminated_of(CState* st) {
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

void start_chunk_of(CState* st, int* chunkStart, int* chunkSize) {
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

void end_chunk_of(CState* st) {
  if (st->set_active) {
    or_abort(st, [&] { st->set->end_chunk(); });
    return;
  }
  if (!st->loop_active)
    abort_job(st->user, "lb4mpi: DLS_EndChunk called outside DLS_StartLoop ... DLS_EndLoop");
  or_abort(st, [&] { st->loop->end_chunk(); });
}

std::string end_loop_run(CState* st, int* nIter, double* workTime) {
  // Without a loop in flight on this rank, the others (in the loop's
  // protocol) cannot be told: nothing collective is safe.
  if (!st->loop_active) abort_job(st->user, "lb4mpi: DLS_EndLoop called without DLS_StartLoop");
  const Index dropped = drain_rest(st);
  lb4mpi::Report r;
  or_abort(st, [&] {
    r = finish_keeping_report(st, [&] { return std::vector<lb4mpi::Report>{st->loop->finish()}; }).front();
  });
  st->loop_active = false;
  st->failed_ranks = static_cast<int>(r.failed_ranks.size());
  return_figures(st, r.ranks[static_cast<std::size_t>(st->rank)], nIter, workTime);
  return dropped_error("DLS_EndLoop", "DLS_Terminated", st->rank, dropped);
}

}  // namespace lb4mpi::capi::detail
