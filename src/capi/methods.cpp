#include "methods.hpp"

#include <string>

#include "lb4mpi/lb4mpi.h"

namespace lb4mpi::capi {
namespace {

// lb4mpi's own ids (no `000` Table 4.1 id) start here, in canonical order.
constexpr int kFirstExtraId = 100;

const char* const kValidMethods =
    "valid: STATIC=0, SS=1, FSC=2, mFSC=3, GSS=4, TSS=5, FAC=7, WF=8, AWF=9, AWF_B=10, AWF_C=11, "
    "AWF_D=12, AWF_E=13, AF=14, LB4MPI_TAP=100, LB4MPI_FAC_PROB=101, LB4MPI_TFSS=102, LB4MPI_FISS=103, "
    "LB4MPI_VISS=104, LB4MPI_RND=105, LB4MPI_PLS=106, LB4MPI_AUTO=107";

}  // namespace

Technique technique_of(int method) {
  int extra = kFirstExtraId;
  for (const TechniqueInfo& ti : all_techniques()) {
    const int id = ti.legacy_id >= 0 ? ti.legacy_id : extra++;
    if (id == method) return ti.technique;
  }
  if (method == extra) return Technique::Auto;  // LB4MPI_AUTO: the id after the last technique's
  std::string hint;
  if (method == 6) hint = " (6 is FAC in DLS4LB's DLS.h, whose ids from 6 on are one lower than lb4mpi's)";
  throw Error("unknown scheduling method " + std::to_string(method) + hint + "; " + kValidMethods);
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
