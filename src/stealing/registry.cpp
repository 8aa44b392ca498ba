// The engines of this build, by balancer. Built in: none, steal (relayed).
// Engines in their own folder register themselves through the folder's
// register.hpp (stealing/engine.hpp, "how an engine plugs in"); the registry
// names each such folder here (a plain include, so that the build tracks it).
#include <algorithm>

#include "builtin.hpp"
#include "stealing/engine.hpp"

#include "a2ws/register.hpp"

namespace lb4mpi::st {

void EngineRegistry::add(Balancer balancer, EngineFactory make) {
  for (auto& e : entries_) {
    if (e.first == balancer) {
      e.second = make;
      return;
    }
  }
  entries_.emplace_back(balancer, make);
}

EngineFactory EngineRegistry::find(Balancer balancer) const {
  for (const auto& e : entries_) {
    if (e.first == balancer) return e.second;
  }
  return nullptr;
}

std::vector<Balancer> EngineRegistry::built() const {
  std::vector<Balancer> out;
  for (const auto& e : entries_) out.push_back(e.first);
  std::sort(out.begin(), out.end());
  return out;
}

const EngineRegistry& EngineRegistry::instance() {
  static const EngineRegistry registry = [] {
    EngineRegistry r;
    r.add(Balancer::None, &make_no_balancing);
    r.add(Balancer::Steal, &make_relayed_stealing);
    a2ws::register_engines(r);
    return r;
  }();
  return registry;
}

}  // namespace lb4mpi::st
