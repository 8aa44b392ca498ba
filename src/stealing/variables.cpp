#include "stealing/variables.hpp"

namespace lb4mpi::st {

const std::vector<std::string>& variables() {
  static const std::vector<std::string> names = {
      "LB4MPI_BALANCER",        // none|steal|a2ws|lw|random-steal|token
      "LB4MPI_STEAL_RATIO",     // `000` Table 4.2: percent of the victim's unstarted iterations
      "LB4MPI_WS_SCHEDULING",   // `000` Table 4.2: the steal amount's technique (name or Table 4.1 id)
      "LB4MPI_LAWS",            // `000` Table 4.2: 1 = locality-aware victim selection
      "LB4MPI_nLAWS",           // `000` Table 4.2: 1 = naive locality-aware victim selection
      "LB4MPI_VICTIM",          // random|locality|naive-locality
      "LB4MPI_RANKS_PER_NODE",  // emulated nodes for locality (0: MPI_COMM_TYPE_SHARED)
      "LB4MPI_SPEEDS",          // per-rank speed factors (emulated heterogeneity)
      "LB4MPI_A2WS_RADIUS",     // decentralized balancers: ring radius R
      "LB4MPI_A2WS_PREEMPTIVE", // decentralized balancers: preemptive stealing 0/1
  };
  return names;
}

}  // namespace lb4mpi::st
