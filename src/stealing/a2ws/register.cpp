// Registers the engines of src/stealing/a2ws with the stealing layer.
#include "a2ws/register.hpp"

#include "a2ws/engines.hpp"

namespace lb4mpi::st::a2ws {

void register_engines(EngineRegistry& r) {
  r.add(Balancer::A2WS, &lb4mpi::a2ws::make_a2ws);
  r.add(Balancer::LW, &lb4mpi::a2ws::make_leader_workers);
  r.add(Balancer::RandomSteal, &lb4mpi::a2ws::make_random_stealing);
  r.add(Balancer::Token, &lb4mpi::a2ws::make_token_stealing);
}

}  // namespace lb4mpi::st::a2ws
