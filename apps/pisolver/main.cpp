// lb4mpi-pisolver: the Pi-solver over distributed data (`000` §5.2). Every
// rank owns a block of the iterations and their workloads (one long each)
// and cannot read the others'; the balancer moves iterations with their
// workloads to idle ranks and their results back. --imbalance PCT gives
// rank 0 PCT % of the total work on top of its equal share
// (apps/pisolver/pisolver_kernel.hpp).
//
//   mpiexec -n 4 lb4mpi-pisolver --imbalance 30 --balancer steal --steal-amount 50% --victim random
//
// Besides the summary of apps/common/owned.hpp it reports `pi` (the sum of
// the slices) and `pi_error`. The checksum depends on N, P, --work,
// --imbalance and --seed, not on the balancer, the steal amount or the
// victim selection.
#include <cmath>
#include <numbers>
#include <vector>

#include "common/app.hpp"
#include "common/mix.hpp"
#include "common/owned.hpp"
#include "common/summary.hpp"
#include "pisolver_kernel.hpp"
#include "pisolver_stream/pisolver_stream_kernel.hpp"

namespace apps = lb4mpi::apps;
namespace pis = lb4mpi::apps::pisolver;

namespace {

int run(apps::AppContext& ctx, int argc, char** argv) {
  apps::Cli cli("Pi-solver over distributed data (000 §5.2), balanced by work stealing", ctx.name());
  apps::OwnedCli owned(cli, lb4mpi::StealOptions::from_env());
  pis::Params p;
  cli.option("--iterations", p.iterations, "N: loop iterations (owned in blocks)").show_default().at_least(1);
  cli.option("--work", p.work, "mean sub-steps per iteration").show_default().at_least(1);
  cli.option("--imbalance", p.imbalance, "PCT: rank 0 owns PCT % of the work on top of its share (0-40)")
      .show_default();
  cli.option("--seed", p.seed, "seed of the workloads").show_default();
  ctx.parse(cli, argc, argv);
  p.validate(ctx.size());
  const lb4mpi::StealOptions opt = owned.options(ctx.size());

  const lb4mpi::Index first = apps::block_start(p.iterations, ctx.size(), ctx.rank());
  const lb4mpi::Index last = apps::block_start(p.iterations, ctx.size(), ctx.rank() + 1);
  std::vector<std::int64_t> workloads(static_cast<std::size_t>(last - first));
  for (lb4mpi::Index i = first; i < last; ++i) {
    workloads[static_cast<std::size_t>(i - first)] = pis::workload(p, ctx.size(), ctx.rank(), i);
  }
  std::vector<std::int64_t> slices(workloads.size());
  std::int64_t pi_fixed = 0;
  const auto steps = apps::run_owned_steps(ctx, owned.repeat(), [&] {
    apps::OwnedStep s;
    s.report = lb4mpi::owned_for(ctx.comm(), first, last, lb4mpi::ArrayData<std::int64_t>(workloads),
                                 lb4mpi::ArrayData<std::int64_t>(slices), opt,
                                 [&p](lb4mpi::Chunk c, std::span<std::int64_t> w, std::span<std::int64_t> out) {
                                   for (std::size_t k = 0; k < w.size(); ++k) {
                                     out[k] = pis::solve(p, c.begin + static_cast<lb4mpi::Index>(k), w[k]);
                                   }
                                 });
    // The owner's results, wherever they were computed.
    pi_fixed = 0;
    for (std::size_t k = 0; k < slices.size(); ++k) {
      s.checksum += apps::mix_result(static_cast<std::uint64_t>(first) + k, static_cast<std::uint64_t>(slices[k]));
      pi_fixed += slices[k];
    }
    return s;
  });
  std::int64_t pi_sum = 0;
  MPI_Reduce(&pi_fixed, &pi_sum, 1, MPI_INT64_T, MPI_SUM, 0, ctx.comm());

  auto summary = apps::owned_summary(ctx, "pisolver", opt, p.iterations, steps);
  const double pi = apps::pisolver_stream::from_fixed(pi_sum);
  summary["pi"] = pi;
  summary["pi_error"] = std::fabs(pi - std::numbers::pi);
  std::vector<double> shares;
  for (int r = 0; r < ctx.size(); ++r) shares.push_back(pis::work_share(p, ctx.size(), r));
  summary["params"] = {{"work", p.work}, {"imbalance", p.imbalance}, {"seed", p.seed}, {"work_share_per_rank", shares}};
  apps::print_summary(ctx, summary);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return apps::run_app("lb4mpi-pisolver", argc, argv, [&](apps::AppContext& ctx) { return run(ctx, argc, argv); });
}
