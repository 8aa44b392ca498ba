// Coordinator failover (docs/ROBUST.md, *Coordinator failover*). Every rank
// of a recovering loop runs its role (two-sided coordinator or worker, or
// distributed-rma's) inside a Failover. A role that gives its coordinator
// up (silent for the patience: CoordinatorLost) hands over to it:
//
//  1. The rank marks the coordinator failed and drops the chunk it was
//     executing. Its successor candidate is the lowest rank it does not
//     know to have failed.
//  2. A candidate that is another rank gets a kJoin; the rank waits the
//     patience for a kTakeover (from it, or from any rank of a newer
//     generation). Silence marks the candidate failed too: next candidate.
//     Any P - 1 failures, during a recovery too, end with one survivor.
//  3. The candidate that is this rank takes over: it sends every rank it
//     does not know failed a kTakeover, and collects from each, for at most
//     the patience, the chunks it reported since the loop began (ranges and
//     results, kept on the rank that executed them: Context::kept). Ranks
//     not heard from are counted failed. It commits each of those chunks
//     once (a chunk reported by several ranks, copies, counts once) — what
//     the failed coordinator had committed is gone with it — and schedules
//     what no survivor reported (Remainder) as the coordinator of the new
//     generation, with the two-sided robust protocol (every mode).
//  4. The others become its workers. Messages carry an epoch that the
//     generation changes, so that late ones of the old generation are dropped.
//
// A rank hears of a failover between its pieces of work and in its waits
// (the failover receive is posted in the progress engine; Context::takeover).
#include <algorithm>
#include <cstring>
#include <deque>
#include <string>

#include "coordinator.hpp"
#include "recovery/policy.hpp"
#include "recovery/remainder.hpp"
#include "runtime/mpi.hpp"
#include "worker.hpp"

namespace lb4mpi::rt {
namespace {

class Failover final : public Scheduler, private ProgressEngine::Handler {
 public:
  Failover(Context& ctx, AdaptiveFeedback& fb, std::unique_ptr<Scheduler> role)
      : ctx_(ctx), fb_(fb), role_(std::move(role)), slot_(ctx.engine->add(this)) {}
  ~Failover() override {
    ctx_.engine->abandon(slot_);
    if (ctx_.kept == &kept_) ctx_.kept = nullptr;
    bool pending = false;
    for (Outgoing& o : outbox_) {
      int done = 0;
      if (o.request != MPI_REQUEST_NULL) MPI_Test(&o.request, &done, MPI_STATUS_IGNORE);
      if (o.request != MPI_REQUEST_NULL && done == 0) {
        MPI_Request_free(&o.request);
        pending = true;
      }
    }
    if (pending) new std::deque<Outgoing>(std::move(outbox_));  // to failed ranks: left to MPI, never freed
  }
  Failover(const Failover&) = delete;
  Failover& operator=(const Failover&) = delete;

  void start(Index n) override {
    n_ = n;
    generation_ = 0;
    base_epoch_ = ctx_.epoch;
    failed_.assign(static_cast<std::size_t>(ctx_.size), 0);
    kept_.clear();
    kept_sent_ = 0;
    ctx_.kept = &kept_;
    ctx_.takeover = false;
    queue_.clear();
    reissued_before_ = 0;
    // The first coordinator never gives itself up: it does not listen.
    if (!ctx_.is_coordinator() && ctx_.engine->request(slot_) == MPI_REQUEST_NULL) post();
    role_->start(n);
  }

  Grab acquire(bool may_wait) override {
    for (;;) {
      try {
        return role_->acquire(may_wait);
      } catch (const CoordinatorLost&) {
        fail_over();
      }
    }
  }

  void finished(std::int64_t id, Index size, double work) override {
    try {
      role_->finished(id, size, work);
    } catch (const CoordinatorLost&) {
      fail_over();
    }
  }

  void end(const std::vector<RankFigures>& all) override { role_->end(all); }
  [[nodiscard]] bool orphaned() const override {
    return !coordinating_ && ctx_.config.coordinator != ctx_.rank &&
           (ctx_.takeover || ctx_.known_to_have_failed(ctx_.config.coordinator));
  }
  void recover() override { fail_over(); }
  void tend() override {
    // A failover message arrived while this rank worked on another loop of
    // its set: acted on now, not when this loop is next polled (that loop
    // may keep the rank busy for longer than the others wait for it).
    if (!coordinating_ && ctx_.takeover) {
      fail_over();
      return;
    }
    try {
      role_->tend();
    } catch (const CoordinatorLost&) {
      fail_over();
    }
  }
  void exclude(double seconds) override { role_->exclude(seconds); }
  [[nodiscard]] bool ships_results() const override { return true; }
  [[nodiscard]] Index reissued() const override { return reissued_before_ + role_->reissued(); }

 private:
  struct Outgoing {
    MPI_Request request = MPI_REQUEST_NULL;
    FailoverMessage message;
    std::vector<std::byte> data;
  };
  struct Heard {
    int from;
    FailoverMessage message;
  };

  void post() {
    check_mpi(MPI_Irecv(&incoming_, sizeof incoming_, MPI_BYTE, MPI_ANY_SOURCE, kTagFailover, ctx_.comm,
                        &ctx_.engine->request(slot_)),
              "MPI_Irecv (failover)");
  }

  void on_complete(int /*slot*/, const MPI_Status& status) override {
    const FailoverMessage m = incoming_;
    post();
    if (coordinating_) {
      // A late survivor asks this rank, which already coordinates: told again.
      if (m.kind == FailoverMessage::kJoin) send(status.MPI_SOURCE, FailoverMessage::kTakeover, generation_);
      return;
    }
    if (m.generation <= generation_) return;  // of a generation this rank is past
    queue_.push_back(Heard{status.MPI_SOURCE, m});
    ctx_.takeover = true;
    if (m.kind == FailoverMessage::kTakeover && m.generation > kept_sent_) {
      // What this rank kept goes to the successor at once, from the engine:
      // in a set, this rank may be waiting in another loop's failover, and
      // the successor collects for a bounded time only.
      send_kept(status.MPI_SOURCE, serialize_kept(m.generation));
      kept_sent_ = m.generation;
      kept_.clear();
    }
  }

  /// Sent without waiting (the destination may have failed).
  void send(int to, FailoverMessage::Kind kind, std::int32_t generation) {
    outgoing().message = FailoverMessage{kind, generation};
    Outgoing& o = outbox_.back();
    if (MPI_Isend(&o.message, sizeof o.message, MPI_BYTE, to, kTagFailover, ctx_.comm, &o.request) != MPI_SUCCESS) {
      o.request = MPI_REQUEST_NULL;
    }
  }
  /// Serialized kept chunks to the new coordinator `to`, ditto.
  void send_kept(int to, std::vector<std::byte> data) {
    Outgoing& o = outgoing();
    o.data = std::move(data);
    if (MPI_Isend(o.data.data(), static_cast<int>(o.data.size()), MPI_BYTE, to, kTagKept, ctx_.comm, &o.request) !=
        MPI_SUCCESS) {
      o.request = MPI_REQUEST_NULL;
    }
  }
  /// A new entry of the outbox, whose delivered sends are let go.
  Outgoing& outgoing() {
    while (!outbox_.empty()) {
      int done = 0;
      if (outbox_.front().request != MPI_REQUEST_NULL) MPI_Test(&outbox_.front().request, &done, MPI_STATUS_IGNORE);
      if (outbox_.front().request != MPI_REQUEST_NULL && done == 0) break;
      outbox_.pop_front();
    }
    outbox_.emplace_back();
    return outbox_.back();
  }

  [[nodiscard]] int candidate() const {
    for (int r = 0; r < ctx_.size; ++r) {
      if (failed_[static_cast<std::size_t>(r)] == 0 && !ctx_.known_to_have_failed(r)) return r;
    }
    return ctx_.rank;
  }

  void fail_over() {
    ctx_.takeover = false;
    for (int r = 0; r < ctx_.size; ++r) {  // what the other loops of its set found
      if (ctx_.known_to_have_failed(r)) failed_[static_cast<std::size_t>(r)] = 1;
    }
    mark_failed(ctx_.config.coordinator);
    reissued_before_ += role_->reissued();
    role_.reset();
    ctx_.results->forget();  // the chunk in execution is given up
    for (;;) {
      if (accept_takeover()) return;
      const int s = candidate();
      if (s == ctx_.rank) {
        take_over();
        return;
      }
      send(s, FailoverMessage::kJoin, generation_ + 1);
      // The candidate may itself be in a bounded wait on the failed
      // coordinator (the patience) before it hears of this join.
      const double deadline = clock_now() + 2 * ctx_.patience();
      while (clock_now() < deadline) {
        (void)ctx_.engine->wait_one_until(deadline);
        if (accept_takeover()) return;
      }
      mark_failed(s);
    }
  }

  /// Failed for this loop, and for every loop of its set (Context::known_failed).
  void mark_failed(int r) {
    failed_[static_cast<std::size_t>(r)] = 1;
    if (ctx_.known_failed != nullptr) (*ctx_.known_failed)[static_cast<std::size_t>(r)] = 1;
  }

  /// A kTakeover heard of: this rank becomes a worker of its sender.
  bool accept_takeover() {
    const Heard* best = nullptr;
    for (const Heard& h : queue_) {
      if (h.message.kind != FailoverMessage::kTakeover) continue;
      if (best == nullptr || h.message.generation > best->message.generation) best = &h;
    }
    if (best == nullptr) return false;
    const int coordinator = best->from;
    const std::int32_t generation = best->message.generation;
    begin_generation(generation, coordinator);
    // What this rank reported goes to its new coordinator (unless the
    // engine sent it when the takeover came); a further failover
    // re-executes it (it is no longer kept here).
    if (kept_sent_ < generation) send_kept(coordinator, serialize_kept(generation));
    kept_sent_ = std::max(kept_sent_, generation);
    kept_.clear();
    role_ = std::make_unique<Worker>(ctx_, fb_, std::make_unique<Remainder>(ctx_.size, std::vector<Chunk>{}));
    ctx_.grace = 2 * ctx_.patience();  // the successor collects for at most that long first
    role_->start(n_);
    return true;
  }

  void begin_generation(std::int32_t generation, int coordinator) {
    generation_ = generation;
    queue_.clear();
    ctx_.takeover = false;
    ctx_.config.coordinator = coordinator;
    ctx_.epoch = base_epoch_ ^ (generation << 22);
  }

  void take_over() {
    coordinating_ = true;
    begin_generation(generation_ + 1, ctx_.rank);
    for (int r = 0; r < ctx_.size; ++r) {
      if (r != ctx_.rank && failed_[static_cast<std::size_t>(r)] == 0) {
        send(r, FailoverMessage::kTakeover, generation_);
      }
    }
    KeptChunks all = std::move(kept_);
    kept_.clear();
    collect(all);
    // Each chunk once, in loop order; what no survivor reported is scheduled again.
    std::stable_sort(all.chunks.begin(), all.chunks.end(), [](const KeptChunks::Kept& a, const KeptChunks::Kept& b) {
      return a.chunk.begin < b.chunk.begin;
    });
    std::vector<Chunk> left;
    Index next = 0;
    Index finished = 0;
    for (const KeptChunks::Kept& k : all.chunks) {
      if (k.chunk.begin < next) continue;  // a copy of a chunk counted (or overlapping one: its rest goes again)
      if (k.chunk.begin > next) left.push_back(Chunk{next, k.chunk.begin - next});
      if (k.bytes >= 0) ctx_.results->commit(all.results_of(k), static_cast<std::size_t>(k.bytes));
      next = k.chunk.end();
      finished += k.chunk.size;
    }
    if (next < n_) left.push_back(Chunk{next, n_ - next});
    auto c = std::make_unique<Coordinator>(ctx_, fb_, std::make_unique<Remainder>(ctx_.size, std::move(left)));
    c->skip(failed_);
    role_ = std::move(c);
    role_->start(n_ - finished);
  }

  /// The kept chunks of every survivor, for at most the patience.
  void collect(KeptChunks& all) {
    std::vector<char> heard(failed_);
    heard[static_cast<std::size_t>(ctx_.rank)] = 1;
    int waiting = static_cast<int>(std::count(heard.begin(), heard.end(), 0));
    // A survivor in a bounded wait on the failed coordinator hears of the
    // takeover after at most the patience.
    const double deadline = clock_now() + 2 * ctx_.patience();
    std::vector<std::byte> buf;
    for (int polls = 0; waiting > 0 && clock_now() < deadline; ++polls) {
      int flag = 0;
      MPI_Status st;
      check_mpi(MPI_Iprobe(MPI_ANY_SOURCE, kTagKept, ctx_.comm, &flag, &st), "MPI_Iprobe");
      if (flag == 0) {
        ctx_.engine->poll();  // late kJoins are answered meanwhile
        backoff(polls);
        continue;
      }
      int bytes = 0;
      MPI_Get_count(&st, MPI_BYTE, &bytes);
      buf.resize(static_cast<std::size_t>(bytes));
      check_mpi(MPI_Recv(buf.data(), bytes, MPI_BYTE, st.MPI_SOURCE, kTagKept, ctx_.comm, MPI_STATUS_IGNORE),
                "MPI_Recv (kept chunks)");
      const auto from = static_cast<std::size_t>(st.MPI_SOURCE);
      if (heard[from] != 0 || !deserialize(buf, all)) continue;  // of another generation, or twice
      heard[from] = 1;
      --waiting;
    }
    for (std::size_t r = 0; r < heard.size(); ++r) {
      if (heard[r] == 0) mark_failed(static_cast<int>(r));
    }
  }

  // Kept chunks on the wire: generation, count, then per chunk begin, size,
  // result bytes (-1: none) and the bytes.
  std::vector<std::byte> serialize_kept(std::int32_t generation) const {
    std::vector<std::byte> out;
    const auto put = [&out](std::int64_t v) {
      const auto at = out.size();
      out.resize(at + sizeof v);
      std::memcpy(out.data() + at, &v, sizeof v);
    };
    put(generation);
    put(static_cast<std::int64_t>(kept_.chunks.size()));
    for (const KeptChunks::Kept& k : kept_.chunks) {
      put(k.chunk.begin);
      put(k.chunk.size);
      put(k.bytes);
      if (k.bytes > 0) out.insert(out.end(), kept_.results_of(k), kept_.results_of(k) + k.bytes);
    }
    return out;
  }

  bool deserialize(const std::vector<std::byte>& in, KeptChunks& all) const {
    std::size_t at = 0;
    const auto get = [&](std::int64_t& v) {
      if (at + sizeof v > in.size()) return false;
      std::memcpy(&v, in.data() + at, sizeof v);
      at += sizeof v;
      return true;
    };
    std::int64_t generation = -1;
    std::int64_t count = 0;
    if (!get(generation) || generation != generation_ || !get(count)) return false;
    for (std::int64_t i = 0; i < count; ++i) {
      Chunk chunk;
      std::int64_t bytes = -1;
      if (!get(chunk.begin) || !get(chunk.size) || !get(bytes)) return false;
      const std::size_t n = bytes > 0 ? static_cast<std::size_t>(bytes) : 0;
      if (at + n > in.size()) return false;
      all.add(chunk, bytes >= 0, in.data() + at, n);
      at += n;
    }
    return true;
  }

  Context& ctx_;
  AdaptiveFeedback& fb_;
  std::unique_ptr<Scheduler> role_;
  int slot_;
  Index n_ = 0;
  std::int32_t generation_ = 0;
  std::int32_t base_epoch_ = 0;
  bool coordinating_ = false;  // this rank took over
  std::vector<char> failed_;   // per rank: known to have failed
  KeptChunks kept_;
  std::deque<Heard> queue_;    // failover messages not yet acted on
  FailoverMessage incoming_;
  std::deque<Outgoing> outbox_;
  Index reissued_before_ = 0;  // by the roles before the failover
  std::int32_t kept_sent_ = 0;  // the newest generation this rank sent what it kept to
};

}  // namespace

std::unique_ptr<Scheduler> make_failover(Context& ctx, AdaptiveFeedback& feedback, std::unique_ptr<Scheduler> role) {
  return std::make_unique<Failover>(ctx, feedback, std::move(role));
}

}  // namespace lb4mpi::rt
