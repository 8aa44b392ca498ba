#include "runtime/loop_group.hpp"

#include <string>

#include "runtime/clock.hpp"

namespace lb4mpi::rt {

LoopGroup::LoopGroup(MPI_Comm comm, const std::vector<Member>& loops) {
  if (loops.empty()) throw Error("lb4mpi: a loop set needs at least one loop");
  execs_.reserve(loops.size());
  for (std::size_t l = 0; l < loops.size(); ++l) {
    execs_.push_back(
        std::make_unique<Execution>(comm, static_cast<int>(l), engine_, loops[l].config, loops[l].observer));
    idle_probing_.push_back(loops[l].idle_probing);
    bounded_ = bounded_ || execs_.back()->bounded();
  }
  // A rank one loop finds failed is failed for every loop of the set.
  known_failed_.assign(static_cast<std::size_t>(execs_.front()->size()), 0);
  for (auto& e : execs_) e->share_failures(&known_failed_);
}

void LoopGroup::end_piece() {
  if (active_ < 0) return;
  execs_[static_cast<std::size_t>(active_)]->end_piece();
  // AWF-D/E of the other loops must not count this time as theirs.
  exclude_from_others(active_, clock_now() - piece_start_);
  active_ = -1;
}

void LoopGroup::attach(const void* data, std::size_t bytes) {
  if (active_ < 0) throw Error("lb4mpi: a result was attached outside a chunk (attach it before the next next())");
  execs_[static_cast<std::size_t>(active_)]->attach(data, bytes);
}

void LoopGroup::exclude_from_others(int l, double seconds) {
  for (std::size_t m = 0; m < execs_.size(); ++m) {
    if (static_cast<int>(m) != l) execs_[m]->exclude(seconds);
  }
}

Grab::Kind LoopGroup::poll(int l, Chunk& piece, bool copies_later, bool* deferred) {
  const double t0 = clock_now();
  bool waiting_copy = false;
  const Grab::Kind k = execs_[static_cast<std::size_t>(l)]->poll(piece, copies_later, waiting_copy);
  if (deferred != nullptr && waiting_copy) *deferred = true;
  exclude_from_others(l, clock_now() - t0);
  return k;
}

void LoopGroup::wait_for_anything() {
  if (bounded_) {
    // Bounded loops (recovery): a one-sided rank waits for words in a
    // window, which no message announces (the failover receive stays posted
    // meanwhile), and silence is measured on the clock: a nap at most.
    if (engine_.wait_one_until(clock_now() + kNap) == ProgressEngine::Waited::Idle) engine_.poll();
    return;
  }
  if (!engine_.wait_one()) engine_.poll();  // one-sided loops post nothing: poll again
}

void LoopGroup::began(int l) {
  if (bounded_ && clock_now() - tended_ > kNap) {
    // The other loops hear from this rank now and then: a coordinator busy
    // in loop l is not silent in them (their waits are bounded).
    for (int m = 0; m < size(); ++m) {
      if (m != l) execs_[static_cast<std::size_t>(m)]->tend();
    }
    tended_ = clock_now();
  }
  active_ = l;
  piece_start_ = clock_now();
  found_work_ = true;
}

bool LoopGroup::drained(int l) {
  Execution& e = *execs_[static_cast<std::size_t>(l)];
  // Its coordinator failed after it ended here: it goes on under the successor.
  if (e.drained() && bounded_) (void)e.reopen();
  return e.drained();
}

bool LoopGroup::concluded() {
  if (!bounded_) return true;
  // Loop after loop, as the coordinator gathers them. A loop reopened by a
  // failover during its end marks the coordinator failed for the set: the
  // next ones reopen at drained() without waiting for it again.
  bool all = true;
  for (int l = 0; l < size(); ++l) {
    if (!drained(l) || !execs_[static_cast<std::size_t>(l)]->conclude()) all = false;
  }
  return all;
}

std::optional<Chunk> LoopGroup::next(int l) {
  if (l < 0 || l >= size()) {
    throw Error("lb4mpi: loop " + std::to_string(l) + " does not exist (valid: 0.." + std::to_string(size() - 1) + ")");
  }
  end_piece();
  (void)drained(l);
  Chunk piece;
  for (;;) {
    const Grab::Kind k = poll(l, piece);
    if (k == Grab::Kind::Piece) break;
    // Done, or no piece will come for this rank (a coordinator that only
    // answers the others' last requests now: waiting here could deadlock
    // with a rank that waits in the same way in another loop).
    if (k != Grab::Kind::NotNow || !idle_probing_[static_cast<std::size_t>(l)]) return std::nullopt;
    wait_for_anything();  // idle probing: wait for loop l, serving every loop meanwhile
  }
  began(l);
  return piece;
}

bool LoopGroup::next_any(int& loop, Chunk& piece) {
  end_piece();
  // Recovery: a pass first looks for original work only; a copy of a chunk
  // out elsewhere (a loop whose assignment is over) is begun by the next
  // pass, when no loop had original work to give.
  bool copies_now = !bounded_;
  for (;;) {
    const std::uint64_t seen = engine_.completions();
    bool all_done = true;
    bool deferred = false;
    for (int l = 0; l < size(); ++l) {
      if (drained(l)) continue;
      const bool later = !copies_now && !idle_probing_[static_cast<std::size_t>(l)];
      Grab::Kind k = poll(l, piece, later, &deferred);
      // Idle probing: stay with loop l until it has a piece or is done.
      while (k == Grab::Kind::NotNow && idle_probing_[static_cast<std::size_t>(l)]) {
        wait_for_anything();
        k = poll(l, piece);
      }
      if (k == Grab::Kind::Piece) {
        loop = l;
        began(l);
        return true;
      }
      if (k == Grab::Kind::NotNow || k == Grab::Kind::Serving) all_done = false;
    }
    if (all_done) {
      if (concluded()) return false;
      continue;  // the coordinator failed during the end: reopened
    }
    if (deferred) {  // no original work anywhere: the copies, at once
      copies_now = true;
      continue;
    }
    copies_now = !bounded_;
    // Nothing anywhere right now: wait for a message, unless one arrived
    // during the pass (it may have changed a loop polled before it).
    if (engine_.completions() == seen) wait_for_anything();
  }
}

bool LoopGroup::terminated() {
  end_piece();
  bool all = true;
  for (int l = 0; l < size(); ++l) all = drained(l) && all;
  if (all) return concluded();  // false: the coordinator failed during the end, reopened
  // A whole round found nothing and no message arrived since the last look
  // (a message handled while polling one loop may have ended another, whose
  // next poll then says so): wait for a message.
  if (!found_work_ && engine_.completions() == seen_completions_) wait_for_anything();
  found_work_ = false;
  seen_completions_ = engine_.completions();
  return false;
}

}  // namespace lb4mpi::rt
