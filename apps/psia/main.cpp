// lb4mpi-psia: spin images of a synthetic 3-D point cloud (`001` Listing 2),
// the M images scheduled across the MPI ranks by lb4mpi.
//
//   mpiexec -n 4 lb4mpi-psia --points 16384 --image-width 8 --bin-size 0.1 --support-angle 60
//
// Every rank builds the same cloud from --seed. The result of iteration i is
// the hash of spin image i; the checksum sums mix_result(i, hash). Prints the
// JSON summary of apps/common/summary.hpp on rank 0, with `params`.

#include <string>
#include <vector>

#include "common/app.hpp"
#include "common/cli.hpp"
#include "common/mix.hpp"
#include "common/steps.hpp"
#include "common/summary.hpp"
#include "common/work.hpp"
#include "psia_kernel.hpp"

namespace apps = lb4mpi::apps;
namespace psia = lb4mpi::apps::psia;

namespace {

int run(apps::AppContext& ctx, int argc, char** argv) {
  const lb4mpi::Options base = lb4mpi::Options::from_env();
  apps::Cli cli("Spin images of a 3-D point cloud, load-balanced across MPI ranks by lb4mpi", ctx.name());
  apps::CommonCli common(cli, base);
  psia::Params params;
  lb4mpi::Index points = 16384;
  lb4mpi::Index images = -1;
  std::uint64_t seed = 1;
  cli.option("--points", points, "N: points in the cloud")
      .show_default()
      .at_least(1);
  cli.option("--images", images, "M: spin images to compute = loop iterations (default N)")
      .at_least(1);
  cli.option("--image-width", params.image_width, "W: images are W x W bins")
      .show_default();
  cli.option("--bin-size", params.bin_size, "B: side of a bin").show_default();
  cli.option("--support-angle", params.support_angle_deg, "S: support angle [degrees]")
      .show_default();
  cli.option("--seed", seed, "seed of the point cloud").show_default();
  ctx.parse(cli, argc, argv);

  const lb4mpi::Options opt = common.options();
  params.validate();
  if (images < 0) images = points;
  if (images > points)
    throw lb4mpi::Error("--images: at most --points (" + std::to_string(points) + ") images, got " +
                        std::to_string(images));

  const psia::Cloud cloud = psia::make_cloud(points, seed);
  std::vector<std::uint32_t> image(params.bins());
  const auto steps = apps::run_steps(ctx, images, opt, common.repeat(), [&](lb4mpi::Chunk c) {
    std::uint64_t sum = 0;
    apps::PieceWork work;  // the simulation build: the modelled time of the piece
    for (lb4mpi::Index i = c.begin; i < c.end(); ++i) {
      const lb4mpi::Index in_angle = psia::spin_image(cloud, i, params, image);
      sum += apps::mix_result(static_cast<std::uint64_t>(i), psia::image_hash(image));
      work.charge(psia::modelled_seconds(cloud.size(), in_angle));
    }
    return sum;
  });

  auto summary = apps::make_summary(ctx, "psia", opt, images, steps);
  summary["params"] = {{"points", points},
                       {"images", images},
                       {"image_width", params.image_width},
                       {"bin_size", params.bin_size},
                       {"support_angle_deg", params.support_angle_deg},
                       {"seed", seed}};
  apps::print_summary(ctx, summary);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return apps::run_app("lb4mpi-psia", argc, argv,
                       [&](apps::AppContext& ctx) { return run(ctx, argc, argv); });
}
