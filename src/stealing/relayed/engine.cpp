// Balancer::Steal: coordinator-relayed work stealing (`000` §4.1-4.2).
//
// Every rank executes the iterations it owns, front to back, in pieces, and
// looks at its messages between pieces. A rank whose own iterations are
// gone becomes a thief: it asks the coordinator (STL); the coordinator picks
// a victim (victims.hpp) and relays the request; the victim sends the thief
// a share of its unstarted iterations from the back (the steal amount) with
// their items (WRK + items), or, when it has none left, rejects (REJ) and
// the coordinator tries another victim. The thief tells the coordinator it
// got work (GOT: the unstarted part of a stolen chunk may be stolen again,
// with the items from the thief's buffer), executes the chunk and sends the
// results of what it executed to the owner (RES + results), then asks
// again. When every rank waits and no request is out, the coordinator ends
// the loop (TRM); a rank leaves when the results of every iteration stolen
// from it have come back. The coordinator executes its own iterations and
// steals like any rank (its requests and relays to itself need no message).
#include <algorithm>
#include <optional>
#include <vector>

#include "../builtin.hpp"
#include "relay.hpp"
#include "runtime/mpi.hpp"
#include "stealing/owned_work.hpp"
#include "stealing/transfer.hpp"

namespace lb4mpi::st {
namespace {

enum Kind : std::int32_t {
  kSteal = 1,    ///< thief -> coordinator
  kRelay = 2,    ///< coordinator -> victim: a = thief, b = attempts so far
  kReject = 3,   ///< victim -> coordinator: a = thief, b = attempts
  kWork = 4,     ///< victim -> thief, items follow: a = first global index, b = iterations, c = owner, d = attempts
  kResults = 5,  ///< thief -> owner, results follow: a = first global index, b = iterations
  kEnd = 6,      ///< coordinator -> rank: d = attempts of its last request
  kGot = 7,      ///< thief -> coordinator: its request succeeded
};

class RelayedStealing final : public Engine, rt::ProgressEngine::Handler {
 public:
  explicit RelayedStealing(const Config& config) : config_(config) {}

  [[nodiscard]] bool needs_nodes(const Config& config) const override {
    return config.victim == Victim::Locality;
  }

  void run(Run& run) override {
    run_ = &run;
    comm_ = run.comm();
    work_.emplace(run);
    if (run.rank() == config_.coordinator) {
      std::vector<char> has_work(static_cast<std::size_t>(run.size()));
      for (int r = 0; r < run.size(); ++r) has_work[static_cast<std::size_t>(r)] = run.owned()[static_cast<std::size_t>(r)].size() > 0;
      relay_.emplace(VictimSelector(config_.victim, run.size(), run.nodes, config_.seed), std::move(has_work));
    }
    rt::ProgressEngine& progress = run.progress();
    slot_ = progress.add(this);
    post_inbox();
    try {
      // Own iterations, front to back.
      while (const std::optional<Chunk> c = work_->next_chunk(run.budget())) {
        run_in_pieces(run, Chunk{run.mine().first + c->begin, c->size}, Place{nullptr, c->begin},
                      Place{nullptr, c->begin}, [this] { poll(); });
      }
      // Then steal until the end.
      for (;;) {
        const double asked = Run::now();
        ask();
        while (!stolen_ && !ended_) progress.wait_one();
        run.steal_figures().steal_wait += Run::now() - asked;
        if (!stolen_) break;
        execute_stolen();
      }
      while (results_owed_ > 0) progress.wait_one();
      outbox_.drain();
      retire();
    } catch (...) {
      progress.abandon(slot_);
      throw;
    }
    progress.abandon(slot_);  // the inbox's receive: nothing more comes in this execution
    run.exited();
  }

  void on_complete(int /*slot*/, const MPI_Status& status) override {
    const Message m = inbox_;
    post_inbox();
    if (m.epoch != run_->epoch()) return;  // of an execution abandoned earlier on this channel
    const double t0 = Run::now();
    handle(m, status.MPI_SOURCE);
    if (m.kind != kWork) {
      // Serving others: relaying, answering a relayed request, receiving results.
      run_->loop_figures().serve_time += Run::now() - t0;
    }
  }

 private:
  // A stolen chunk on the thief: [0, front) begun, [front, back) not yet,
  // [back, size) stolen from it in turn (offsets from `begin`, global).
  struct Stolen {
    Index begin = 0;
    Index size = 0;
    int owner = -1;
    void* items = nullptr;
    void* results = nullptr;
    Index front = 0;
    Index back = 0;
  };

  void post_inbox() {
    rt::check_mpi(MPI_Irecv(&inbox_, sizeof inbox_, MPI_BYTE, MPI_ANY_SOURCE, kTagControl, comm_,
                            &run_->progress().request(slot_)),
                  "MPI_Irecv");
  }

  // Between two pieces: whatever arrived, and sends that completed.
  void poll() {
    (void)run_->progress().drain();
    if (outbox_.progress()) retire();
  }

  // Item buffers of stolen chunks, freed once no send reads them any more.
  void retire() {
    if (!outbox_.empty()) return;
    for (void* b : retired_) run_->in()->free_buffer(b);
    retired_.clear();
  }

  [[nodiscard]] bool coordinator() const { return relay_.has_value(); }

  Message message(Kind kind) const {
    Message m;
    m.epoch = run_->epoch();
    m.kind = kind;
    return m;
  }

  void handle(const Message& m, int source) {
    switch (m.kind) {
      case kSteal:
        relay_->request(source, orders_);
        carry_out();
        break;
      case kReject:
        relay_->reject(source, static_cast<int>(m.a), orders_);
        carry_out();
        break;
      case kRelay:
        serve(static_cast<int>(m.a), m.b);
        break;
      case kWork:
        receive_stolen(m, source);
        break;
      case kResults:
        receive_results(m, source);
        break;
      case kEnd:
        run_->steal_figures().steal_attempts += m.d;
        ended_ = true;
        break;
      case kGot:
        relay_->got(source);
        break;
      default:
        throw Error("lb4mpi: internal error: unknown stealing message kind " + std::to_string(m.kind));
    }
  }

  // A thief: ask the coordinator (itself, or by message).
  void ask() {
    if (coordinator()) {
      relay_->request(run_->rank(), orders_);
      carry_out();
    } else {
      outbox_.send(comm_, config_.coordinator, message(kSteal));
    }
  }

  // The coordinator: relay requests to victims, or end the loop.
  void carry_out() {
    std::vector<Relay::Order> orders;
    orders.swap(orders_);
    for (const Relay::Order& o : orders) {
      if (o.kind == Relay::Order::Kind::End) {
        for (int r = 0; r < run_->size(); ++r) {
          if (r == run_->rank()) continue;
          Message m = message(kEnd);
          m.d = relay_->attempts(r);
          outbox_.send(comm_, r, m);
        }
        run_->steal_figures().steal_attempts += relay_->attempts(run_->rank());
        ended_ = true;
      } else if (o.victim == run_->rank()) {
        serve(o.thief, o.attempts);
      } else {
        Message m = message(kRelay);
        m.a = o.thief;
        m.b = o.attempts;
        outbox_.send(comm_, o.victim, m);
      }
    }
  }

  // A victim: a share of its unstarted iterations — its own, or those of
  // the chunk it stole — for `thief`, or a reject.
  void serve(int thief, Index attempts) {
    RankSteals& fig = run_->steal_figures();
    const bool own = work_->unstarted() > 0;
    const Index left = own ? work_->unstarted() : (stolen_ ? stolen_->back - stolen_->front : 0);
    const Index k = left > 0 ? config_.amount.take(left, run_->size(), thief, config_.params) : 0;
    if (k == 0) {
      ++fig.rejects;
      if (coordinator()) {
        relay_->reject(run_->rank(), thief, orders_);
        carry_out();
      } else {
        Message m = message(kReject);
        m.a = thief;
        m.b = attempts;
        outbox_.send(comm_, config_.coordinator, m);
      }
      return;
    }
    const double t0 = Run::now();
    Message m = message(kWork);
    m.d = attempts;
    Place from;
    if (own) {
      const Chunk c = work_->give(k);
      m.a = run_->mine().first + c.begin;
      m.c = run_->rank();
      from = Place{nullptr, c.begin};
      if (run_->out() != nullptr) results_owed_ += k;
    } else {
      stolen_->back -= k;
      m.a = stolen_->begin + stolen_->back;
      m.c = stolen_->owner;
      from = Place{stolen_->items, stolen_->back};
    }
    m.b = k;
    outbox_.send(comm_, thief, m, run_->in(), from, k, kTagItems);
    fig.iterations_given += k;
    fig.send_time += Run::now() - t0;
  }

  // A thief: a chunk and its items arrive.
  void receive_stolen(const Message& m, int source) {
    const double t0 = Run::now();
    Stolen s;
    s.begin = m.a;
    s.size = s.back = m.b;
    s.owner = static_cast<int>(m.c);
    if (Mover* in = run_->in()) {
      s.items = in->make_buffer(s.size);
      receive_items(comm_, source, kTagItems, *in, Place{s.items, 0}, s.size, m);
    }
    if (Mover* out = run_->out()) s.results = out->make_buffer(s.size);
    RankSteals& fig = run_->steal_figures();
    fig.receive_time += Run::now() - t0;
    fig.steal_attempts += m.d;
    ++fig.steals;
    fig.iterations_stolen += s.size;
    stolen_ = s;
    // Its unstarted part may now be stolen from this rank.
    if (coordinator()) {
      relay_->got(run_->rank());
    } else {
      outbox_.send(comm_, config_.coordinator, message(kGot));
    }
  }

  // Runs the stolen chunk front to back (thieves may take its back
  // meanwhile), then sends the results of what ran here to the owner.
  void execute_stolen() {
    bool first = true;
    while (stolen_->front < stolen_->back) {
      const Index at = stolen_->front;
      const Index k = std::min(run_->budget(), stolen_->back - at);
      stolen_->front += k;  // begun: no longer to be stolen
      run_->execute(Chunk{stolen_->begin + at, k}, Place{stolen_->items, at}, Place{stolen_->results, at}, first);
      first = false;
      poll();
    }
    const Stolen s = *stolen_;
    stolen_.reset();
    if (s.items != nullptr) retired_.push_back(s.items);
    if (Mover* out = run_->out()) {
      if (s.front > 0) {
        const double t0 = Run::now();
        Message m = message(kResults);
        m.a = s.begin;
        m.b = s.front;
        outbox_.send(comm_, s.owner, m, out, Place{s.results, 0}, s.front, kTagResults, /*release=*/true);
        run_->steal_figures().result_time += Run::now() - t0;
      } else {
        out->free_buffer(s.results);
      }
    }
    retire();
  }

  // An owner: the results of a chunk stolen from it come back.
  void receive_results(const Message& m, int source) {
    const double t0 = Run::now();
    receive_items(comm_, source, kTagResults, *run_->out(), Place{nullptr, m.a - run_->mine().first}, m.b, m);
    results_owed_ -= m.b;
    run_->steal_figures().result_time += Run::now() - t0;
  }

  const Config& config_;
  Run* run_ = nullptr;
  MPI_Comm comm_ = MPI_COMM_NULL;
  std::optional<OwnedWork> work_;
  std::optional<Relay> relay_;  // on the coordinator
  std::vector<Relay::Order> orders_;
  Outbox outbox_;
  int slot_ = -1;
  Message inbox_;
  std::optional<Stolen> stolen_;  // received, not yet executed to its end
  std::vector<void*> retired_;
  bool ended_ = false;
  Index results_owed_ = 0;  // iterations of this rank whose results are elsewhere
};

}  // namespace

std::unique_ptr<Engine> make_relayed_stealing(const Config& config) {
  return std::make_unique<RelayedStealing>(config);
}

}  // namespace lb4mpi::st
