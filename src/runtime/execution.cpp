#include "runtime/execution.hpp"

#include <algorithm>
#include <climits>

#include "feedback.hpp"
#include "lb4mpi/techniques/chunk_calculator.hpp"
#include "models.hpp"
#include "recovery/policy.hpp"
#include "recovery/survivors.hpp"
#include "runtime/agreement.hpp"
#include "context.hpp"
#include "runtime/mpi.hpp"

namespace lb4mpi::rt {

namespace {
// Pieces that ended on this thread so far, over every loop, observed or not:
// a loop whose count moved between two of its pieces had another loop's piece
// run in between (ChunkObserver::piece's `resumed`).
// The default TLS model (a __tls_get_addr call per piece in the shared
// library, about 3 % of a one-rank SS hand-out): initial-exec cannot be
// loaded by dlopen once the static TLS block is full, which SimGrid's SMPI
// does with a copy of the program per simulated rank (sim.checksums).
thread_local std::uint64_t g_pieces_ended = 0;
}  // namespace

Execution::Execution(MPI_Comm comm, int channel, ProgressEngine& engine, const ExecConfig& config,
                     ChunkObserver* observer)
    : ctx_(std::make_unique<Context>()),
      meter_(std::make_unique<Meter>()),
      observer_(observer) {
  ctx_->channel = &private_channel(comm, channel);
  set_wait_policy(config.wait);
  ctx_->comm = ctx_->channel->comm;
  check_mpi(MPI_Comm_rank(ctx_->comm, &ctx_->rank), "MPI_Comm_rank");
  check_mpi(MPI_Comm_size(ctx_->comm, &ctx_->size), "MPI_Comm_size");
  ctx_->engine = &engine;
  ctx_->meter = meter_.get();
  ctx_->config = config;
  ctx_->config.observe = observer != nullptr;
  ctx_->results = &results_;
  fb_ = std::make_unique<AdaptiveFeedback>(ctx_->config, ctx_->size);
  fault_ = make_fault_injector(ctx_->config, ctx_->rank);
  if (config.robust) {
    SurvivorsExchange::Hooks hooks{ctx_->engine, &ctx_->takeover, [this] { return fault_.get(); }};
    exchange_ = std::make_unique<SurvivorsExchange>(&ctx_->config.coordinator, &ctx_->epoch, 0.1 * config.robust_timeout,
                                                    config.robust_timeout, std::move(hooks));
  } else {
    exchange_ = std::make_unique<AllRanksExchange>();
  }
}

Execution::~Execution() {
  if (ctx_->channel->busy == this) ctx_->channel->busy = nullptr;
}

bool Execution::bounded() const { return ctx_->bounded(); }
void Execution::tend() {
  if (!sched_) return;
  if (drained_) {
    (void)reopen();  // its coordinator failed after it ended here: the failover runs now
    return;
  }
  sched_->tend();
}
bool Execution::reopen() {
  if (!drained_ || !sched_ || !started_ || !sched_->orphaned()) return false;
  drained_ = false;
  overhead_at_finish_ = -1.0;
  concluded_.reset();  // a set's loop whose exchange its coordinator survived: committed there, gone with it
  sched_->recover();
  return true;
}
void Execution::share_failures(std::vector<char>* known) {
  ctx_->known_failed = known;
  exchange_->share_failures(known);
}

int Execution::rank() const { return ctx_->rank; }
int Execution::size() const { return ctx_->size; }
MPI_Comm Execution::comm() const { return ctx_->comm; }
const ExecConfig& Execution::config() const { return ctx_->config; }

namespace {

std::string validate(const Context& ctx, const Channel& channel, const void* self, Index first, Index last,
                     Technique technique) {
  const ExecConfig& c = ctx.config;
  if (c.coordinator < 0 || c.coordinator >= ctx.size) {
    return "lb4mpi: coordinator rank " + std::to_string(c.coordinator) + " is outside the communicator (valid: 0.." +
           std::to_string(ctx.size - 1) + ")";
  }
  if (channel.busy != nullptr && channel.busy != self) {
    return "lb4mpi: another loop on this communicator is still in flight on rank " + std::to_string(ctx.rank) +
           " (its next() has not yet returned \"no chunk\"); run a loop to its end before starting the next "
           "one, or schedule loops in flight together with lb4mpi::LoopSet (C: DLS_StartMLoops)";
  }
  if (last < first) {
    return "lb4mpi: invalid loop range [" + std::to_string(first) + ", " + std::to_string(last) +
           "): first must not exceed last";
  }
  try {
    c.params.validate(technique, last - first, ctx.size);
  } catch (const Error& e) {
    return e.what();
  }
  return {};
}

}  // namespace

void Execution::start(Index first, Index last, std::string error, std::uint64_t fingerprint,
                      const std::function<Fields()>& describe) {
  Channel& channel = *ctx_->channel;
  if (error.empty()) error = validate(*ctx_, channel, this, first, last, next_technique_.value_or(ctx_->config.technique));
  Hasher h;
  h.add(first).add(last).add(fingerprint);
  agree(ctx_->comm, error, h.value(), [&] {
    Fields fields{{"range", "[" + std::to_string(first) + ", " + std::to_string(last) + ")"}};
    if (describe) {
      Fields more = describe();
      fields.insert(fields.end(), more.begin(), more.end());
    }
    return fields;
  });
  begin(first, last);
}

bool Execution::runs_alone(Technique technique, Model model, bool recovery, bool observed) {
  return !lb4mpi::needs_assignment(technique) && model != Model::Hierarchical && !recovery && !observed;
}

std::string Execution::start_alone(Index first, Index last) {
  const ExecConfig& c = ctx_->config;
  if (!runs_alone(c.technique, c.model, c.robust, observer_ != nullptr) || next_technique_) {
    throw Error("lb4mpi: internal error: start_alone() for an execution whose ranks must meet");
  }
  std::string error = validate(*ctx_, *ctx_->channel, this, first, last, ctx_->config.technique);
  if (error.empty()) begin(first, last);
  return error;
}

RankFigures Execution::finish_alone() {
  if (!started_) throw Error("lb4mpi: internal error: finish_alone() before start_alone()");
  drain();
  mine_.iterations -= mine_.dropped;
  settle();
  return mine_;
}

void Execution::drain() {
  // A rank that stops early still takes part in the protocol, so that no
  // other rank hangs; the iterations it dropped are not counted as executed.
  while (!drained_) {
    Chunk c;
    if (obtain(true, c) == Grab::Kind::Piece) mine_.dropped += c.size;
  }
}

void Execution::begin(Index first, Index last) {
  Channel& channel = *ctx_->channel;
  // Executions start collectively and in the same order on every rank, so
  // every rank draws the same message epoch.
  if (next_technique_ && *next_technique_ != ctx_->config.technique) {
    // Every rank agreed on it: a scheduler's teardown may be collective (a window).
    sched_.reset();
    parked_[ctx_->config.technique] = std::move(fb_);
    ctx_->config.technique = *next_technique_;
    auto parked = parked_.find(*next_technique_);
    if (parked != parked_.end()) {
      fb_ = std::move(parked->second);
      parked_.erase(parked);
    } else {
      fb_ = std::make_unique<AdaptiveFeedback>(ctx_->config, ctx_->size);
    }
  }
  next_technique_.reset();
  ctx_->epoch = channel.next_epoch;
  channel.next_epoch = channel.next_epoch == INT32_MAX ? 1 : channel.next_epoch + 1;
  channel.busy = this;
  first_ = first;
  n_ = last - first;
  ++step_;
  mine_ = RankFigures{};
  concluded_.reset();
  in_piece_ = false;
  drained_ = false;
  overhead_at_finish_ = -1.0;
  t_start_ = clock_now();
  fb_->start(n_, t_start_);
  results_.start(first);
  if (fault_) fault_->execution_starts(t_start_);
  slowed_ = ctx_->config.slow_factor > 1.0 && step_ >= ctx_->config.slow_from;
  timed_ = fb_->timed() || observer_ != nullptr || slowed_;
  meter_->reset(timed_, ctx_->config.delay_us, observer_);
  meter_->first = first;
  if (!sched_) sched_ = make_scheduler(*ctx_, *fb_);
  if (observer_ != nullptr) observer_->begin(step_, n_, ctx_->size);
  started_ = true;
  sched_->start(n_);
}

void Execution::exclude(double seconds) {
  if (sched_) sched_->exclude(seconds);
}

void Execution::attach(const void* data, std::size_t bytes) {
  if (!in_piece_) throw Error("lb4mpi: a result was attached outside a chunk (attach it before the next next())");
  results_.attach(data, bytes);
}

void Execution::close_piece() {
  in_piece_ = false;
  results_.end_piece();
  mine_.iterations += piece_size_;
  double work = 0.0;
  if (timed_) {
    double t = clock_now();
    if (slowed_) {  // perturbation: this rank is slowed
      spin_for_us((ctx_->config.slow_factor - 1.0) * (t - t_piece_) * 1e6);
      t = clock_now();
    }
    work = t - t_piece_;
    mine_.work_time += work;
    if (observer_ != nullptr) {
      observer_->piece(t_piece_ - observer_->origin(), t - observer_->origin(), g_pieces_ended != observed_mark_);
      observed_mark_ = g_pieces_ended + 1;  // this piece is counted just below
    }
  }
  ++g_pieces_ended;
  sched_->finished(piece_id_, piece_size_, work);
  if (!sched_->ships_results()) results_.commit_own(piece_id_);  // committed where executed
}

void Execution::end_piece() {
  if (in_piece_) close_piece();
}

Grab::Kind Execution::obtain(bool may_wait, Chunk& piece) {
  if (in_piece_) close_piece();
  if (drained_) return Grab::Kind::Done;
  meter_->begin_acquire();
  const double overhead_before = meter_->overhead;
  const double t0 = timed_ ? clock_now() : 0.0;
  const Grab g = sched_->acquire(may_wait);
  double t1 = 0.0;
  if (timed_) {
    t1 = clock_now();
    meter_->overhead += t1 - t0;
  }
  switch (g.kind) {
    case Grab::Kind::Piece:
      if (g.new_chunk) {
        ++mine_.chunks;
        if (observer_ != nullptr) {
          observer_->chunk(first_ + g.chunk.begin, g.chunk.size, t0 - observer_->origin(), t1 - observer_->origin());
          observed_mark_ = g_pieces_ended;
        }
      }
      if (fault_) fault_->piece_begins(g.new_chunk);
      results_.begin_piece(g.chunk_id, g.piece);
      in_piece_ = true;
      piece_id_ = g.chunk_id;
      piece_size_ = g.piece.size;
      t_piece_ = t1;
      piece = Chunk{first_ + g.piece.begin, g.piece.size};
      return Grab::Kind::Piece;
    case Grab::Kind::NotNow:
      return g.kind;
    case Grab::Kind::Serving:
    case Grab::Kind::Done:
      break;
  }
  if (overhead_at_finish_ < 0.0) {  // the first acquire after the rank's last piece
    const double end = timed_ ? t0 : (meter_->first_read() >= 0.0 ? meter_->first_read() : clock_now());
    mine_.finish_time = end - t_start_;
    overhead_at_finish_ = overhead_before;
  }
  if (g.kind == Grab::Kind::Done) {
    drained_ = true;
    if (ctx_->channel->busy == this) ctx_->channel->busy = nullptr;
    mine_.exit_time = (timed_ ? t1 : clock_now()) - t_start_;
    if (mine_.iterations == 0) mine_.finish_time = mine_.exit_time;
  }
  return g.kind;
}

std::optional<Chunk> Execution::next() {
  Chunk c;
  do {
    if (obtain(true, c) == Grab::Kind::Piece) return c;
  } while (!conclude());
  return std::nullopt;
}

bool Execution::conclude() {
  if (!drained_ || !started_ || concluded_ || !ctx_->bounded()) return true;
  if (fault_) fault_->loop_ends();
  settle();
  try {
    concluded_ = exchange_->exchange(ctx_->comm, mine_);
    return true;
  } catch (const CoordinatorLost&) {
    // Silent after the loop's end: the survivors fail over, and the
    // successor's loop has at least the failed coordinator's own chunks.
    drained_ = false;
    overhead_at_finish_ = -1.0;
    sched_->recover();
    return false;
  }
}

Grab::Kind Execution::poll(Chunk& piece) { return obtain(false, piece); }

Grab::Kind Execution::poll(Chunk& piece, bool copies_later, bool& copy_deferred) {
  struct Reset {
    Context& ctx;
    ~Reset() { ctx.copies_later = false; }
  } reset{*ctx_};
  ctx_->copies_later = copies_later;
  ctx_->copy_deferred = false;
  const Grab::Kind k = obtain(false, piece);
  copy_deferred = ctx_->copy_deferred;
  return k;
}

std::vector<RankFigures> Execution::finish() {
  if (!started_) throw Error("lb4mpi: internal error: finish() before start()");
  drain();
  std::vector<RankFigures> all;
  if (concluded_) {
    all = std::move(*concluded_);
    concluded_.reset();
  } else {
    mine_.iterations -= mine_.dropped;
    settle();
    all = exchange_->exchange(ctx_->comm, mine_);
  }
  sched_->end(all);
  return all;
}

void Execution::settle() {
  mine_.calculations = meter_->calculations;
  mine_.overhead = meter_->overhead;
  mine_.serve_time = meter_->serve_time;
  mine_.reissued = sched_->reissued();
  mine_.excluded = fb_->excluded();
  if (!timed_) {
    // Pieces were not timed: the rank's time until its last piece ended,
    // minus what it spent obtaining them (local chunk calculations, a few
    // nanoseconds each, count as work).
    mine_.work_time = std::max(0.0, mine_.finish_time - std::max(0.0, overhead_at_finish_));
  }
}

}  // namespace lb4mpi::rt
