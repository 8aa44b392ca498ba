// lb4mpi-mandelbrot: the z^4 + c set on a W x W grid (`001` Listing 3), its
// W^2 iterations scheduled across the MPI ranks by lb4mpi.
//
//   mpiexec -n 4 lb4mpi-mandelbrot --width 512 --threshold 20000 --technique FAC2 --png set.png
//
// Prints the JSON summary of apps/common/summary.hpp on rank 0; `params` adds
// width, threshold, loops and the window; with --png, rank 0 writes the image.
#include <CLI/CLI.hpp>

#include <iostream>
#include <limits>
#include <string>
#include <vector>

#include "common/app.hpp"
#include "common/cli.hpp"
#include "common/mix.hpp"
#include "common/png.hpp"
#include "common/steps.hpp"
#include "common/summary.hpp"
#include "mandelbrot_kernel.hpp"

namespace apps = lb4mpi::apps;
namespace mb = lb4mpi::apps::mandelbrot;

namespace {

int run(apps::AppContext& ctx, int argc, char** argv) {
  const lb4mpi::Options base = lb4mpi::Options::from_env();
  CLI::App cli{"Mandelbrot set of z^4 + c, load-balanced across MPI ranks by lb4mpi", ctx.name()};
  apps::CommonCli common(cli, base);
  mb::Params params;
  params.width = 512;
  params.threshold = 20000;
  int loops = 1;
  std::string png;
  cli.add_option("--width", params.width, "image width W: the loop has W^2 iterations")
      ->capture_default_str()
      ->check(apps::at_least(1));
  cli.add_option("--threshold", params.threshold, "conversion threshold CT: most steps per point")
      ->capture_default_str()
      ->check(apps::at_least(1));
  cli.add_option("--loops", loops, "loops per time step (reserved: only 1 for now)")
      ->capture_default_str();
  cli.add_option("--png", png, "write the image of the set to this PNG file (rank 0)");
  ctx.parse(cli, argc, argv);

  const lb4mpi::Options opt = common.options();
  params.validate();
  if (loops != 1)
    throw lb4mpi::Error("--loops: only 1 loop per time step is supported yet, got " +
                        std::to_string(loops));
  const lb4mpi::Index n = params.iterations();
  if (!png.empty() && n > std::numeric_limits<int>::max())
    throw lb4mpi::Error("--png: a " + std::to_string(params.width) +
                        "^2 image is too large to gather");

  // Results are kept only when the image is wanted: W^2 counts per rank,
  // summed onto rank 0 at the end (each count is set by exactly one rank).
  std::vector<std::int32_t> counts(png.empty() ? 0 : static_cast<std::size_t>(n), 0);
  std::vector<std::int32_t> buffer;
  const auto steps = apps::run_steps(ctx, n, opt, common.repeat(), [&](lb4mpi::Chunk c) {
    buffer.resize(static_cast<std::size_t>(c.size));
    mb::compute_range(params, c.begin, buffer);
    std::uint64_t sum = 0;
    for (std::size_t k = 0; k < buffer.size(); ++k) {
      const auto i = static_cast<std::uint64_t>(c.begin) + k;
      sum += apps::mix_result(i, static_cast<std::uint64_t>(buffer[k]));
      if (!counts.empty()) counts[i] = buffer[k];
    }
    return sum;
  });

  bool image_written = true;
  if (!png.empty()) {
    std::vector<std::int32_t> all(ctx.rank() == 0 ? counts.size() : 0);
    MPI_Reduce(counts.data(), all.data(), static_cast<int>(counts.size()), MPI_INT32_T, MPI_SUM, 0,
               ctx.comm());
    if (ctx.rank() == 0) {
      try {
        std::vector<std::uint8_t> rgb(3 * all.size());
        mb::colour_image(params, all, rgb);
        apps::write_png_rgb(png, static_cast<std::uint32_t>(params.width),
                            static_cast<std::uint32_t>(params.width), rgb);
      } catch (const std::exception& e) {
        ctx.print_error(e.what());
        image_written = false;
      }
    }
  }

  auto summary = apps::make_summary(ctx, "mandelbrot", opt, n, steps);
  summary["params"] = {{"width", params.width},
                       {"threshold", params.threshold},
                       {"loops", loops},
                       {"window", {params.x_min, params.x_max, params.y_min, params.y_max}},
                       {"png", png}};
  apps::print_summary(ctx, summary);
  return image_written ? 0 : 2;
}

}  // namespace

int main(int argc, char** argv) {
  return apps::run_app("lb4mpi-mandelbrot", argc, argv,
                       [&](apps::AppContext& ctx) { return run(ctx, argc, argv); });
}
