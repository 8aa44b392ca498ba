// DLS4LB's setup calls in the C API (dls4lb.cpp): DLS_Setup, get_DLS_ShortName
// and DLS_GroupSetup, the two-level ("Type II") loops of DLS4LB.
//
// DLS_GroupSetup(world, coordinator, &GS, &LS) splits `world` into groups
// (by processor name, or LB4MPI_RANKS_PER_NODE consecutive ranks); LS
// schedules inner loops inside the group, an ordinary handle. GS schedules
// the outer loop among the coordinator and the groups' foremen (rank 0 of
// each group) and relays each outer chunk to the rest of the group: every
// rank of a group runs the same outer chunks. A GS handle carries a
// GroupRole; DLS_StartLoop ... DLS_EndLoop on it go through the group_*
// functions below instead of the plain ones.
#pragma once
#include <cstdint>
#include <memory>

#include "state.hpp"

namespace lb4mpi::capi::detail {

struct GroupRole {
  bool leader = false;            // the coordinator or a foreman: runs the outer Loop
  MPI_Comm crew = MPI_COMM_NULL;  // the group (own duplicate): the leader relays chunks on it
  int crew_size = 1;
  std::unique_ptr<CState> world;  // the whole job: agreements of the outer loop's calls
  // The relay of one chunk: {terminated, start, size}, fetched once.
  bool relayed = false;
  std::int64_t msg[3] = {0, 0, 0};
  // A member's own account of the outer loop (the leader's comes from its Loop).
  bool active = false;
  Index iterations = 0;
  double work_time = 0.0;
  double chunk_started = -1.0;

  GroupRole() = default;
  GroupRole(const GroupRole&) = delete;
  GroupRole& operator=(const GroupRole&) = delete;
  ~GroupRole();
};

void group_start_loop(CState* st, int firstIter, int lastIter, int method);
int group_terminated(CState* st);
void group_start_chunk(CState* st, int* chunkStart, int* chunkSize);
void group_end_chunk(CState* st);
void group_end_loop(CState* st, int* nIter, double* workTime);

}  // namespace lb4mpi::capi::detail
