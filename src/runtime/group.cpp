#include "runtime/group.hpp"

#include <string>

#include "runtime/clock.hpp"
#include "runtime/mpi_util.hpp"

namespace lb4mpi {

using detail::check_mpi;

LoopGroup::LoopGroup(MPI_Comm comm, const std::vector<Member>& loops) {
  if (loops.empty()) throw Error("lb4mpi: a loop set needs at least one loop");
  execs_.reserve(loops.size());
  for (std::size_t l = 0; l < loops.size(); ++l) {
    execs_.push_back(make_executor(comm, loops[l].first, loops[l].last, loops[l].options, static_cast<int>(l), this));
  }
}

void LoopGroup::end_chunk() {
  if (active_ < 0) return;
  execs_[static_cast<std::size_t>(active_)]->end_chunk();
  // AWF-D/E of the other loops must not count this time as theirs.
  exclude_from_others(active_, detail::now() - piece_start_);
  active_ = -1;
}

void LoopGroup::exclude_from_others(int l, double seconds) {
  for (std::size_t m = 0; m < execs_.size(); ++m) {
    if (static_cast<int>(m) != l) execs_[m]->exclude_time(seconds);
  }
}

Executor::Poll LoopGroup::poll(int l, Chunk& piece) {
  const double t0 = detail::now();
  const Executor::Poll p = execs_[static_cast<std::size_t>(l)]->try_next(piece);
  exclude_from_others(l, detail::now() - t0);
  return p;
}

std::optional<Chunk> LoopGroup::next(int l) {
  if (l < 0 || l >= size()) {
    throw Error("lb4mpi: loop " + std::to_string(l) + " does not exist (valid: 0.." + std::to_string(size() - 1) + ")");
  }
  end_chunk();
  Executor& e = *execs_[static_cast<std::size_t>(l)];
  Chunk piece;
  for (;;) {
    const Executor::Poll poll = this->poll(l, piece);
    if (poll == Executor::Poll::Piece) break;
    // Done, or no piece will come for this rank (a coordinator that only
    // answers the others' last requests now: waiting here could deadlock
    // with a rank that waits in the same way in another loop).
    if (poll != Executor::Poll::NotNow || !e.options().idle_probing) return std::nullopt;
    // Idle probing: wait for loop l, serving every loop of the group meanwhile.
    if (!wait_any()) progress_all();
  }
  active_ = l;
  piece_start_ = detail::now();
  found_work_ = true;
  return piece;
}

bool LoopGroup::next_any(int& loop, Chunk& piece) {
  end_chunk();
  for (;;) {
    bool all_done = true;
    for (int l = 0; l < size(); ++l) {
      Executor& e = *execs_[static_cast<std::size_t>(l)];
      if (e.drained()) continue;
      Executor::Poll poll = this->poll(l, piece);
      // Idle probing: stay with loop l until it has a piece or is done.
      while (poll == Executor::Poll::NotNow && e.options().idle_probing) {
        if (!wait_any()) progress_all();
        poll = this->poll(l, piece);
      }
      if (poll == Executor::Poll::Piece) {
        loop = l;
        active_ = l;
        piece_start_ = detail::now();
        found_work_ = true;
        return true;
      }
      if (poll == Executor::Poll::NotNow || poll == Executor::Poll::Serving) all_done = false;
    }
    if (all_done) return false;
    if (!wait_any()) progress_all();  // nothing anywhere right now: wait for a message
  }
}

bool LoopGroup::terminated() {
  end_chunk();
  bool all = true;
  for (const auto& e : execs_) all = all && e->drained();
  if (all) return true;
  if (!found_work_) wait_any();  // a whole round found nothing: wait for a message
  found_work_ = false;
  return false;
}

int LoopGroup::progress_all() {
  int n = 0;
  for (const auto& e : execs_) n += e->progress_local();
  return n;
}

bool LoopGroup::wait_any() {
  std::vector<MPI_Request*> slots;
  std::vector<std::size_t> owner;
  for (std::size_t l = 0; l < execs_.size(); ++l) {
    if (MPI_Request* r = execs_[l]->waitable()) {
      slots.push_back(r);
      owner.push_back(l);
    }
  }
  if (slots.empty()) return false;  // nothing to wait for (e.g. one-sided loops): poll again
  std::vector<MPI_Request> reqs;
  reqs.reserve(slots.size());
  for (MPI_Request* r : slots) reqs.push_back(*r);
  MPI_Status st;
  const int index = detail::wait_any(static_cast<int>(reqs.size()), reqs.data(), &st);
  if (index == MPI_UNDEFINED) return false;
  *slots[static_cast<std::size_t>(index)] = MPI_REQUEST_NULL;  // completed
  execs_[owner[static_cast<std::size_t>(index)]]->on_waited(st);
  return true;
}

std::vector<Report> LoopGroup::finish() {
  end_chunk();
  std::vector<Report> out;
  out.reserve(execs_.size());
  for (const auto& e : execs_) out.push_back(e->finish());
  return out;
}

void LoopGroup::restart(const std::vector<std::pair<Index, Index>>& ranges) {
  if (ranges.size() != execs_.size()) {
    throw Error("lb4mpi: restart needs " + std::to_string(execs_.size()) + " ranges, got " +
                std::to_string(ranges.size()));
  }
  for (std::size_t l = 0; l < execs_.size(); ++l) execs_[l]->restart(ranges[l].first, ranges[l].second);
  active_ = -1;
  found_work_ = true;
}

}  // namespace lb4mpi
