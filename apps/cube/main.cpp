// lb4mpi-cube: a 3-D field distributed in slabs along x, balanced by work
// stealing: a stolen chunk of x-slices travels as an MPI sub-array of the
// owner's cube (`000` §4.1.5.2), without its halo cells, and its results
// come back into the owner's result cube, also as a sub-array. The cost of
// a cell varies across the cube (apps/cube/cube_kernel.hpp), so the middle
// slabs carry most of the work.
//
//   mpiexec -n 4 lb4mpi-cube --nx 96 --ny 48 --nz 48 --balancer steal --steal-amount GSS
//
// The summary of apps/common/owned.hpp; the checksum is the same for every
// rank count, balancer, steal amount and victim selection.
#include <vector>

#include "common/app.hpp"
#include "common/mix.hpp"
#include "common/owned.hpp"
#include "common/summary.hpp"
#include "cube_kernel.hpp"

namespace apps = lb4mpi::apps;
namespace cube = lb4mpi::apps::cube;

namespace {

int run(apps::AppContext& ctx, int argc, char** argv) {
  apps::Cli cli("A 3-D field in slabs along x, balanced by work stealing with MPI sub-arrays", ctx.name());
  apps::OwnedCli owned(cli, lb4mpi::StealOptions::from_env());
  cube::Params p;
  cli.option("--nx", p.nx, "cells along x (the loop's iterations: one x-slice each)").show_default().at_least(1);
  cli.option("--ny", p.ny, "cells along y").show_default().at_least(1);
  cli.option("--nz", p.nz, "cells along z").show_default().at_least(1);
  cli.option("--max-iter", p.max_iter, "a cell's most iterations").show_default().at_least(1);
  ctx.parse(cli, argc, argv);
  p.validate(ctx.size());
  const lb4mpi::StealOptions opt = owned.options(ctx.size());

  const lb4mpi::Index first = apps::block_start(p.nx, ctx.size(), ctx.rank());
  const int nx = static_cast<int>(apps::block_start(p.nx, ctx.size(), ctx.rank() + 1) - first);
  // The slab with a halo of one cell on every side (never sent: the box
  // [1, 1 + n) in each dimension is the rank's), and a result slab without.
  const std::array<int, 3> dims = {nx + 2, p.ny + 2, p.nz + 2};
  std::vector<double> slab(static_cast<std::size_t>(dims[0]) * static_cast<std::size_t>(dims[1]) *
                               static_cast<std::size_t>(dims[2]),
                           -1.0);
  for (int x = 0; x < nx; ++x)
    for (int y = 0; y < p.ny; ++y)
      for (int z = 0; z < p.nz; ++z) {
        slab[(static_cast<std::size_t>(x + 1) * static_cast<std::size_t>(dims[1]) + static_cast<std::size_t>(y + 1)) *
                 static_cast<std::size_t>(dims[2]) +
             static_cast<std::size_t>(z + 1)] = cube::field(p, first + x, y, z);
      }
  std::vector<std::int32_t> counts(static_cast<std::size_t>(nx) * static_cast<std::size_t>(p.ny) *
                                   static_cast<std::size_t>(p.nz));
  const auto steps = apps::run_owned_steps(ctx, owned.repeat(), [&] {
    apps::OwnedStep s;
    s.report = lb4mpi::owned_for(
        ctx.comm(), first, first + nx, lb4mpi::CubeData<double>(slab.data(), dims, {1, 1, 1}, {nx, p.ny, p.nz}),
        lb4mpi::CubeData<std::int32_t>(counts.data(), {nx, p.ny, p.nz}), opt,
        [&p](lb4mpi::Chunk c, lb4mpi::CubeView<double> in, lb4mpi::CubeView<std::int32_t> out) {
          for (lb4mpi::Index x = 0; x < c.size; ++x)
            for (int y = 0; y < in.ny; ++y)
              for (int z = 0; z < in.nz; ++z) out(x, y, z) = cube::escape(p, c.begin + x, y, in(x, y, z));
        });
    for (int x = 0; x < nx; ++x)
      for (int y = 0; y < p.ny; ++y)
        for (int z = 0; z < p.nz; ++z) {
          const auto v = counts[(static_cast<std::size_t>(x) * static_cast<std::size_t>(p.ny) + static_cast<std::size_t>(y)) *
                                    static_cast<std::size_t>(p.nz) +
                                static_cast<std::size_t>(z)];
          s.checksum += apps::mix_result(cube::cell_id(p, first + x, y, z), static_cast<std::uint64_t>(v));
        }
    return s;
  });
  auto summary = apps::owned_summary(ctx, "cube", opt, p.nx, steps);
  summary["params"] = {{"nx", p.nx}, {"ny", p.ny}, {"nz", p.nz}, {"max_iter", p.max_iter}};
  apps::print_summary(ctx, summary);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return apps::run_app("lb4mpi-cube", argc, argv, [&](apps::AppContext& ctx) { return run(ctx, argc, argv); });
}
