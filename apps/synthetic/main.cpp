// lb4mpi-synthetic: a loop whose iterations take known times, drawn per
// iteration from a distribution (apps/synthetic/synthetic_kernel.hpp) and spent
// spinning or sleeping; scheduled across the MPI ranks by lb4mpi.
//
//   mpiexec -n 4 lb4mpi-synthetic --iterations 20000 --distribution gamma --mean-us 100 --cov 1
//
// Besides the JSON summary of apps/common/summary.hpp it reports
//   lower_bound_s      max(sum t_i / P, max t_i) for one execution of the loop
//   t_par_over_bound   t_par_s / (repeat * lower_bound_s)
// (each step also has its own t_par_over_bound) and `params`. The result of
// iteration i is its drawn time in ns.

#include <optional>
#include <string>

#include "common/app.hpp"
#include "common/cli.hpp"
#include "common/mix.hpp"
#include "common/steps.hpp"
#include "common/summary.hpp"
#include "common/work.hpp"
#include "synthetic_kernel.hpp"

namespace apps = lb4mpi::apps;
namespace syn = lb4mpi::apps::synthetic;

namespace {

// The c.o.v. a distribution gets when --cov is not given.
double default_cov(syn::Distribution d) {
  switch (d) {
    case syn::Distribution::Constant:
      return 0.0;
    case syn::Distribution::Uniform:
      return 0.5;
    case syn::Distribution::Normal:
      return 0.3;
    case syn::Distribution::Exponential:
      return 1.0;
    case syn::Distribution::Gamma:
      return 1.0;
  }
  return 0.0;
}

int run(apps::AppContext& ctx, int argc, char** argv) {
  const lb4mpi::Options base = lb4mpi::Options::from_env();
  apps::Cli cli("Synthetic loop with known iteration times, load-balanced across MPI ranks by lb4mpi", ctx.name());
  apps::CommonCli common(cli, base);
  lb4mpi::Index n = 20000;
  std::string distribution = "exponential";
  std::optional<double> cov;
  std::string exec = "spin";
  syn::Params params;
  cli.option("--iterations", n, "N: loop iterations")
      .show_default()
      .at_least(1);
  cli.option("--distribution", distribution, "constant|uniform|normal|exponential|gamma")
      .show_default();
  cli.option("--mean-us", params.mean_us, "M: mean iteration time [us]").show_default();
  cli.option(
      "--cov", cov,
      "C: coefficient of variation (default: uniform 0.5, normal 0.3, exponential 1, gamma 1)");
  cli.option("--seed", params.seed, "seed of the iteration times").show_default();
  cli.option("--exec", exec, "spin|sleep: how an iteration spends its time")
      .show_default();
  ctx.parse(cli, argc, argv);

  const lb4mpi::Options opt = common.options();
  try {
    params.distribution = syn::parse_distribution(distribution);
  } catch (const lb4mpi::Error& e) {
    throw lb4mpi::Error(std::string("--distribution: ") + e.what());
  }
  syn::Exec how{};
  try {
    how = syn::parse_exec(exec);
  } catch (const lb4mpi::Error& e) {
    throw lb4mpi::Error(std::string("--exec: ") + e.what());
  }
  params.cov = cov.value_or(default_cov(params.distribution));
  params.validate();

  const auto native = how == syn::Exec::Spin ? apps::PieceWork::Native::Spin : apps::PieceWork::Native::Sleep;
  const auto steps = apps::run_steps(ctx, n, opt, common.repeat(), [&](lb4mpi::Chunk c) {
    std::uint64_t sum = 0;
    apps::PieceWork work(native);  // the iterations' times: simulated per piece in the simulation build
    for (lb4mpi::Index i = c.begin; i < c.end(); ++i) {
      const std::int64_t ns = syn::iteration_time_ns(params, i);
      work.spend(static_cast<double>(ns) * 1e-9);
      sum += apps::mix_result(static_cast<std::uint64_t>(i), static_cast<std::uint64_t>(ns));
    }
    return sum;
  });

  auto summary = apps::make_summary(ctx, "synthetic", opt, n, steps);
  if (ctx.rank() == 0) {
    const syn::Bound b = syn::lower_bound(params, n, ctx.size());
    summary["lower_bound_s"] = b.lower_bound_s;
    summary["t_par_over_bound"] =
        summary["t_par_s"].get<double>() / (static_cast<double>(steps.size()) * b.lower_bound_s);
    const double greedy = syn::greedy_makespan_s(params, n, ctx.size());
    summary["greedy_makespan_s"] = greedy;
    summary["t_par_over_greedy"] = summary["t_par_s"].get<double>() / (static_cast<double>(steps.size()) * greedy);
    summary["total_time_s"] = b.total_s;
    summary["max_time_s"] = b.max_s;
    for (auto& s : summary["steps"])
      s["t_par_over_bound"] = s["t_par_s"].get<double>() / b.lower_bound_s;
  }
  summary["params"] = {{"distribution", std::string(syn::name(params.distribution))},
                       {"mean_us", params.mean_us},
                       {"cov", params.cov},
                       {"seed", params.seed},
                       {"exec", std::string(syn::name(how))}};
  apps::print_summary(ctx, summary);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return apps::run_app("lb4mpi-synthetic", argc, argv,
                       [&](apps::AppContext& ctx) { return run(ctx, argc, argv); });
}
