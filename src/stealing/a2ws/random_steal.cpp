// Balancer::RandomSteal: decentralized random work stealing, a baseline of
// `002` (§2: "selecting the victim randomly is the most common approach").
//
// The same deques as A2WS (a2ws/deque.hpp), no information exchange: a rank
// runs its own tasks from the head; once its deque is empty it visits the
// other ranks in a random order, reads the size of each one's deque (one
// atomic) and takes half of the first non-empty one from the tail (one
// atomic, one get); it leaves after a round in which every deque was empty.
#include <algorithm>
#include <numeric>
#include <random>
#include <vector>

#include "a2ws/deque.hpp"
#include "a2ws/engines.hpp"
#include "a2ws/tasks.hpp"

namespace lb4mpi::a2ws {
namespace {

class RandomStealing final : public st::Engine {
 public:

  void run(st::Run& run) override {
    const TaskSpace space = TaskSpace::of(run);
    TaskRunner runner(run, space);
    std::mt19937_64 rng = runner.random();
    {
      TaskDeque deque(run.comm(), space.deque_capacity(run.rank()), space.tasks_of(run.rank()));
      std::vector<int> others;
      for (int r = 0; r < run.size(); ++r)
        if (r != run.rank()) others.push_back(r);
      RankSteals& fig = run.steal_figures();
      for (;;) {
        runner.poll();
        const std::int64_t id = deque.take();
        if (id >= 0) {
          runner.execute(id);
          continue;
        }
        // Empty: one round over the others in a random order.
        const double t0 = st::Run::now();
        std::shuffle(others.begin(), others.end(), rng);
        bool got = false;
        for (int victim : others) {
          ++fig.steal_attempts;
          const std::int64_t k = deque.peek(victim);
          if (k < 1) continue;
          const TaskDeque::Stolen s = deque.steal(victim, (k + 1) / 2);
          if (s.tasks.empty()) continue;
          ++fig.steals;
          runner.took_in(s.tasks);
          deque.push(s.tasks);
          got = true;
          break;
        }
        fig.steal_wait += st::Run::now() - t0;
        if (!got) break;
      }
      runner.finish();
    }
  }
};

}  // namespace

std::unique_ptr<st::Engine> make_random_stealing(const st::Config& /*config*/) {
  return std::make_unique<RandomStealing>();
}

}  // namespace lb4mpi::a2ws
