// lb4mpi-seismic: seismic modelling, `002`'s use case. Every shot is a task:
// a 3-D acoustic wave simulation (Eq. 12, finite differences) from its
// source through a shared velocity model, recorded by receivers on the
// surface (apps/seismic/seismic_kernel.hpp). Every rank owns a block of the
// shots and keeps the checksums of their traces; the balancer moves shots
// (their numbers: a shot's source position follows from its number, as
// from an acquisition plan every rank reads) to the ranks that run them
// and the checksums back to the owners.
//
//   mpiexec -n 8 lb4mpi-seismic --shots 480 --balancer a2ws --radius 2 --speeds 24,24,16,8,4,2,1,1
//
// --speeds emulates heterogeneous nodes (`002` Table 2: 1 to 24 cores): a
// rank of speed s sleeps (max speed / s - 1) times as long as a shot took
// after each shot it runs, so that a slow node costs this machine no cores
// (the library's own emulation busy-waits instead; the app takes the
// factors out of the options it passes). --shot-ms T makes a shot last T
// ms at speed 1 (T max/s at speed s) whatever its computation took, by
// sleeping the rest: a machine shared with other work then changes the
// schedule's timing little. --radius: A2WS's ring radius R (default: 20 %
// of the ranks, at least 1, as `002` §4 chose).
//
// The summary of apps/common/owned.hpp, with `params` (grid, steps,
// receivers, radius, preemptive, speeds). The checksum depends on the
// grid, the time steps, the receivers and the number of shots only.
#include <chrono>
#include <cmath>
#include <string>
#include <thread>
#include <vector>

#include "common/app.hpp"
#include "common/mix.hpp"
#include "common/owned.hpp"
#include "common/summary.hpp"
#include "seismic_kernel.hpp"

namespace apps = lb4mpi::apps;
namespace sei = lb4mpi::apps::seismic;

namespace {

// "auto": 20 % of the ranks, at least 1 (`002` §4); else a number >= 1.
int parse_radius(const std::string& text, int ranks) {
  if (text == "auto") return std::max(1, static_cast<int>(std::lround(0.2 * ranks)));
  std::size_t used = 0;
  int r = 0;
  try {
    r = std::stoi(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size() || text.empty() || r < 1) {
    throw lb4mpi::Error("--radius: '" + text + "' is not a ring radius; valid: auto or an integer >= 1");
  }
  return r;
}

int run(apps::AppContext& ctx, int argc, char** argv) {
  const lb4mpi::StealOptions base = lb4mpi::StealOptions::from_env();
  apps::Cli cli("Seismic modelling (002): one 3-D acoustic shot per task, balanced across the ranks", ctx.name());
  apps::OwnedCli owned(cli, base);
  sei::Params p;
  std::string radius = base.origin.contains("radius") ? std::to_string(base.radius) : "auto";
  int preemptive = base.preemptive ? 1 : 0;
  double shot_ms = 0.0;
  cli.option("--shots", p.shots, "shots (the loop's tasks), owned in blocks").show_default().at_least(1);
  cli.option("--nx", p.nx, "grid points along x").show_default();
  cli.option("--ny", p.ny, "grid points along y").show_default();
  cli.option("--nz", p.nz, "grid points in depth").show_default();
  cli.option("--time-steps", p.time_steps, "time steps of a shot").show_default();
  cli.option("--receivers", p.receivers, "receivers per side of the surface grid").show_default();
  cli.option("--radius", radius, "A2WS ring radius R: auto (20% of the ranks) or >= 1").show_default();
  cli.option("--preemptive", preemptive, "A2WS: steal from the first finished task on (1) or when out of work (0)")
      .show_default();
  cli.option("--shot-ms", shot_ms,
             "a shot lasts this long at speed 1 (it sleeps after its computation; times --speeds' slowdown); "
             "0: as long as its computation")
      .show_default()
      .at_least(0);
  ctx.parse(cli, argc, argv);
  p.validate(ctx.size());
  lb4mpi::StealOptions opt = owned.options(ctx.size());
  opt.radius = parse_radius(radius, ctx.size());
  opt.preemptive = preemptive != 0;
  opt.origin["radius"] = "--radius " + radius;
  opt.validate(ctx.size());
  // Heterogeneity emulated here (see the header), not by the library.
  const std::vector<double> speeds = opt.speeds;
  double slowdown = 1.0;
  if (!speeds.empty()) slowdown = *std::max_element(speeds.begin(), speeds.end()) / speeds[static_cast<std::size_t>(ctx.rank())];
  lb4mpi::StealOptions loop_opt = opt;
  loop_opt.speeds.clear();

  const sei::Model model = sei::make_model(p);
  const lb4mpi::Index first = apps::block_start(p.shots, ctx.size(), ctx.rank());
  const lb4mpi::Index last = apps::block_start(p.shots, ctx.size(), ctx.rank() + 1);
  std::vector<std::uint64_t> traces(static_cast<std::size_t>(last - first));
  std::vector<float> scratch, samples;
  const auto steps = apps::run_owned_steps(ctx, owned.repeat(), [&] {
    apps::OwnedStep s;
    s.report = lb4mpi::owned_for(ctx.comm(), first, last, lb4mpi::NoData{},
                                 lb4mpi::ArrayData<std::uint64_t>(traces), loop_opt,
                                 [&](lb4mpi::Chunk c, lb4mpi::NoView, std::span<std::uint64_t> out) {
                                   for (std::size_t k = 0; k < out.size(); ++k) {
                                     const auto t0 = std::chrono::steady_clock::now();
                                     const sei::Shot shot = sei::shot_of(p, c.begin + static_cast<lb4mpi::Index>(k));
                                     out[k] = sei::run_shot(model, shot, scratch, samples);
                                     if (shot_ms > 0.0) {
                                       std::this_thread::sleep_until(
                                           t0 + std::chrono::duration<double, std::milli>(shot_ms * slowdown));
                                     } else if (slowdown > 1.0) {
                                       std::this_thread::sleep_for((std::chrono::steady_clock::now() - t0) *
                                                                   (slowdown - 1.0));
                                     }
                                   }
                                 });
    for (std::size_t k = 0; k < traces.size(); ++k) {
      s.checksum += apps::mix_result(static_cast<std::uint64_t>(first) + k, traces[k]);
    }
    return s;
  });

  auto summary = apps::owned_summary(ctx, "seismic", opt, p.shots, steps);
  summary["params"] = {{"nx", p.nx},
                       {"ny", p.ny},
                       {"nz", p.nz},
                       {"time_steps", p.time_steps},
                       {"receivers", p.receivers},
                       {"radius", opt.radius},
                       {"preemptive", opt.preemptive},
                       {"speeds", speeds},
                       {"speed_emulation", "sleep"},
                       {"shot_ms", shot_ms}};
  apps::print_summary(ctx, summary);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return apps::run_app("lb4mpi-seismic", argc, argv, [&](apps::AppContext& ctx) { return run(ctx, argc, argv); });
}
