// lb4mpi-pisolver-stream: two loops per time step (`003` §5.1) -- the
// compute-bound Pi-solver and the memory-bound STREAM Triad -- scheduled
// across the MPI ranks by lb4mpi, one after the other (synchronous, default)
// or both in flight at once (--async).
//
//   mpiexec -n 4 lb4mpi-pisolver-stream --techniques STATIC,GSS --time-steps 20 --async
//
// Loop 1 (Pi): N = --pi-iterations, iteration i = --pi-substeps midpoint
// terms of 4/(1+x^2) on slice i of [0, 1]. Loop 2 (Triad): --triad-elements
// elements per array, iteration i = block i of --triad-block elements.
// Every rank holds the three Triad arrays (any rank may run any block).
// Prints the multi-loop JSON summary (apps/common/multiloop.hpp) on rank 0;
// `params` adds the sizes and `pi` (from an order-independent fixed-point sum
// of the slices of the last step).

#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include "common/app.hpp"
#include "common/cli.hpp"
#include "common/mix.hpp"
#include "common/multiloop.hpp"
#include "common/summary.hpp"
#include "common/work.hpp"
#include "pisolver_stream_kernel.hpp"

namespace apps = lb4mpi::apps;
namespace ps = lb4mpi::apps::pisolver_stream;

namespace {

int run(apps::AppContext& ctx, int argc, char** argv) {
  const lb4mpi::Options base = lb4mpi::Options::from_env();
  apps::Cli cli("Pi-solver + STREAM Triad: two loops per time step, load-balanced by lb4mpi", ctx.name());
  apps::CommonCli common(cli, base);
  apps::MultiLoopCli multi(cli);
  ps::PiParams pi;
  ps::TriadParams triad;
  cli.option("--pi-iterations", pi.iterations, "iterations of the Pi loop")
      .show_default()
      .at_least(1);
  cli.option("--pi-substeps", pi.substeps, "midpoint terms per Pi iteration (its work)")
      .show_default()
      .at_least(1);
  cli.option("--triad-elements", triad.elements, "elements of each Triad array")
      .show_default()
      .at_least(1);
  cli.option("--triad-block", triad.block, "Triad elements per loop iteration")
      .show_default()
      .at_least(1);
  ctx.parse(cli, argc, argv);

  const lb4mpi::Options opt = common.options();
  if (common.repeat() != 1)
    throw lb4mpi::Error("--repeat: this app has time steps: use --time-steps");
  pi.validate();
  triad.validate();
  if (opt.robust) {
    // MPI_Reduce below would wait for a failed rank (docs/ROBUST.md).
    throw lb4mpi::Error("--robust: pisolver-stream sums pi with a collective call that a failed rank would hold "
                        "up; robust several-loop runs: lb4mpi-mandelbrot --loops 3 --robust (docs/ROBUST.md)");
  }
  const std::vector<lb4mpi::Options> opts = multi.options(opt, 2);
  const std::vector<lb4mpi::Index> n = {pi.iterations, triad.iterations()};
  apps::validate_loops(ctx, n, opts, multi.time_steps());

  const auto e = static_cast<std::size_t>(triad.elements);
  std::vector<double> a(e, 0.0), b(e), c(e);
  ps::triad_init(b, c);

  std::int64_t pi_fixed = 0;  // this rank's part of the last step's fixed-point sum
  const int last = multi.time_steps() - 1;
  const auto result = apps::run_multi_steps(
      ctx, n, opts, multi.time_steps(), multi.drive(),
      [&](int loop, int step, lb4mpi::Chunk ch) -> std::uint64_t {
        std::uint64_t sum = 0;
        apps::PieceWork work;  // the simulation build: the modelled time of the piece
        for (lb4mpi::Index i = ch.begin; i < ch.end(); ++i) {
          const auto u = static_cast<std::uint64_t>(i);
          if (loop == 0) {
            const double v = ps::pi_slice(pi, i);
            if (step == last) pi_fixed += ps::to_fixed(v);
            sum += apps::mix_result(u, ps::bits_of(v));
            work.charge(ps::pi_modelled_seconds(pi));
          } else {
            sum += apps::mix_result(u, ps::bits_of(ps::triad_block(triad, i, a, b, c)));
            work.charge(ps::triad_modelled_seconds(triad, i));
          }
        }
        return sum;
      });
  std::int64_t pi_total = 0;
  MPI_Reduce(&pi_fixed, &pi_total, 1, MPI_INT64_T, MPI_SUM, 0, ctx.comm());

  auto summary = apps::make_multi_summary(ctx, "pisolver-stream", opts, n, result, {true, true});
  const double pi_value = ps::from_fixed(pi_total);
  summary["params"] = {{"time_steps", multi.time_steps()},
                       {"pi_iterations", pi.iterations},
                       {"pi_substeps", pi.substeps},
                       {"triad_elements", triad.elements},
                       {"triad_block", triad.block},
                       {"triad_iterations", triad.iterations()},
                       {"triad_scalar", triad.scalar},
                       {"triad_bytes_per_rank", 3 * triad.elements * 8},
                       {"pi", pi_value},
                       {"pi_error", std::abs(pi_value - std::numbers::pi)}};
  apps::print_summary(ctx, summary);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return apps::run_app("lb4mpi-pisolver-stream", argc, argv,
                       [&](apps::AppContext& ctx) { return run(ctx, argc, argv); });
}
