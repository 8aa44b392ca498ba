// Balancer::None: each rank executes exactly what it owns, no messages —
// the baseline every balancer is measured against.
#include "builtin.hpp"
#include "stealing/owned_work.hpp"

namespace lb4mpi::st {
namespace {

class NoBalancing final : public Engine {
 public:
  void run(Run& run) override {
    OwnedWork work(run);
    while (const std::optional<Chunk> c = work.next_chunk(run.mine().size())) {
      run.execute(Chunk{run.mine().first + c->begin, c->size}, Place{nullptr, c->begin}, Place{nullptr, c->begin},
                  true);
    }
    run.exited();
  }
};

}  // namespace

std::unique_ptr<Engine> make_no_balancing(const Config& /*config*/) { return std::make_unique<NoBalancing>(); }

}  // namespace lb4mpi::st
