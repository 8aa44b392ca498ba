// The stealing layer's one interface: an engine runs one execution of an
// owned loop on one rank. Balancers are peers behind it — none, relayed
// stealing (`000`), and the decentralized ones (A2WS, LW, random stealing,
// token; `002`) — chosen by Config::balancer through the registry.
//
// What an engine gets (Run): the communicator (lb4mpi's private duplicate,
// the execution's message epoch), every rank's owned range, the movers of
// the input items and of the results, and the services every engine shares:
// execute() runs a piece of work (timed, slowed per Config::speeds, counted),
// budget() says how long a piece may be before the rank looks at its
// messages (the runtime's ServeCadence), the progress engine, and this
// rank's figures. The front end (src/stealing/api) does the rest around it:
// the agreement at the start, the figures' exchange and the report.
//
// HOW AN ENGINE PLUGS IN (no edit to the existing engines or this file; one
// line in registry.cpp):
//  1. implement st::Engine in its own folder, e.g. src/stealing/a2ws/*.cpp
//     (every .cpp below src/stealing/ except src/stealing/api/ is part of
//     the layer's target, found by CMake's GLOB_RECURSE);
//  2. provide src/stealing/<folder>/register.hpp declaring
//       namespace lb4mpi::st::<folder> { void register_engines(EngineRegistry& r); }
//     and define it to call r.add(Balancer::A2WS, &make_a2ws, "...") etc.;
//  3. src/stealing/registry.cpp includes "<folder>/register.hpp" and calls
//     <folder>::register_engines (a plain include, not __has_include: the
//     build must see the dependency). A balancer without a registered
//     engine is refused when a loop starts, on every rank:
//     "balancer 'a2ws' is not built in this build (built: none, steal)";
//     today every balancer of Balancer is registered.
#pragma once
#include <mpi.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "lb4mpi/stealing/figures.hpp"
#include "lb4mpi/stealing/kinds.hpp"
#include "lb4mpi/stealing/mover.hpp"
#include "lb4mpi/techniques/params.hpp"
#include "runtime/figures.hpp"
#include "runtime/pieces.hpp"
#include "runtime/progress.hpp"

namespace lb4mpi::st {

/// What the engines need of the options (resolved by the front end from
/// lb4mpi::StealOptions; the layer never sees the front end's types).
struct Config {
  Balancer balancer = Balancer::Steal;
  StealAmount amount;
  Victim victim = Victim::Random;
  std::optional<Technique> chunking;  ///< the owner's chunks; unset: pieces, everything unstarted stealable
  TechniqueParams params;
  int coordinator = 0;
  int ranks_per_node = 0;  ///< 0: MPI_COMM_TYPE_SHARED; k: emulated nodes of k ranks
  int break_after = -1;    ///< < 0: pieces of about rt::kServeLatency
  std::uint64_t seed = 1;
  std::vector<double> speeds;  ///< one per rank, or empty (all equal)
  bool record_chunks = false;  ///< Run keeps a record per chunk executed (the iteration CSV)
  int radius = 1;              ///< decentralized balancers: ring radius R (`002` §2.1)
  bool preemptive = true;      ///< decentralized balancers: preemptive stealing (`002` §2.2.1)
};

/// A rank's owned iterations, global indices [first, last).
struct Range {
  Index first = 0;
  Index last = 0;
  [[nodiscard]] Index size() const { return last - first; }
};

/// The body behind its type (lb4mpi::OwnedBodyFn and its state).
struct Body {
  void (*fn)(void* state, Chunk c, const Place& in, const Place& out) = nullptr;
  void* state = nullptr;
};

/// One execution of an owned loop on this rank, as its engine sees it.
class Run {
 public:
  Run(MPI_Comm comm, std::int32_t epoch, const Config& config, std::vector<Range> owned, Mover* in, Mover* out,
      Body body, rt::ProgressEngine& progress);

  // ---- who and what
  [[nodiscard]] MPI_Comm comm() const { return comm_; }
  [[nodiscard]] int rank() const { return rank_; }
  [[nodiscard]] int size() const { return size_; }
  /// The execution's message epoch: the same on every rank; every message
  /// of the execution carries it (a message of an abandoned execution on
  /// the same communicator is recognized and dropped).
  [[nodiscard]] std::int32_t epoch() const { return epoch_; }
  [[nodiscard]] const Config& config() const { return config_; }
  /// Every rank's owned range, by rank.
  [[nodiscard]] const std::vector<Range>& owned() const { return owned_; }
  [[nodiscard]] const Range& mine() const { return owned_[static_cast<std::size_t>(rank_)]; }
  /// Movers of the input items and of the results; null when the loop has none.
  [[nodiscard]] Mover* in() const { return in_; }
  [[nodiscard]] Mover* out() const { return out_; }
  rt::ProgressEngine& progress() { return *progress_; }
  /// Node of every rank (Victim::Locality): filled by the front end before
  /// run() when Engine::needs_nodes(); empty otherwise.
  std::vector<int> nodes;

  // ---- executing
  /// Iterations the next piece may take: a piece lasts about
  /// rt::kServeLatency (or Config::break_after iterations), after which the
  /// rank should look at its messages.
  [[nodiscard]] Index budget() const { return cadence_.budget(); }
  /// Runs the body on `c` (global indices) with its items at `in` and its
  /// results at `out` (Places of this rank's storage or of buffers), times
  /// it (work time, finish time), slows it per Config::speeds, counts its
  /// iterations. `new_chunk`: the piece begins a chunk (counted).
  void execute(Chunk c, const Place& in, const Place& out, bool new_chunk);
  /// The clock (seconds, monotonic).
  [[nodiscard]] static double now();

  // ---- figures
  /// A chunk this rank executed (Config::record_chunks): global indices,
  /// seconds since the execution's start.
  struct ChunkRecord {
    Index start = 0;
    Index size = 0;
    double t_begin = 0.0;
    double t_end = 0.0;
  };
  [[nodiscard]] const std::vector<ChunkRecord>& chunk_records() const { return records_; }
  rt::RankFigures& loop_figures() { return loop_; }
  RankSteals& steal_figures() { return steals_; }
  /// The rank has learnt that the execution is over for it (sets exit_time).
  void exited();
  [[nodiscard]] double started_at() const { return t0_; }

 private:
  MPI_Comm comm_;
  int rank_ = 0;
  int size_ = 1;
  std::int32_t epoch_;
  const Config& config_;
  std::vector<Range> owned_;
  Mover* in_;
  Mover* out_;
  Body body_;
  rt::ProgressEngine* progress_;
  rt::ServeCadence cadence_;
  double slowdown_ = 1.0;
  double t0_ = 0.0;
  rt::RankFigures loop_;
  RankSteals steals_;
  std::vector<ChunkRecord> records_;
};

/// A balancer on one rank.
class Engine {
 public:
  virtual ~Engine() = default;
  /// Collective over the run's communicator: runs this rank's part of the
  /// execution. When it returns on a rank, every iteration that rank owns
  /// was executed exactly once (by it or another rank), the results of
  /// those iterations are in its result storage, every message of the
  /// execution to or from it has completed, and run.exited() was called.
  virtual void run(Run& run) = 0;
  /// Whether run.nodes must be filled before run() (a collective call).
  [[nodiscard]] virtual bool needs_nodes(const Config& /*config*/) const { return false; }
};

using EngineFactory = std::unique_ptr<Engine> (*)(const Config& config);

/// The engines of this build, by balancer.
class EngineRegistry {
 public:
  void add(Balancer balancer, EngineFactory make);
  /// Null when `balancer` is not built in this build.
  [[nodiscard]] EngineFactory find(Balancer balancer) const;
  [[nodiscard]] std::vector<Balancer> built() const;
  /// The registry with every engine of the build.
  static const EngineRegistry& instance();

 private:
  std::vector<std::pair<Balancer, EngineFactory>> entries_;
};

}  // namespace lb4mpi::st
