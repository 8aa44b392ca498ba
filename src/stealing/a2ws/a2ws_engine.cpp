// Balancer::A2WS: adaptive asynchronous work stealing (`002` §2, Algorithm 1).
//
// Each rank starts with the tasks of the iterations it owns in its deque
// (a2ws/deque.hpp) and runs them from the head. Between two tasks it
// publishes what it knows of itself and exchanges what changed with its
// ring neighbours (a2ws/ring_info.hpp, radius R), and — from its first
// finished task on (preemptive stealing, §2.2.1), or only once its deque
// is empty when Config::preemptive is off — asks the steal equations
// (a2ws/smart.hpp) whether a steal from a rank of its subsystem would bring
// the finish times closer; if so it takes that many tasks from the
// victim's tail (one atomic, one get) and pushes them to its own head. A
// rank whose deque is empty keeps stealing while the equations find a
// victim, and leaves when they find none: a slow rank does not take work
// that a faster one would finish sooner (§4). Every rank runs what is in
// its deque, so each task runs exactly once whoever leaves when.
#include <random>
#include <vector>

#include "a2ws/deque.hpp"
#include "a2ws/engines.hpp"
#include "a2ws/held_work.hpp"
#include "a2ws/ring_info.hpp"
#include "a2ws/smart.hpp"
#include "a2ws/tasks.hpp"

namespace lb4mpi::a2ws {
namespace {

class A2ws final : public st::Engine {
 public:
  explicit A2ws(const st::Config& config) : config_(config) {}

  void run(st::Run& run) override {
    const TaskSpace space = TaskSpace::of(run);
    const RingLayout layout(run.size(), run.rank(), std::max(1, config_.radius));
    std::vector<PeerView> initial(static_cast<std::size_t>(layout.slots()));
    for (int s = 0; s < layout.slots(); ++s) {
      // Before a rank is heard of: its static share, untouched (§2.2.1).
      const auto c = static_cast<double>(space.count_of(layout.rank_at(s)));
      initial[static_cast<std::size_t>(s)] = PeerView{c, 0.0, c};
    }
    TaskRunner runner(run, space);
    {
      TaskDeque deque(run.comm(), space.deque_capacity(run.rank()), space.tasks_of(run.rank()));
      RingInfo ring(run.comm(), layout, initial);
      HeldWork held(run.size(), run.rank(), space.count_of(run.rank()));
      State s{run, space, runner, deque, ring, held, runner.random()};
      runner.between = [&ring] { ring.exchange(); };
      // The ranks leave the windows' collective creation together: the
      // clock of the preemptive estimate starts here, not at the loop's
      // start (see steal()).
      s.work_began = st::Run::now();
      work(s);
      runner.finish();
    }  // the windows go (collectively) after every rank finished
  }

 private:
  struct State {
    st::Run& run;
    const TaskSpace& space;
    TaskRunner& runner;
    TaskDeque& deque;
    RingInfo& ring;
    HeldWork& held;
    std::mt19937_64 rng;
    Index executed = 0;  // tasks run here
    double work_began = 0.0;
  };

  enum class Outcome : std::uint8_t { NoVictim, Failed, Got };

  void work(State& s) const {
    for (;;) {
      publish(s, -1);
      s.runner.poll();  // news in, changes out (ring.exchange), items served
      if (config_.preemptive && s.executed > 0) (void)steal(s, kPreemptiveMinSaving);
      const std::int64_t id = s.deque.take();
      if (id < 0) {
        if (!steal_until_work(s)) return;
        continue;
      }
      const int owner = s.space.owner(id);
      s.held.take(owner);
      publish(s, owner);
      s.ring.exchange();
      s.held.ran(owner, s.runner.execute(id));
      ++s.executed;
    }
  }

  // This rank's entry (`002` §2.1): n_i = the tasks it still has to run,
  // held and running (a2ws/smart.hpp: why not those it ran too), t_i their
  // expected time per task (a2ws/held_work.hpp: why per owner).
  static void publish(State& s, int running_owner) {
    s.held.sync(s.deque.held());
    s.ring.set_self(s.held.view(s.deque.stealable(), running_owner));
  }

  // One steal decision and attempt (Algorithm 1, lines 4-8).
  // `min_saving`: select_victim's (a2ws/smart.hpp).
  Outcome steal(State& s, double min_saving = 0.0) const {
    // A rank that has not finished a task in `elapsed` is at most that fast
    // (§2.2.1) — counted from when the ranks could start on tasks. From
    // the loop's start it included the creation of the two windows (0.5 ms
    // on 2 ranks, several task times): the thief judged a rank that was on
    // its first task 5-25 times slower than it was and took up to 95 % of
    // its deque, then its own deque looked short by its light tasks' mean
    // time and the overloaded rank stole back (issue 34, docs/A2WS.md).
    const double elapsed = st::Run::now() - s.work_began;
    std::vector<PeerView> peers(s.ring.view().begin(), s.ring.view().end());
    for (PeerView& p : peers) p.task_time = estimated_task_time(p, elapsed);
    const std::optional<Choice> c =
        select_victim(peers, static_cast<std::size_t>(s.ring.layout().self_slot()),
                      std::uniform_real_distribution<double>(0.0, 1.0)(s.rng), min_saving);
    if (!c) return Outcome::NoVictim;
    const int slot = static_cast<int>(c->victim);
    const int victim = s.ring.layout().rank_at(slot);
    RankSteals& fig = s.run.steal_figures();
    ++fig.steal_attempts;
    const TaskDeque::Stolen got = s.deque.steal(victim, c->amount);
    // What the thief learnt of the victim (`002` Table 1).
    PeerView v = s.ring.view()[static_cast<std::size_t>(slot)];
    v.left = static_cast<double>(got.left);
    v.tasks = std::max(0.0, v.tasks - static_cast<double>(got.tasks.size()));
    s.ring.set(slot, v);
    if (got.tasks.empty()) return Outcome::Failed;
    ++fig.steals;
    s.runner.took_in(got.tasks);
    s.held.sync(s.deque.held());
    // What the thief assumed of the victim's tasks (its estimate when the
    // victim has not finished one) stands for them until it runs one.
    const double victim_time = peers[static_cast<std::size_t>(slot)].task_time;
    for (const std::int64_t id : got.tasks) s.held.took_in(s.space.owner(id), victim_time);
    s.deque.push(got.tasks);
    publish(s, -1);
    return Outcome::Got;
  }

  // An empty deque: steal while the equations find a victim.
  bool steal_until_work(State& s) const {
    const double t0 = st::Run::now();
    const int tries = 4 * s.ring.layout().slots();
    bool got = false;
    for (int i = 0; i < tries && !got; ++i) {
      publish(s, -1);
      s.runner.poll();
      const Outcome o = steal(s);
      if (o == Outcome::NoVictim) break;
      got = o == Outcome::Got;
    }
    s.run.steal_figures().steal_wait += st::Run::now() - t0;
    return got;
  }

  st::Config config_;
};

}  // namespace

std::unique_ptr<st::Engine> make_a2ws(const st::Config& config) { return std::make_unique<A2ws>(config); }

}  // namespace lb4mpi::a2ws
