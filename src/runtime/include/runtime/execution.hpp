// One loop on one rank across its executions (time steps): what every
// execution model shares. It starts an execution collectively (the
// agreement), hands the rank its pieces from the model's Scheduler, times
// only what the configuration needs, and at the end exchanges the ranks'
// figures. A front end (lb4mpi::Loop, LoopSet, the C API through them)
// drives it; the model behind it is chosen at the first start.
#pragma once
#include <mpi.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "runtime/agreement.hpp"
#include "runtime/channel.hpp"
#include "runtime/config.hpp"
#include "runtime/exchange.hpp"
#include "runtime/fault.hpp"
#include "runtime/figures.hpp"
#include "runtime/observer.hpp"
#include "runtime/progress.hpp"
#include "runtime/results.hpp"
#include "runtime/scheduler.hpp"

namespace lb4mpi::rt {

class AdaptiveFeedback;
struct Context;
class Meter;

class Execution {
 public:
  /// `comm`: the user's communicator (lb4mpi runs on its private duplicate
  /// number `channel`); `engine`: the progress engine this rank's loops in
  /// flight share; `observer` (may be null): told about every chunk.
  Execution(MPI_Comm comm, int channel, ProgressEngine& engine, const ExecConfig& config,
            ChunkObserver* observer = nullptr);
  ~Execution();
  Execution(const Execution&) = delete;
  Execution& operator=(const Execution&) = delete;

  /// Collective: a new execution over [first, last). `error` is the front
  /// end's own validation of this rank ("" when fine) and `fingerprint` a
  /// hash of what every rank must pass alike; the runtime adds its checks
  /// (range, technique parameters, coordinator, a loop still in flight) and
  /// agrees: on any failure or mismatch every rank throws the same Error.
  /// `describe` (optional) lists what `fingerprint` hashes, as text: when
  /// the ranks disagree, the error names the first rank and field that
  /// differ, with both values.
  void start(Index first, Index last, std::string error, std::uint64_t fingerprint,
             const std::function<Fields()>& describe = {});

  /// Whether an execution of `technique` under `model` can start and end
  /// without its ranks meeting: a technique whose chunks need no assignment
  /// (STATIC: each rank's one block is its own), not hierarchical, without
  /// recovery, not observed — no message, no window, no report to gather.
  [[nodiscard]] static bool runs_alone(Technique technique, Model model, bool recovery, bool observed);
  /// start() without the agreement, for such an execution (the caller
  /// agrees later, rt::DeferredAgreement): "" when it started, else this
  /// rank's error, and nothing started.
  std::string start_alone(Index first, Index last);
  /// finish() without the exchange, after start_alone(): this rank's
  /// figures (`dropped`: what it took but did not run).
  RankFigures finish_alone();

  /// The next piece for this rank (ends the previous one); nullopt when the
  /// loop is over for it. Absolute iteration indices. Under recovery the
  /// end-of-loop exchange runs before it says so (conclude()).
  std::optional<Chunk> next();
  /// The technique of the next execution, between two executions (automatic
  /// selection): start() switches to it once the ranks agreed, and what the
  /// previous technique learnt is dropped. Every rank must ask for the same.
  void use_technique(Technique t) { next_technique_ = t; }

  /// Non-blocking next() for loops in flight together. With
  /// `copies_later` (recovery) a copy of a chunk out elsewhere is not begun
  /// now: NotNow, and `copy_deferred` says that one is waiting.
  Grab::Kind poll(Chunk& piece);
  Grab::Kind poll(Chunk& piece, bool copies_later, bool& copy_deferred);
  /// Ends the current piece (its time counts as work).
  void end_piece();
  [[nodiscard]] bool drained() const { return drained_; }
  /// `003` tExclude: seconds this rank spent on other loops of its set.
  void exclude(double seconds);
  /// Bytes of results for the current piece (several calls append): they
  /// travel with the chunk's completion and are committed on the
  /// coordinator, once per chunk (runtime/results.hpp).
  void attach(const void* data, std::size_t bytes);
  /// Every wait of this loop on another rank has a deadline (recovery).
  [[nodiscard]] bool bounded() const;
  /// Loops in flight together: this rank works on another loop (Scheduler::tend).
  void tend();
  /// Loops in flight together: a loop that ended here but whose coordinator
  /// failed since goes on under its successor (Scheduler::recover): true
  /// when it did (the loop is no longer drained).
  bool reopen();
  /// Recovery, once drained: the end-of-loop exchange of figures, while
  /// the rank is still in the loop. If the coordinator fails during it, the
  /// survivors fail over and the loop goes on under the successor (what
  /// the failed one committed is committed again there): false, and the
  /// execution is no longer drained. True otherwise (also without recovery,
  /// whose exchange is finish()'s).
  bool conclude();
  /// Loops in flight together: `known` (one entry per rank) is shared by the
  /// loops of the set: a rank one loop finds failed is failed for all.
  void share_failures(std::vector<char>* known);
  /// Replaces the failure injection ExecConfig asks for (nullptr: none).
  void set_fault_injector(std::unique_ptr<FaultInjector> fault) { fault_ = std::move(fault); }
  /// The coordinator's commit function (other ranks never call it).
  void set_commit(CommitFn fn) { results_.set_commit(std::move(fn)); }

  /// Collective: completes the protocol (a rank that stopped early takes and
  /// drops the rest of its share), exchanges the figures, lets the model
  /// learn across executions; every rank's figures, by rank.
  std::vector<RankFigures> finish();

  [[nodiscard]] int rank() const;
  [[nodiscard]] int size() const;
  [[nodiscard]] MPI_Comm comm() const;
  [[nodiscard]] Index first() const { return first_; }
  [[nodiscard]] Index n() const { return n_; }
  /// Executions so far, minus one: the current time step.
  [[nodiscard]] std::int32_t step() const { return step_; }
  [[nodiscard]] const ExecConfig& config() const;

 private:
  Grab::Kind obtain(bool may_wait, Chunk& piece);
  void close_piece();
  /// start()'s and start_alone()'s common part, once agreed or alone.
  void begin(Index first, Index last);
  /// This rank's figures, once drained, as the exchange sends them.
  void settle();
  /// finish()'s and finish_alone()'s: takes and drops what is left of this rank's share.
  void drain();

  std::unique_ptr<Context> ctx_;
  std::unique_ptr<Meter> meter_;
  std::unique_ptr<AdaptiveFeedback> fb_;
  std::unique_ptr<Scheduler> sched_;
  std::optional<Technique> next_technique_;  // use_technique()
  /// The feedback of the other techniques this loop ran (use_technique):
  /// what an adaptive one learnt is there again when the loop comes back to it.
  std::map<Technique, std::unique_ptr<AdaptiveFeedback>> parked_;
  bool slowed_ = false;  // this execution is perturbed on this rank (ExecConfig::slow_factor)
  std::unique_ptr<ReportExchange> exchange_;
  ChunkObserver* observer_;
  std::unique_ptr<FaultInjector> fault_;  // failure injection, when this rank is a victim (runtime/fault.hpp)
  std::uint64_t observed_mark_ = 0;  // pieces ended on this thread after the observer's last piece or chunk

  ResultStore results_;
  bool timed_ = false;  // every piece and acquire is timed (adaptive technique or observer)
  Index first_ = 0;
  Index n_ = 0;
  std::int32_t step_ = -1;
  bool started_ = false;
  bool drained_ = true;
  RankFigures mine_;
  std::optional<std::vector<RankFigures>> concluded_;  // conclude()'s exchange, for finish()
  double t_start_ = 0.0;
  double overhead_at_finish_ = -1.0;  // when the rank's last piece ended
  // The piece being executed.
  bool in_piece_ = false;
  std::int64_t piece_id_ = -1;
  Index piece_size_ = 0;
  double t_piece_ = 0.0;
};

}  // namespace lb4mpi::rt
