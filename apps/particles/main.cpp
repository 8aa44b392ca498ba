// lb4mpi-particles: particles as objects (a label, a variable number of
// charges: not trivially copyable), owned in blocks and balanced by work
// stealing; a stolen chunk's particles travel serialized with
// lb4mpi::serializer<Particle> (`000` §4.1.6), and their energies come back
// to the owner as an array. Particles near x = 0 take the most time steps
// (apps/particles/particles_kernel.hpp): the first ranks carry most work.
//
//   mpiexec -n 4 lb4mpi-particles --particles 4000 --balancer steal --steal-amount 50%
//
// The summary of apps/common/owned.hpp; the checksum is the same for every
// rank count, balancer, steal amount and victim selection.
#include <vector>

#include "common/app.hpp"
#include "common/mix.hpp"
#include "common/owned.hpp"
#include "common/summary.hpp"
#include "particles_kernel.hpp"

namespace apps = lb4mpi::apps;
namespace pt = lb4mpi::apps::particles;

// How a Particle travels: lb4mpi's customization point.
template <>
struct lb4mpi::serializer<pt::Particle> {
  static void save(ByteWriter& w, const pt::Particle& q) {
    w.put(q.id);
    w.put(q.x);
    w.put(q.v);
    w.put(q.charges);
    w.put(std::string_view(q.label));
  }
  static pt::Particle load(ByteReader& r) {
    pt::Particle q;
    q.id = r.get<std::uint64_t>();
    q.x = r.get<std::array<double, 3>>();
    q.v = r.get<std::array<double, 3>>();
    q.charges = r.get_vector<double>();
    q.label = r.get_string();
    return q;
  }
};

namespace {

int run(apps::AppContext& ctx, int argc, char** argv) {
  apps::Cli cli("Particles as serialized objects, balanced by work stealing", ctx.name());
  apps::OwnedCli owned(cli, lb4mpi::StealOptions::from_env());
  pt::Params p;
  cli.option("--particles", p.count, "N: particles (the loop's iterations, owned in blocks)").show_default().at_least(1);
  cli.option("--steps", p.steps, "mean time steps of a particle").show_default().at_least(1);
  cli.option("--seed", p.seed, "seed of the particles").show_default();
  ctx.parse(cli, argc, argv);
  p.validate(ctx.size());
  const lb4mpi::StealOptions opt = owned.options(ctx.size());

  const lb4mpi::Index first = apps::block_start(p.count, ctx.size(), ctx.rank());
  const lb4mpi::Index last = apps::block_start(p.count, ctx.size(), ctx.rank() + 1);
  std::vector<pt::Particle> mine;
  for (lb4mpi::Index i = first; i < last; ++i) mine.push_back(pt::make_particle(p, i));
  std::vector<double> energy(mine.size());
  const auto steps = apps::run_owned_steps(ctx, owned.repeat(), [&] {
    apps::OwnedStep s;
    s.report = lb4mpi::owned_for(ctx.comm(), first, last, lb4mpi::ObjectData<pt::Particle>(mine),
                                 lb4mpi::ArrayData<double>(energy), opt,
                                 [&p](lb4mpi::Chunk, std::span<pt::Particle> in, std::span<double> out) {
                                   for (std::size_t k = 0; k < in.size(); ++k) out[k] = pt::simulate(p, in[k]);
                                 });
    for (std::size_t k = 0; k < mine.size(); ++k) s.checksum += apps::mix_result(mine[k].id, pt::bits_of(energy[k]));
    return s;
  });
  auto summary = apps::owned_summary(ctx, "particles", opt, p.count, steps);
  summary["params"] = {{"steps", p.steps}, {"seed", p.seed}};
  apps::print_summary(ctx, summary);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return apps::run_app("lb4mpi-particles", argc, argv, [&](apps::AppContext& ctx) { return run(ctx, argc, argv); });
}
