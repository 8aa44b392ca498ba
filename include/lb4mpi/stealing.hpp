// lb4mpi owned loops: loops over distributed data, balanced by work stealing
// (`000`, `002`; docs/STEALING.md).
//
// Every rank owns a contiguous range of the loop's iterations and the data
// of those iterations (one *item* per iteration: an array slice, an x-slice
// of a cube, an object). Nobody else can read that data. The body receives a
// chunk of iterations with a view of its items, wherever it runs; when a
// balancer moves a chunk to another rank, its items travel with it and the
// results the body wrote travel back into the owner's result storage.
//
//   std::vector<long> work = my_part();              // items of [first, last)
//   std::vector<double> out(work.size());
//   lb4mpi::StealOptions opt = lb4mpi::StealOptions::from_env();
//   opt.balancer = lb4mpi::Balancer::Steal;          // none | steal | a2ws | lw | random-steal
//   lb4mpi::StealReport r = lb4mpi::owned_for(MPI_COMM_WORLD, first, last,
//       lb4mpi::ArrayData<long>(work), lb4mpi::ArrayData<double>(out), opt,
//       [](lb4mpi::Chunk c, std::span<long> in, std::span<double> res) {
//         for (std::size_t k = 0; k < in.size(); ++k) res[k] = compute(c.begin + k, in[k]);
//       });
//   // out holds the results of every iteration this rank owns, wherever it ran.
//
// Collective over `comm`: every rank calls it with its own range and data,
// and the same options. The ranges must not overlap (they need not be in
// rank order, and a rank may own nothing). Bad input (a description that
// does not match the range, ranks that disagree on the options or on the
// shape of the data, a balancer not built) throws the same lb4mpi::Error on
// every rank before any iteration runs.
//
// How a balancer plugs in: one engine per balancer behind one interface,
// st::Engine (src/stealing/internal/stealing/engine.hpp), chosen by
// StealOptions::balancer through the engine registry; docs/STEALING.md,
// "Engines".
#pragma once
#include <mpi.h>

#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "lb4mpi/options.hpp"
#include "lb4mpi/report.hpp"
#include "lb4mpi/stealing/data.hpp"
#include "lb4mpi/stealing/figures.hpp"
#include "lb4mpi/stealing/kinds.hpp"
#include "lb4mpi/stealing/mover.hpp"
#include "lb4mpi/techniques/params.hpp"
#include "lb4mpi/types.hpp"

namespace lb4mpi {

// ---------------------------------------------------------------------------
// Options

/// The options of an owned loop. Set them in code or read them from the
/// environment (from_env: the variables of `000` Table 4.2 and a few more,
/// docs/OPTIONS.md).
struct LB4MPI_API StealOptions {
  /// The balancer (LB4MPI_BALANCER): none, steal, a2ws, lw, random-steal, token.
  Balancer balancer = Balancer::Steal;
  /// What a thief takes: LB4MPI_STEAL_RATIO (percent, 0-100] or
  /// LB4MPI_WS_SCHEDULING (a technique name or `000` Table 4.1 id).
  StealAmount amount = StealAmount::of_ratio(0.5);
  /// Victim selection (LB4MPI_VICTIM, or `000`'s LB4MPI_LAWS=1 / LB4MPI_nLAWS=1).
  Victim victim = Victim::Random;
  /// How an owner cuts its own unstarted iterations into chunks
  /// (LB4MPI_SCHEDULING): a non-adaptive technique's recursive chunks over
  /// the iterations it owns, on P ranks. A chunk, once begun, is executed by
  /// its owner; only chunks not begun are stolen. Unset (the default): no
  /// chunks, every iteration not yet executed can be stolen, and the owner
  /// executes its iterations in pieces of about 20 microseconds.
  std::optional<Technique> chunking;
  /// Parameters of the techniques of `amount` and `chunking` (LB4MPI_MIN_CHUNK, ...).
  TechniqueParams params;
  /// The rank that relays steal requests (Balancer::Steal), or leads (LW).
  int coordinator = 0;
  /// Nodes for Victim::Locality: 0 (the default) asks MPI which ranks share
  /// memory (MPI_Comm_split_type(MPI_COMM_TYPE_SHARED)); k > 0 emulates
  /// nodes of k ranks each (ranks 0..k-1 on node 0, ...), e.g. to test
  /// locality on one machine (LB4MPI_RANKS_PER_NODE).
  int ranks_per_node = 0;
  /// Iterations an owner executes between two looks at its messages; < 0
  /// (default): automatic, about every 20 microseconds (LB4MPI_BREAK_AFTER).
  int break_after = -1;
  /// Seed of the random victim choices (LB4MPI_SEED).
  std::uint64_t seed = 1;
  /// Emulated heterogeneity (LB4MPI_SPEEDS, comma-separated, one positive
  /// factor per rank; empty = all equal): rank r runs its pieces
  /// max(speeds) / speeds[r] times as long (a busy wait after each piece).
  std::vector<double> speeds;
  /// `000` Table 4.2's per-rank iteration CSV (LB4MPI_ITERATIONS_INFO, 0/1):
  /// rank r writes `<iterations_dir>/iterations_rank<r>.csv`, one row per chunk
  /// it executed, its own and stolen ones (docs/TRACING.md).
  bool iterations_info = false;
  /// Its folder (LB4MPI_DIR_ID; "lb4mpi_iterations" when empty).
  std::string iterations_dir;
  /// Decentralized balancers (A2WS): radius R of the ring over which ranks
  /// share their progress (`002` §2.1; LB4MPI_A2WS_RADIUS, >= 1).
  int radius = 1;
  /// How a rank waits for others (LB4MPI_WAIT, as for the other loops,
  /// docs/OPTIONS.md): automatic blocks when the ranks on a node outnumber
  /// its cores. Per rank; the ranks need not agree.
  Wait wait = Wait::Auto;
  /// Decentralized balancers (A2WS): steal before running out, from the
  /// elapsed time (`002` §2.2.1; LB4MPI_A2WS_PREEMPTIVE, 0/1).
  bool preemptive = true;

  /// Where a field's value came from, by member name ("amount" ->
  /// "LB4MPI_STEAL_RATIO=120"); named in error messages.
  std::map<std::string, std::string> origin;

  /// The defaults with the environment's values on top. Throws
  /// lb4mpi::Error naming the variable and the valid values.
  static StealOptions from_env();
  /// `base` with the environment's values on top.
  static StealOptions from_env(StealOptions base);
  /// Throws lb4mpi::Error when these options cannot run on `ranks` ranks
  /// (a coordinator out of range, an adaptive technique, a balancer that
  /// is not built in this build, speeds of the wrong length, ...).
  void validate(int ranks) const;
  /// A hash of what all ranks must pass alike.
  [[nodiscard]] std::uint64_t fingerprint() const;
  /// The same fields as (name, value as text), for a "ranks disagree" error.
  [[nodiscard]] std::vector<std::pair<std::string, std::string>> agreed_fields() const;
  /// The LB4MPI_* variables from_env reads (docs/OPTIONS.md lists each).
  static std::vector<std::string> known_variables();
  /// The balancers whose engines this build has ("none, steal, ...").
  static std::vector<Balancer> built_balancers();
};

// ---------------------------------------------------------------------------
// Report

/// What an owned loop reports, on every rank.
struct LB4MPI_API StealReport {
  /// The loop's figures as any lb4mpi loop reports them: t_par, and per
  /// rank the iterations executed (its own and stolen ones), chunks (pieces
  /// handed to the body), work time, overhead (stealing, serving, waiting),
  /// finish time. report.technique is the steal amount's technique (or
  /// STATIC for a ratio); report.mode is meaningless here.
  Report loop;
  Balancer balancer = Balancer::Steal;  ///< the balancer that ran
  StealAmount amount;                   ///< how much a steal took
  Victim victim = Victim::Random;       ///< how thieves chose their victims
  std::vector<RankSteals> ranks;  ///< one per rank

  /// Steal requests of all ranks.
  [[nodiscard]] Index steal_attempts() const;
  /// Steals that moved work, of all ranks.
  [[nodiscard]] Index successful_steals() const;
  /// Iterations moved by steals.
  [[nodiscard]] Index iterations_stolen() const;
  /// Mean seconds per stolen chunk sending (victims) / receiving (thieves)
  /// its items; 0 without steals.
  [[nodiscard]] double send_time_per_steal() const;
  /// Mean seconds per stolen chunk receiving its items (thieves); 0 without steals.
  [[nodiscard]] double receive_time_per_steal() const;
  /// The c.o.v. of the ranks' finish times after balancing (= loop.finish_cov()).
  [[nodiscard]] double time_cov() const { return loop.finish_cov(); }
};

// ---------------------------------------------------------------------------
// The loop

/// The body behind its type: runs chunk `c` (global indices) with its input
/// items at `in` and its results at `out`.
using OwnedBodyFn = void (*)(void* body, Chunk c, const Place& in, const Place& out);
/// Everything run_owned_loop needs, type-erased (owned_for and the C API fill it).
struct OwnedLoopArgs {
  MPI_Comm comm = MPI_COMM_NULL;  ///< the ranks of the loop
  Index first = 0;                ///< first iteration
  Index last = 0;                 ///< half-open: [first, last)
  Mover* in = nullptr;   ///< null: no input items
  Mover* out = nullptr;  ///< null: no results
  std::string in_error;  ///< the descriptions' check() ("" when fine)
  std::string out_error;  ///< the results description's check() ("" when fine)
  std::string error;     ///< the front end's own check of this rank ("" when fine)
  OwnedBodyFn body = nullptr;   ///< calls the body
  void* body_state = nullptr;   ///< the body, passed to `body`
};
/// Collective: runs the owned loop behind owned_for's types (and the C
/// interface's); owned_for is the form to use (docs/STEALING.md).
LB4MPI_API StealReport run_owned_loop(const OwnedLoopArgs& args, const StealOptions& options);

namespace detail {
template <class D>
Mover* mover_of(D& d) {
  if constexpr (std::is_pointer_v<decltype(d.mover())>) {
    return d.mover();
  } else {
    return &d.mover();
  }
}
}  // namespace detail

/// Runs the iterations [first, last) this rank owns, with their items
/// `in` (one per iteration) and result storage `out` (one per iteration, or
/// NoData), balanced across `comm` by options.balancer. Calls
/// body(Chunk, In::View, Out::View) for pieces of work, on whichever rank
/// runs them; Chunk holds global iteration indices. Collective; returns the
/// report on every rank. When it returns, `out` holds the results of every
/// iteration this rank owns.
template <class In, class Out, class Body>
  requires DataDescription<std::remove_cvref_t<In>> && DataDescription<std::remove_cvref_t<Out>>
StealReport owned_for(MPI_Comm comm, Index first, Index last, In&& in, Out&& out, const StealOptions& options,
                      Body&& body) {
  struct State {
    std::remove_reference_t<In>* in;
    std::remove_reference_t<Out>* out;
    std::remove_reference_t<Body>* body;
  } state{&in, &out, &body};
  OwnedLoopArgs args;
  args.comm = comm;
  args.first = first;
  args.last = last;
  args.in = detail::mover_of(in);
  args.out = detail::mover_of(out);
  args.in_error = in.check();
  args.out_error = out.check();
  args.body_state = &state;
  args.body = [](void* s, Chunk c, const Place& pin, const Place& pout) {
    auto* st = static_cast<State*>(s);
    (*st->body)(c, st->in->view(pin, c.size), st->out->view(pout, c.size));
  };
  return run_owned_loop(args, options);
}

/// The same without results: body(Chunk, In::View).
template <class In, class Body>
  requires DataDescription<std::remove_cvref_t<In>>
StealReport owned_for(MPI_Comm comm, Index first, Index last, In&& in, const StealOptions& options, Body&& body) {
  return owned_for(comm, first, last, std::forward<In>(in), NoData{}, options,
                   [&body](Chunk c, typename std::remove_cvref_t<In>::View v, NoView) { body(c, v); });
}

}  // namespace lb4mpi
