// Balancer::LW: leader-workers, the centralized baseline of `002` (§4:
// "a classical master-slave scheduler").
//
// The leader (Config::coordinator) hands out every task of the loop, one at
// a time, in rank order of their owners, and runs tasks itself between
// serving requests (no extra thread: it answers between pieces of its own
// tasks). A worker asks for its next task as it starts the current one, so
// the answer travels while it computes; the answer "none" ends its part.
#include <deque>

#include "a2ws/engines.hpp"
#include "a2ws/tasks.hpp"

namespace lb4mpi::a2ws {
namespace {

enum Kind : std::int32_t {
  kAsk = TaskRunner::kEngineKinds,  ///< worker -> leader
  kTask,                            ///< leader -> worker: a = the task, or -1: none left
};

class LeaderWorkers final : public st::Engine {
 public:
  explicit LeaderWorkers(const st::Config& config) : config_(config) {}

  void run(st::Run& run) override {
    const TaskSpace space = TaskSpace::of(run);
    TaskRunner runner(run, space);
    const int leader = config_.coordinator;
    Index next = 0;          // the leader: tasks handed out so far
    int workers_done = 0;    // the leader: workers told "none"
    std::deque<std::int64_t> queue;  // a worker: tasks received
    bool asked = false, over = false;
    RankSteals& fig = run.steal_figures();
    const auto hand_out = [&]() -> std::int64_t { return next < space.total_tasks() ? space.nth(next++) : -1; };
    const auto received = [&](std::int64_t id) {
      if (space.owner(id) != run.rank()) {  // work moved: counted as a steal
        ++fig.steals;
        runner.took_in(std::span<const std::int64_t>(&id, 1));
      }
    };
    runner.on_message = [&](const st::Message& m, int source) {
      if (m.kind == kAsk) {  // the leader
        st::Message r = runner.message(kTask);
        r.a = hand_out();
        if (r.a < 0) ++workers_done;
        runner.send(source, r);
      } else if (m.kind == kTask) {  // a worker
        asked = false;
        if (m.a < 0) {
          over = true;
        } else {
          queue.push_back(m.a);
        }
      }
    };
    const auto ask = [&] {
      ++fig.steal_attempts;
      asked = true;
      runner.send(leader, runner.message(kAsk));
    };
    if (run.rank() == leader) {
      for (std::int64_t id = hand_out(); id >= 0; id = hand_out()) {
        ++fig.steal_attempts;  // the leader asks itself
        received(id);
        runner.execute(id);
      }
      while (workers_done < run.size() - 1) runner.wait_one();
    } else {
      ask();
      for (;;) {
        const double t0 = st::Run::now();
        while (queue.empty() && !over) runner.wait_one();
        fig.steal_wait += st::Run::now() - t0;
        if (queue.empty()) break;
        const std::int64_t id = queue.front();
        queue.pop_front();
        if (!over && !asked) ask();  // the next answer travels while this task runs
        received(id);
        runner.execute(id);
      }
    }
    runner.finish();
  }

 private:
  st::Config config_;
};

}  // namespace

std::unique_ptr<st::Engine> make_leader_workers(const st::Config& config) {
  return std::make_unique<LeaderWorkers>(config);
}

}  // namespace lb4mpi::a2ws
