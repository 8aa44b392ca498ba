#include "trace/gather.hpp"

#include <climits>
#include <cstddef>
#include <new>
#include <stdexcept>
#include <type_traits>

#include "lb4mpi/types.hpp"
#include "runtime/mpi.hpp"

namespace lb4mpi::trace {

using rt::check_mpi;

namespace {

// The MPI datatype of one TraceRecord (its extent is sizeof(TraceRecord)).
class RecordType {
 public:
  RecordType() {
    static_assert(std::is_standard_layout_v<TraceRecord>);
    static_assert(offsetof(TraceRecord, step) == offsetof(TraceRecord, kind) + 3 * sizeof(std::int32_t));
    static_assert(offsetof(TraceRecord, size) == offsetof(TraceRecord, start) + sizeof(std::int64_t));
    static_assert(offsetof(TraceRecord, t_end) == offsetof(TraceRecord, t_request) + 2 * sizeof(double));
    int lengths[3] = {4, 2, 3};
    MPI_Aint displs[3] = {static_cast<MPI_Aint>(offsetof(TraceRecord, kind)),
                          static_cast<MPI_Aint>(offsetof(TraceRecord, start)),
                          static_cast<MPI_Aint>(offsetof(TraceRecord, t_request))};
    MPI_Datatype types[3] = {MPI_INT32_T, MPI_INT64_T, MPI_DOUBLE};
    MPI_Datatype packed = MPI_DATATYPE_NULL;
    check_mpi(MPI_Type_create_struct(3, lengths, displs, types, &packed), "MPI_Type_create_struct");
    const int rc = MPI_Type_create_resized(packed, 0, static_cast<MPI_Aint>(sizeof(TraceRecord)), &type_);
    MPI_Type_free(&packed);
    check_mpi(rc, "MPI_Type_create_resized");
    check_mpi(MPI_Type_commit(&type_), "MPI_Type_commit");
  }
  ~RecordType() { MPI_Type_free(&type_); }
  RecordType(const RecordType&) = delete;
  RecordType& operator=(const RecordType&) = delete;
  [[nodiscard]] MPI_Datatype get() const { return type_; }

 private:
  MPI_Datatype type_ = MPI_DATATYPE_NULL;
};

// Outcome of rank 0's preparation of the gather, broadcast to every rank.
enum GatherStatus : std::int64_t { kGatherOk = 0, kGatherTooMany = 1, kGatherNoMemory = 2 };

std::string gather_error(std::int64_t status, std::int64_t total, int ranks) {
  const std::string what = std::to_string(total) + " trace records (" +
                           std::to_string(static_cast<unsigned long long>(total) * sizeof(TraceRecord)) +
                           " bytes) from " + std::to_string(ranks) + " ranks";
  if (status == kGatherTooMany) {
    return "lb4mpi: cannot gather the trace at rank 0: " + what + " exceed what one MPI_Gatherv can carry (" +
           std::to_string(INT_MAX) + " records); trace fewer chunks (fewer time steps or iterations, larger chunks)";
  }
  return "lb4mpi: cannot gather the trace at rank 0: it cannot allocate " + what +
         "; trace fewer chunks (fewer time steps or iterations, larger chunks)";
}

}  // namespace

TraceGatherPlan plan_trace_gather(const std::vector<std::int64_t>& records_per_rank) {
  TraceGatherPlan plan;
  plan.counts.reserve(records_per_rank.size());
  plan.displs.reserve(records_per_rank.size());
  std::int64_t total = 0;
  for (std::size_t r = 0; r < records_per_rank.size(); ++r) {
    const std::int64_t c = records_per_rank[r];
    if (c < 0) throw Error("lb4mpi: internal error: rank " + std::to_string(r) + " has a negative record count");
    if (c > INT_MAX - total) {
      throw Error("lb4mpi: cannot gather the trace at rank 0: more than " + std::to_string(INT_MAX) +
                  " records (rank " + std::to_string(r) + " has " + std::to_string(c) + ", ranks before it " +
                  std::to_string(total) + ")");
    }
    plan.displs.push_back(static_cast<int>(total));
    plan.counts.push_back(static_cast<int>(c));
    total += c;
  }
  plan.total = total;
  return plan;
}

std::string gather_records(MPI_Comm comm, int rank, const std::vector<TraceRecord>& mine,
                           std::vector<TraceRecord>& all) {
  int size = 0;
  check_mpi(MPI_Comm_size(comm, &size), "MPI_Comm_size");
  const std::int64_t count = static_cast<std::int64_t>(mine.size());
  std::vector<std::int64_t> counts(rank == 0 ? static_cast<std::size_t>(size) : 0);
  check_mpi(MPI_Gather(&count, 1, MPI_INT64_T, counts.data(), 1, MPI_INT64_T, 0, comm), "MPI_Gather");
  // Rank 0 checks that the gather fits and allocates its buffer, then
  // tells every rank whether to go on: no rank is left in a collective.
  std::int64_t verdict[2] = {kGatherOk, 0};  // status, total records
  TraceGatherPlan plan;
  if (rank == 0) {
    for (std::int64_t c : counts) verdict[1] += c;
    try {
      plan = plan_trace_gather(counts);
      all.resize(static_cast<std::size_t>(plan.total));
    } catch (const Error&) {
      verdict[0] = kGatherTooMany;
    } catch (const std::bad_alloc&) {
      verdict[0] = kGatherNoMemory;
    } catch (const std::length_error&) {
      verdict[0] = kGatherNoMemory;
    }
  }
  check_mpi(MPI_Bcast(verdict, 2, MPI_INT64_T, 0, comm), "MPI_Bcast");
  if (verdict[0] != kGatherOk) return gather_error(verdict[0], verdict[1], size);
  const RecordType type;
  check_mpi(MPI_Gatherv(mine.data(), static_cast<int>(count), type.get(), all.data(), plan.counts.data(),
                        plan.displs.data(), type.get(), 0, comm),
            "MPI_Gatherv");
  return {};
}

}  // namespace lb4mpi::trace
