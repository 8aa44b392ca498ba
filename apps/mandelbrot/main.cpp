// lb4mpi-mandelbrot: the z^4 + c set on a W x W grid (`001` Listing 3), its
// W^2 iterations scheduled across the MPI ranks by lb4mpi.
//
//   mpiexec -n 4 lb4mpi-mandelbrot --width 512 --threshold 20000 --technique FAC2 --png set.png
//
// Prints the JSON summary of apps/common/summary.hpp on rank 0; `params` adds
// width, threshold, loops and the window; with --png, rank 0 writes the image.
//
// --loops 3 (`003` §5.2): each of --time-steps steps computes the image three
// times, in three loops whose imbalance is constant, increasing and
// decreasing over the steps (mandelbrot::three_loop_params: loop 1 keeps the
// window, loops 2 and 3 zoom out from / in to --min-half-width). The loops run
// one after the other or, with --async, all in flight at once; --techniques
// and --modes give each loop its own. The summary is the multi-loop one of
// apps/common/multiloop.hpp.

#include <iostream>
#include <limits>
#include <string>
#include <vector>

#include "common/app.hpp"
#include "common/cli.hpp"
#include "common/mix.hpp"
#include "common/multiloop.hpp"
#include "common/png.hpp"
#include "common/steps.hpp"
#include "common/summary.hpp"
#include "common/work.hpp"
#include "mandelbrot_kernel.hpp"

namespace apps = lb4mpi::apps;
namespace mb = lb4mpi::apps::mandelbrot;

namespace {

// --loops 3: three loops per time step over the same grid.
int run_three_loops(apps::AppContext& ctx, const mb::Params& params, double min_half_width,
                    const std::string& png, const apps::CommonCli& common,
                    const apps::MultiLoopCli& multi) {
  if (!png.empty()) throw lb4mpi::Error("--png: only with --loops 1");
  if (common.repeat() != 1) throw lb4mpi::Error("--repeat: with --loops 3 use --time-steps");
  const int steps = multi.time_steps();
  const std::vector<lb4mpi::Options> opts = multi.options(common.options(), 3);
  // The parameters of every loop and step, computed up front (also validates
  // --min-half-width before any communication).
  std::vector<mb::Params> per(3 * static_cast<std::size_t>(steps));
  for (int s = 0; s < steps; ++s)
    for (int l = 0; l < 3; ++l)
      per[static_cast<std::size_t>(s) * 3 + static_cast<std::size_t>(l)] =
          mb::three_loop_params(params, min_half_width, l, s, steps);
  const lb4mpi::Index n = params.iterations();
  const std::vector<lb4mpi::Index> ns(3, n);

  std::vector<std::int32_t> buffer;
  const auto result = apps::run_multi_steps(
      ctx, ns, opts, steps, multi.drive(),
      [&](int loop, int step, lb4mpi::Chunk c) -> std::uint64_t {
        const mb::Params& p = per[static_cast<std::size_t>(step) * 3 + static_cast<std::size_t>(loop)];
        buffer.resize(static_cast<std::size_t>(c.size));
        mb::compute_range(p, c.begin, buffer);
        std::uint64_t sum = 0;
        apps::PieceWork work;  // the simulation build: the modelled time of the piece
        for (std::size_t k = 0; k < buffer.size(); ++k) {
          sum += apps::mix_result(static_cast<std::uint64_t>(c.begin) + k,
                                  static_cast<std::uint64_t>(buffer[k]));
          work.charge(mb::modelled_seconds(buffer[k]));
        }
        return sum;
      });

  // Loop 1 computes the same image in every step: its checksum must repeat.
  auto summary = apps::make_multi_summary(ctx, "mandelbrot", opts, ns, result, {true, false, false});
  nlohmann::ordered_json windows = nlohmann::ordered_json::array();
  for (int l = 0; l < 3; ++l) {
    nlohmann::ordered_json w = nlohmann::ordered_json::array();
    for (int s = 0; s < steps; ++s) {
      const mb::Params& p = per[static_cast<std::size_t>(s) * 3 + static_cast<std::size_t>(l)];
      w.push_back(0.5 * (p.x_max - p.x_min));
    }
    windows.push_back(std::move(w));
  }
  summary["params"] = {{"width", params.width},
                       {"threshold", params.threshold},
                       {"loops", 3},
                       {"time_steps", steps},
                       {"window", {params.x_min, params.x_max, params.y_min, params.y_max}},
                       {"min_half_width", min_half_width},
                       {"half_width_per_step", std::move(windows)},
                       {"png", png}};
  apps::print_summary(ctx, summary);
  return 0;
}

int run(apps::AppContext& ctx, int argc, char** argv) {
  const lb4mpi::Options base = lb4mpi::Options::from_env();
  apps::Cli cli("Mandelbrot set of z^4 + c, load-balanced across MPI ranks by lb4mpi", ctx.name());
  apps::CommonCli common(cli, base);
  apps::MultiLoopCli multi(cli);
  mb::Params params;
  params.width = 512;
  params.threshold = 20000;
  int loops = 1;
  double min_half_width = 0.5;
  std::string png;
  cli.option("--width", params.width, "image width W: the loop has W^2 iterations")
      .show_default()
      .at_least(1);
  cli.option("--threshold", params.threshold, "conversion threshold CT: most steps per point")
      .show_default()
      .at_least(1);
  cli.option("--loops", loops,
                 "loops per time step: 1, or 3 (constant, increasing, decreasing imbalance)")
      .show_default();
  cli.option("--min-half-width", min_half_width,
                 "--loops 3: half-width of the most zoomed-in window of loops 2 and 3")
      .show_default();
  cli.option("--png", png, "write the image of the set to this PNG file (rank 0)");
  ctx.parse(cli, argc, argv);

  const lb4mpi::Options opt = common.options();
  params.validate();
  if (loops != 1 && loops != 3)
    throw lb4mpi::Error("--loops: 1 or 3 loops per time step, got " + std::to_string(loops));
  if (loops == 3) return run_three_loops(ctx, params, min_half_width, png, common, multi);
  if (multi.any_given())
    throw lb4mpi::Error(
        "--time-steps, --async, --techniques and --modes need --loops 3 (one loop: --repeat)");
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
    apps::PieceWork work;  // the simulation build: the modelled time of the piece
    for (std::size_t k = 0; k < buffer.size(); ++k) {
      const auto i = static_cast<std::uint64_t>(c.begin) + k;
      sum += apps::mix_result(i, static_cast<std::uint64_t>(buffer[k]));
      if (!counts.empty()) counts[i] = buffer[k];
      work.charge(mb::modelled_seconds(buffer[k]));
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
