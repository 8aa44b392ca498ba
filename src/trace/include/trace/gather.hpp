// Gathering every rank's trace records at rank 0 (one MPI_Gatherv), with a
// 64-bit-safe plan and errors agreed on every rank.
#pragma once
#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "trace/recorder.hpp"

namespace lb4mpi::trace {

/// How rank 0 receives every rank's records in one MPI_Gatherv, in records
/// (an MPI datatype of one TraceRecord): counts and displacements must fit
/// in int. Throws lb4mpi::Error when they do not.
struct TraceGatherPlan {
  std::vector<int> counts;
  std::vector<int> displs;
  std::int64_t total = 0;
};
TraceGatherPlan plan_trace_gather(const std::vector<std::int64_t>& records_per_rank);

/// Collective: every rank's records, at rank 0 (empty elsewhere). Returns ""
/// or, on every rank, why they cannot be gathered (too many for one
/// MPI_Gatherv, or no memory at rank 0): no rank is left in a collective.
std::string gather_records(MPI_Comm comm, int rank, const std::vector<TraceRecord>& mine,
                           std::vector<TraceRecord>& all);

}  // namespace lb4mpi::trace
