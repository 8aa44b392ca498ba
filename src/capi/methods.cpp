#include "methods.hpp"

#include <string>

#include "lb4mpi/lb4mpi.h"

namespace lb4mpi::capi {
namespace {

// "valid: STATIC=0, SS=1, ..., LB4MPI_AUTO=107", from the techniques' C ids.
std::string valid_methods() {
  std::string out = "valid: ";
  for (const TechniqueInfo& ti : all_techniques()) {
    out += std::string(ti.c_name) + "=" + std::to_string(ti.c_id) + ", ";
  }
  return out + "LB4MPI_AUTO=" + std::to_string(kAutoCId);
}

}  // namespace

static_assert(kAutoCId == LB4MPI_AUTO, "lb4mpi.h and the technique layer disagree on LB4MPI_AUTO");

Technique technique_of(int method) {
  for (const TechniqueInfo& ti : all_techniques()) {
    if (ti.c_id == method) return ti.technique;
  }
  if (method == kAutoCId) return Technique::Auto;
  std::string hint;
  if (method == 6) hint = " (6 is FAC in DLS4LB's DLS.h, whose ids from 6 on are one lower than lb4mpi's)";
  throw Error("unknown scheduling method " + std::to_string(method) + hint + "; " + valid_methods());
}

Mode mode_of(int c_mode) {
  switch (c_mode) {
    case DECENTRALIZED:
      return Mode::Distributed;
    case DECENTRALIZED_RMA:
      return Mode::DistributedRMA;
    case HIERARCHICAL:
      return Mode::Hierarchical;
    default:
      return Mode::Centralized;
  }
}

int c_mode_of(Mode m) {
  switch (m) {
    case Mode::Distributed:
      return DECENTRALIZED;
    case Mode::DistributedRMA:
      return DECENTRALIZED_RMA;
    case Mode::Hierarchical:
      return HIERARCHICAL;
    default:
      return CENTRALIZED;
  }
}

}  // namespace lb4mpi::capi
