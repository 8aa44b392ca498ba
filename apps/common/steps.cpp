#include "steps.hpp"

#include <string>

namespace lb4mpi::apps {

std::uint64_t reduce_checksum(MPI_Comm comm, std::uint64_t local) {
  std::uint64_t global = 0;
  MPI_Reduce(&local, &global, 1, MPI_UINT64_T, MPI_SUM, 0, comm);
  return global;
}

void validate_loop(const AppContext& ctx, Index n, const Options& opt, int repeat) {
  if (repeat < 1) throw Error("--repeat must be >= 1, got " + std::to_string(repeat));
  try {
    opt.params.validate(opt.technique, n, ctx.size());
  } catch (const InvalidParameter& e) {
    throw Error(opt.explain(e));  // names the flag or variable the value came from
  }
  for (int r : opt.delay_ranks)
    if (r < 0 || r >= ctx.size())
      throw Error("--delay-ranks: rank " + std::to_string(r) + " is not in [0, " +
                  std::to_string(ctx.size()) + ")");
}

}  // namespace lb4mpi::apps
