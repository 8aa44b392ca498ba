// Tasks of the decentralized balancers and their execution: see a2ws/tasks.hpp.
#include "a2ws/tasks.hpp"

#include <algorithm>
#include <numeric>

#include "a2ws/packed_deque.hpp"
#include "runtime/mpi.hpp"

namespace lb4mpi::a2ws {

using rt::check_mpi;

// ---------------------------------------------------------------- TaskSpace

TaskSpace::TaskSpace(std::vector<st::Range> owned, Index task_size)
    : owned_(std::move(owned)), size_(std::max<Index>(1, task_size)) {
  before_.resize(owned_.size() + 1, 0);
  for (std::size_t r = 0; r < owned_.size(); ++r) {
    before_[r + 1] = before_[r] + count_of(static_cast<int>(r));
    if (owned_[r].size() > 0) by_first_.push_back(static_cast<int>(r));
  }
  std::sort(by_first_.begin(), by_first_.end(), [this](int x, int y) {
    return owned_[static_cast<std::size_t>(x)].first < owned_[static_cast<std::size_t>(y)].first;
  });
}

TaskSpace TaskSpace::of(const st::Run& run) {
  Index iterations = 0;
  for (const st::Range& g : run.owned()) iterations += g.size();
  return TaskSpace(run.owned(), choose_task_size(run.config().break_after, iterations, run.size()));
}

Index TaskSpace::deque_capacity(int r) const { return std::min(kMaxCapacity, count_of(r) + total_tasks() + 64); }

Index TaskSpace::iterations(std::span<const std::int64_t> tasks) const {
  Index n = 0;
  for (std::int64_t t : tasks) n += chunk(t).size;
  return n;
}

Index TaskSpace::choose_task_size(int break_after, Index iterations, int ranks) {
  if (break_after >= 1) return break_after;
  const Index per = 1024 * static_cast<Index>(std::max(1, ranks));
  return std::max<Index>(1, iterations / per);
}

Index TaskSpace::count_of(int r) const {
  const Index n = owned_[static_cast<std::size_t>(r)].size();
  return (n + size_ - 1) / size_;
}

Index TaskSpace::total_tasks() const { return before_.back(); }

std::vector<std::int64_t> TaskSpace::tasks_of(int r) const {
  const st::Range& g = owned_[static_cast<std::size_t>(r)];
  std::vector<std::int64_t> out;
  out.reserve(static_cast<std::size_t>(count_of(r)));
  for (Index i = g.first; i < g.last; i += size_) out.push_back(i);
  return out;
}

int TaskSpace::owner(std::int64_t id) const {
  // The last range (by start) that starts at or before id.
  const auto it = std::upper_bound(by_first_.begin(), by_first_.end(), id, [this](std::int64_t v, int r) {
    return v < owned_[static_cast<std::size_t>(r)].first;
  });
  if (it == by_first_.begin()) throw Error("lb4mpi: internal error: task " + std::to_string(id) + " has no owner");
  const int r = *std::prev(it);
  if (id >= owned_[static_cast<std::size_t>(r)].last)
    throw Error("lb4mpi: internal error: task " + std::to_string(id) + " has no owner");
  return r;
}

Chunk TaskSpace::chunk(std::int64_t id) const {
  const st::Range& g = owned_[static_cast<std::size_t>(owner(id))];
  return Chunk{id, std::min(size_, g.last - id)};
}

std::int64_t TaskSpace::nth(Index k) const {
  const auto r = static_cast<std::size_t>(std::upper_bound(before_.begin(), before_.end(), k) - before_.begin()) - 1;
  return owned_[r].first + (k - before_[r]) * size_;
}

// --------------------------------------------------------------- TaskRunner

TaskRunner::TaskRunner(st::Run& run, const TaskSpace& space)
    : run_(run), space_(space), comm_(run.comm()), open_(run.mine().size()) {
  slot_ = run_.progress().add(this);
  post_inbox();
}

TaskRunner::~TaskRunner() {
  run_.progress().abandon(slot_);
}

void TaskRunner::post_inbox() {
  check_mpi(MPI_Irecv(&inbox_, sizeof inbox_, MPI_BYTE, MPI_ANY_SOURCE, st::kTagControl, comm_,
                      &run_.progress().request(slot_)),
            "MPI_Irecv");
}

st::Message TaskRunner::message(std::int32_t kind) const {
  st::Message m;
  m.epoch = run_.epoch();
  m.kind = kind;
  return m;
}

void TaskRunner::on_complete(int /*slot*/, const MPI_Status& status) {
  const st::Message m = inbox_;
  post_inbox();
  if (m.epoch != run_.epoch()) return;  // of an execution abandoned earlier on this channel
  switch (m.kind) {
    case kNeedItems:
      serve_items(m, status.MPI_SOURCE);
      break;
    case kItems:
      items_header_ = m;
      items_ready_ = true;
      break;
    case kResults:
      receive_results(m, status.MPI_SOURCE);
      break;
    default:
      if (m.kind < kEngineKinds || !on_message)
        throw Error("lb4mpi: internal error: unknown message kind " + std::to_string(m.kind));
      on_message(m, status.MPI_SOURCE);
  }
}

// An owner: the items of a task of its own, to the rank that runs it.
void TaskRunner::serve_items(const st::Message& m, int source) {
  const double t0 = st::Run::now();
  st::Message h = message(kItems);
  h.a = m.a;
  h.b = m.b;
  h.c = run_.rank();
  outbox_.send(comm_, source, h, run_.in(), Place{nullptr, m.a - run_.mine().first}, m.b, st::kTagItems);
  const double dt = st::Run::now() - t0;
  run_.steal_figures().send_time += dt;
  run_.loop_figures().serve_time += dt;
}

// An owner: the results of a task of its own that another rank ran.
void TaskRunner::receive_results(const st::Message& m, int source) {
  const double t0 = st::Run::now();
  st::receive_items(comm_, source, st::kTagResults, *run_.out(), Place{nullptr, m.a - run_.mine().first}, m.b, m);
  open_ -= m.b;
  const double dt = st::Run::now() - t0;
  run_.steal_figures().result_time += dt;
  run_.loop_figures().serve_time += dt;
}

void TaskRunner::took_in(std::span<const std::int64_t> tasks) {
  const Index k = space_.iterations(tasks);
  taken_in_ += k;
  run_.steal_figures().iterations_stolen += k;
}

std::mt19937_64 TaskRunner::random() const {
  return std::mt19937_64(run_.config().seed * 0x9E3779B97F4A7C15ULL + static_cast<std::uint64_t>(run_.rank()));
}

void TaskRunner::poll() {
  // Everything that arrived: a leader's or owner's requests queue up while
  // it computes.
  (void)run_.progress().drain();
  outbox_.progress();
  if (between) between();
}

void TaskRunner::wait_one() {
  if (!run_.progress().wait_one()) rt::backoff(rt::kSpinPolls);
}

double TaskRunner::execute(std::int64_t id) {
  const Chunk c = space_.chunk(id);
  const int owner = space_.owner(id);
  const bool mine = owner == run_.rank();
  Mover* in = run_.in();
  Mover* out = run_.out();
  Place pin{nullptr, space_.local(id)};
  Place pout = pin;
  if (!mine) {
    if (in != nullptr) {
      // The items from their owner (it answers between its own pieces).
      const double t0 = st::Run::now();
      st::Message ask = message(kNeedItems);
      ask.a = c.begin;
      ask.b = c.size;
      items_ready_ = false;
      send(owner, ask);
      while (!items_ready_) wait_one();
      pin = Place{in->make_buffer(c.size), 0};
      st::receive_items(comm_, owner, st::kTagItems, *in, pin, c.size, items_header_);
      run_.steal_figures().receive_time += st::Run::now() - t0;
    }
    if (out != nullptr) pout = Place{out->make_buffer(c.size), 0};
  }
  const double work0 = run_.loop_figures().work_time;
  for (Index done = 0; done < c.size;) {
    const Index k = std::min(run_.budget(), c.size - done);
    run_.execute(Chunk{c.begin + done, k}, Place{pin.buffer, pin.at + done}, Place{pout.buffer, pout.at + done},
                 done == 0);
    done += k;
    poll();
  }
  ++tasks_run_;
  if (mine) {
    open_ -= c.size;
  } else {
    if (in != nullptr) in->free_buffer(pin.buffer);
    if (out != nullptr) {
      const double t0 = st::Run::now();
      st::Message h = message(kResults);
      h.a = c.begin;
      h.b = c.size;
      outbox_.send(comm_, owner, h, out, pout, c.size, st::kTagResults, /*release=*/true);
      run_.steal_figures().result_time += st::Run::now() - t0;
    }
  }
  return run_.loop_figures().work_time - work0;
}

void TaskRunner::finish() {
  MPI_Request all = MPI_REQUEST_NULL;
  check_mpi(MPI_Ibarrier(comm_, &all), "MPI_Ibarrier");
  for (int polls = 0;; ++polls) {
    int done = 0;
    check_mpi(MPI_Test(&all, &done, MPI_STATUS_IGNORE), "MPI_Ibarrier");
    if (done != 0) break;
    poll();
    rt::backoff(polls);
  }
  // Results of this rank's tasks that ran elsewhere may still be on their way.
  if (run_.out() != nullptr) {
    while (open_ > 0) wait_one();
  }
  outbox_.drain();
  // What this rank held and did not run, thieves ran.
  run_.steal_figures().iterations_given = run_.mine().size() + taken_in_ - run_.loop_figures().iterations;
  run_.exited();
}

}  // namespace lb4mpi::a2ws
