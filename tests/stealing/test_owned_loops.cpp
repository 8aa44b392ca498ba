// Owned loops under MPI (label stealing): every iteration runs exactly once,
// with the items that belong to it, and its results reach the owner — for
// every balancer built, victim selection and steal amount; steals racing
// the victim's own progress; victims with nothing left; bad descriptions
// refused on every rank. One mpiexec launch per rank count runs them all.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "lb4mpi/stealing.hpp"
#include "runtime/clock.hpp"
#include "runtime/mpi.hpp"
#include "runtime/waiting.hpp"
#include "../runtime/mpi_check.hpp"

namespace lb4mpi::test {
namespace {

// The item of global iteration i, and the result the body computes from it.
std::int64_t item_of(Index i) { return i * 7 + 3; }
double result_of(Index i, std::int64_t item) { return static_cast<double>(item) * 0.5 + static_cast<double>(i % 13); }

/// How the iterations are spread: rank r owns share[r] of them (weights),
/// and iterations of rank `heavy` cost `heavy_us` each, others `light_us`.
struct Layout {
  Index n = 0;
  std::vector<Index> first;  // per rank
  std::vector<Index> count;
};

Layout layout(Index n, const std::vector<int>& weights) {
  Layout l;
  l.n = n;
  int total = 0;
  for (int w : weights) total += w;
  Index at = 0;
  for (std::size_t r = 0; r < weights.size(); ++r) {
    const Index k = r + 1 == weights.size() ? n - at : n * weights[r] / total;
    l.first.push_back(at);
    l.count.push_back(k);
    at += k;
  }
  return l;
}

// Weights: rank 0 owns most (it is the victim), the last rank nothing.
std::vector<int> skewed(int p) {
  std::vector<int> w(static_cast<std::size_t>(p), 1);
  w[0] = 3 * p;
  if (p > 1) w.back() = 0;
  return w;
}

struct Outcome {
  StealReport report;
  Index wrong_count = 0;    // iterations not run exactly once (all ranks)
  Index wrong_items = 0;    // a body saw an item that is not its iteration's (all ranks)
  Index wrong_results = 0;  // an owner's result differs from the serial one (all ranks)
};

Index sum_all(Index v) {
  Index s = 0;
  rt::allreduce(&v, &s, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  return s;
}

/// Runs an owned loop over `l` with array items and array results; the
/// owner's iterations cost `own_us` each on rank 0, `other_us` elsewhere.
Outcome run_arrays(const Layout& l, const StealOptions& opt, double heavy_us, double light_us) {
  const int me = world_rank();
  const Index first = l.first[static_cast<std::size_t>(me)];
  const Index count = l.count[static_cast<std::size_t>(me)];
  std::vector<std::int64_t> items(static_cast<std::size_t>(count));
  for (Index k = 0; k < count; ++k) items[static_cast<std::size_t>(k)] = item_of(first + k);
  std::vector<double> results(static_cast<std::size_t>(count), -1.0);
  std::vector<std::int32_t> ran(static_cast<std::size_t>(l.n), 0);
  Index wrong_items = 0;
  const Index heavy_last = l.first[0] + l.count[0];
  Outcome o;
  o.report = owned_for(MPI_COMM_WORLD, first, first + count, ArrayData<std::int64_t>(items), ArrayData<double>(results),
                       opt, [&](Chunk c, std::span<std::int64_t> in, std::span<double> out) {
                         EXPECT_EQ(in.size(), static_cast<std::size_t>(c.size));
                         for (Index k = 0; k < c.size; ++k) {
                           const Index i = c.begin + k;
                           ++ran[static_cast<std::size_t>(i)];
                           if (in[static_cast<std::size_t>(k)] != item_of(i)) ++wrong_items;
                           out[static_cast<std::size_t>(k)] = result_of(i, in[static_cast<std::size_t>(k)]);
                           rt::spin_for_us(i < heavy_last ? heavy_us : light_us);
                         }
                       });
  Index wrong_results = 0;
  for (Index k = 0; k < count; ++k) {
    if (results[static_cast<std::size_t>(k)] != result_of(first + k, item_of(first + k))) ++wrong_results;
  }
  o.wrong_count = not_run_once(ran);
  o.wrong_items = sum_all(wrong_items);
  o.wrong_results = sum_all(wrong_results);
  return o;
}

void expect_correct(const Outcome& o, const Layout& l, const std::string& what) {
  EXPECT_EQ(o.wrong_count, 0) << what;
  EXPECT_EQ(o.wrong_items, 0) << what;
  EXPECT_EQ(o.wrong_results, 0) << what;
  EXPECT_EQ(o.report.loop.iterations(), l.n) << what;
  ASSERT_EQ(static_cast<int>(o.report.ranks.size()), world_size()) << what;
  Index given = 0;
  for (const RankSteals& r : o.report.ranks) given += r.iterations_given;
  EXPECT_EQ(given, o.report.iterations_stolen()) << what;
  EXPECT_GE(o.report.steal_attempts(), o.report.successful_steals()) << what;
  EXPECT_GT(o.report.loop.t_par, 0.0) << what;
}

std::vector<StealAmount> every_amount() {
  std::vector<StealAmount> out = {StealAmount::of_ratio(0.25), StealAmount::of_ratio(0.35),
                                  StealAmount::of_ratio(0.5)};
  for (const TechniqueInfo& t : all_techniques()) {
    if (!t.adaptive) out.push_back(StealAmount::of(t.technique));
  }
  return out;
}

// Every victim selection x steal amount, relayed stealing, rank 0 owning
// most of the work and the last rank none.
TEST(OwnedLoops, EveryVictimAndAmountRunsEachIterationOnceWithItsItems) {
  const int p = world_size();
  const Layout l = layout(60 * p, skewed(p));
  Index stolen = 0;
  for (Victim v : {Victim::Random, Victim::Locality, Victim::NaiveLocality}) {
    for (const StealAmount& a : every_amount()) {
      StealOptions opt;
      opt.balancer = Balancer::Steal;
      opt.victim = v;
      opt.amount = a;
      opt.ranks_per_node = v == Victim::Locality ? 2 : 0;
      const Outcome o = run_arrays(l, opt, 20.0, 1.0);
      expect_correct(o, l, std::string(name(v)) + " / " + a.text());
      stolen += o.report.iterations_stolen();
    }
  }
  if (p > 1) {
    EXPECT_GT(stolen, 0);  // the rank that owns nothing got work
  }
}

// No balancing: each rank runs exactly what it owns.
TEST(OwnedLoops, NoBalancingRunsOwnIterationsOnly) {
  const int p = world_size();
  const Layout l = layout(50 * p, skewed(p));
  StealOptions opt;
  opt.balancer = Balancer::None;
  const Outcome o = run_arrays(l, opt, 5.0, 1.0);
  expect_correct(o, l, "none");
  EXPECT_EQ(o.report.successful_steals(), 0);
  for (int r = 0; r < p; ++r) {
    EXPECT_EQ(o.report.loop.ranks[static_cast<std::size_t>(r)].iterations, l.count[static_cast<std::size_t>(r)]);
  }
}

// The owned loop's waits follow its wait policy (LB4MPI_WAIT, StealOptions::wait),
// as every loop's do: before, they kept the last loop's policy, or Yield.
TEST(OwnedLoops, WaitPolicyIsTheLoops) {
  const int p = world_size();
  const Layout l = layout(40 * p, skewed(p));
  for (const auto& [wait, policy] : {std::pair{Wait::Block, rt::WaitPolicy::Block},
                                     std::pair{Wait::Spin, rt::WaitPolicy::Spin},
                                     std::pair{Wait::Yield, rt::WaitPolicy::Yield}}) {
    StealOptions opt;
    opt.wait = wait;
    const Outcome o = run_arrays(l, opt, 5.0, 1.0);
    expect_correct(o, l, std::string("wait ") + std::string(name(wait)));
    EXPECT_EQ(rt::wait_policy(), policy) << name(wait);
  }
}

// The owner cuts its iterations into technique-sized chunks (LB4MPI_SCHEDULING).
TEST(OwnedLoops, OwnerChunksFromATechnique) {
  const int p = world_size();
  const Layout l = layout(80 * p, skewed(p));
  for (Technique t : {Technique::GSS, Technique::FAC2, Technique::SS, Technique::STATIC}) {
    StealOptions opt;
    opt.chunking = t;
    opt.amount = StealAmount::of(Technique::GSS);
    const Outcome o = run_arrays(l, opt, 10.0, 1.0);
    expect_correct(o, l, std::string("chunking ") + std::string(name(t)));
  }
}

// Emulated heterogeneity (speeds): every iteration still once.
TEST(OwnedLoops, SpeedsSlowRanksDown) {
  const int p = world_size();
  const Layout l = layout(30 * p, skewed(p));
  StealOptions opt;
  for (int r = 0; r < p; ++r) opt.speeds.push_back(r == 0 ? 0.5 : 1.0);  // rank 0 runs at half speed
  const Outcome o = run_arrays(l, opt, 10.0, 1.0);
  expect_correct(o, l, "speeds");
}

// Steals racing the victim's own progress: the owner looks at its messages
// after every iteration and thieves take one iteration at a time, so
// steals from the back meet the owner's front all the time; rank 0 owns
// everything.
TEST(OwnedLoops, StealsRacingTheVictimsProgress) {
  const int p = world_size();
  std::vector<int> w(static_cast<std::size_t>(p), 0);
  w[0] = 1;
  const Layout l = layout(300, w);
  for (const StealAmount& a : {StealAmount::of(Technique::SS), StealAmount::of_ratio(0.5)}) {
    StealOptions opt;
    opt.break_after = 1;
    opt.amount = a;
    const Outcome o = run_arrays(l, opt, 60.0, 60.0);
    expect_correct(o, l, "race / " + a.text());
    if (p > 1) {
      EXPECT_GT(o.report.successful_steals(), 0) << a.text();
    }
  }
}

// A victim with nothing left: rank 1 owns one long iteration, which it has
// begun when the relayed requests reach it, so it rejects them; the loop
// still ends with every iteration once.
TEST(OwnedLoops, VictimWithNothingLeftRejects) {
  const int p = world_size();
  ASSERT_GE(p, 2) << "needs a thief: stealing_p2..p4 run it, stealing_p1 leaves it out";
  std::vector<int> w(static_cast<std::size_t>(p), 0);
  w[1] = 1;
  const Layout l = layout(1, w);
  StealOptions opt;
  const Outcome o = run_arrays(l, opt, 20000.0, 20000.0);
  expect_correct(o, l, "nothing left");
  Index rejects = 0;
  for (const RankSteals& r : o.report.ranks) rejects += r.rejects;
  EXPECT_GE(rejects, 1);
  EXPECT_EQ(o.report.successful_steals(), 0);
}

// Cubes sliced along x, with halos in y and z that must not travel: the
// body reads its slices through CubeView and writes one result per slice.
TEST(OwnedLoops, CubeSlicesTravelAsSubarrays) {
  const int p = world_size();
  const Layout l = layout(12 * p, skewed(p));
  const int me = world_rank();
  const Index first = l.first[static_cast<std::size_t>(me)];
  const int nx = static_cast<int>(l.count[static_cast<std::size_t>(me)]);
  const int ny = 5, nz = 4;  // interior; the cube has a halo of 1 in y and z
  const std::array<int, 3> dims = {nx + 2, ny + 2, nz + 2};
  auto value = [](Index x, int y, int z) { return static_cast<double>(x * 1000 + y * 10 + z); };
  std::vector<double> cube(static_cast<std::size_t>(dims[0] * dims[1] * dims[2]), -7.0);  // halo: -7
  for (int x = 0; x < nx; ++x)
    for (int y = 0; y < ny; ++y)
      for (int z = 0; z < nz; ++z)
        cube[static_cast<std::size_t>(((x + 1) * dims[1] + y + 1) * dims[2] + z + 1)] = value(first + x, y, z);
  std::vector<double> sums(static_cast<std::size_t>(nx), 0.0);
  for (const StealAmount& a : {StealAmount::of_ratio(0.5), StealAmount::of(Technique::FAC2)}) {
    StealOptions opt;
    opt.amount = a;
    opt.break_after = 1;
    Index wrong = 0;
    std::vector<std::int32_t> ran(static_cast<std::size_t>(l.n), 0);
    owned_for(MPI_COMM_WORLD, first, first + nx, CubeData<double>(cube.data(), dims, {1, 1, 1}, {nx, ny, nz}),
              ArrayData<double>(sums), opt, [&](Chunk c, CubeView<double> v, std::span<double> out) {
                EXPECT_EQ(v.nx, c.size);
                for (Index x = 0; x < c.size; ++x) {
                  ++ran[static_cast<std::size_t>(c.begin + x)];
                  double s = 0.0;
                  for (int y = 0; y < v.ny; ++y)
                    for (int z = 0; z < v.nz; ++z) {
                      if (v(x, y, z) != value(c.begin + x, y, z)) ++wrong;
                      s += v(x, y, z);
                    }
                  out[static_cast<std::size_t>(x)] = s;
                  rt::spin_for_us(c.begin < l.count[0] ? 200.0 : 5.0);
                }
              });
    EXPECT_EQ(not_run_once(ran), 0) << a.text();
    EXPECT_EQ(sum_all(wrong), 0) << a.text();
    Index bad = 0;
    for (int x = 0; x < nx; ++x) {
      double s = 0.0;
      for (int y = 0; y < ny; ++y)
        for (int z = 0; z < nz; ++z) s += value(first + x, y, z);
      if (sums[static_cast<std::size_t>(x)] != s) ++bad;
    }
    EXPECT_EQ(sum_all(bad), 0) << a.text();
  }
}

// Objects that are not trivially copyable travel serialized (serializer<T>
// through T's save/load); their results come back as an array.
struct Particle {
  std::string label;
  std::vector<double> history;
  void save(ByteWriter& w) const {
    w.put(std::string_view(label));
    w.put(history);
  }
  static Particle load(ByteReader& r) {
    Particle p;
    p.label = r.get_string();
    p.history = r.get_vector<double>();
    return p;
  }
};

Particle particle_of(Index i) {
  Particle p;
  p.label = "p" + std::to_string(i);
  p.history.assign(static_cast<std::size_t>(i % 5 + 1), static_cast<double>(i));
  return p;
}

TEST(OwnedLoops, ObjectsTravelSerialized) {
  const int p = world_size();
  const Layout l = layout(40 * p, skewed(p));
  const int me = world_rank();
  const Index first = l.first[static_cast<std::size_t>(me)];
  const Index count = l.count[static_cast<std::size_t>(me)];
  std::vector<Particle> parts;
  for (Index k = 0; k < count; ++k) parts.push_back(particle_of(first + k));
  std::vector<double> out(static_cast<std::size_t>(count), 0.0);
  std::vector<std::int32_t> ran(static_cast<std::size_t>(l.n), 0);
  Index wrong = 0;
  StealOptions opt;
  opt.amount = StealAmount::of(Technique::GSS);
  owned_for(MPI_COMM_WORLD, first, first + count, ObjectData<Particle>(parts), ArrayData<double>(out), opt,
            [&](Chunk c, std::span<Particle> in, std::span<double> res) {
              for (Index k = 0; k < c.size; ++k) {
                const Particle& q = in[static_cast<std::size_t>(k)];
                const Particle want = particle_of(c.begin + k);
                if (q.label != want.label || q.history != want.history) ++wrong;
                ++ran[static_cast<std::size_t>(c.begin + k)];
                res[static_cast<std::size_t>(k)] = static_cast<double>(q.history.size()) + q.history.front();
                rt::spin_for_us(c.begin < l.count[0] ? 50.0 : 2.0);
              }
            });
  EXPECT_EQ(not_run_once(ran), 0);
  EXPECT_EQ(sum_all(wrong), 0);
  Index bad = 0;
  for (Index k = 0; k < count; ++k) {
    const Particle want = particle_of(first + k);
    if (out[static_cast<std::size_t>(k)] != static_cast<double>(want.history.size()) + want.history.front()) ++bad;
  }
  EXPECT_EQ(sum_all(bad), 0);
}

// `000` Table 4.2's iteration CSV: every rank writes the chunks it executed,
// its own and stolen ones; their sizes sum to its iterations.
TEST(OwnedLoops, IterationsInfoListsEveryChunkARankRan) {
  const int p = world_size();
  const Layout l = layout(40 * p, skewed(p));
  const std::string dir = "owned_iterations_p" + std::to_string(p);
  StealOptions opt;
  opt.iterations_info = true;
  opt.iterations_dir = dir;
  const Outcome o = run_arrays(l, opt, 10.0, 1.0);
  expect_correct(o, l, "iterations_info");
  std::ifstream f(dir + "/iterations_rank" + std::to_string(world_rank()) + ".csv");
  ASSERT_TRUE(f.good());
  std::string line;
  std::getline(f, line);
  EXPECT_EQ(line, "loop,step,technique,start,size,t_begin_s,t_end_s");
  Index sum = 0;
  while (std::getline(f, line)) {
    std::stringstream row(line);
    std::string field;
    for (int k = 0; k < 5 && std::getline(row, field, ','); ++k) {
      if (k == 4) sum += std::stoll(field);
    }
  }
  EXPECT_EQ(sum, o.report.loop.ranks[static_cast<std::size_t>(world_rank())].iterations);
}

// ---- bad input: the same error on every rank, before any iteration

void expect_refused(const std::function<StealReport()>& f, const std::string& needle) {
  int ran = 0;
  expect_same_error_everywhere([&] { (void)f(); ran = 1; }, needle);
  EXPECT_EQ(ran, 0);
}

TEST(OwnedLoops, BadDescriptionsAreRefusedOnEveryRank) {
  const int me = world_rank();
  const int p = world_size();
  std::vector<std::int64_t> items(10, 1);
  std::vector<double> out(10, 0.0);
  const Index first = 10 * me;
  StealOptions opt;
  auto body = [](Chunk, std::span<std::int64_t>, std::span<double>) {};
  // One rank's items do not match its range.
  expect_refused(
      [&] {
        return owned_for(MPI_COMM_WORLD, first, first + (me == p - 1 ? 9 : 10), ArrayData<std::int64_t>(items),
                         ArrayData<double>(out), opt, body);
      },
      "items, but the rank owns 9 iterations");
  // A null array with items.
  expect_refused(
      [&] {
        return owned_for(MPI_COMM_WORLD, first, first + 10, ArrayData<std::int64_t>(me == 0 ? nullptr : items.data(), 10),
                         ArrayData<double>(out), opt, body);
      },
      "null pointer");
  // A cube box outside its cube.
  std::vector<double> cube(4 * 4 * 4, 0.0);
  expect_refused(
      [&] {
        return owned_for(MPI_COMM_WORLD, 3 * me, 3 * me + 3, CubeData<double>(cube.data(), {4, 4, 4}, {2, 0, 0}, {3, 4, 4}),
                         opt, [](Chunk, CubeView<double>) {});
      },
      "does not fit its cube");
  if (p > 1) {
    // Ranks that disagree on the items' shape.
    std::vector<float> floats(10, 0.0f);
    expect_refused(
        [&] {
          if (me == 0) {
            return owned_for(MPI_COMM_WORLD, first, first + 10, ArrayData<float>(floats), opt,
                             [](Chunk, std::span<float>) {});
          }
          return owned_for(MPI_COMM_WORLD, first, first + 10, ArrayData<std::int64_t>(items), opt,
                           [](Chunk, std::span<std::int64_t>) {});
        },
        "input data");
    // Ranges that overlap.
    expect_refused(
        [&] {
          return owned_for(MPI_COMM_WORLD, 5 * me, 5 * me + 10, ArrayData<std::int64_t>(items), ArrayData<double>(out),
                           opt, body);
        },
        "overlap");
  }
  // A bad ratio, an adaptive steal technique, a coordinator outside the
  // communicator. (Every balancer is built: an unknown balancer's name is
  // refused by parse_balancer, tested with LB4MPI_BALANCER in the C API test
  // and with --balancer in apps.pisolver.bad_balancer.)
  for (auto [change, needle] : std::vector<std::pair<std::function<void(StealOptions&)>, std::string>>{
           {[](StealOptions& o) { o.amount = StealAmount::of_ratio(1.5); }, "steal ratio must be in (0, 100]"},
           {[](StealOptions& o) { o.amount = StealAmount::of(Technique::AF); }, "non-adaptive technique"},
           {[](StealOptions& o) { o.coordinator = 99; }, "outside the communicator"},
       }) {
    StealOptions bad;
    change(bad);
    expect_refused(
        [&] {
          return owned_for(MPI_COMM_WORLD, first, first + 10, ArrayData<std::int64_t>(items), ArrayData<double>(out),
                           bad, body);
        },
        needle);
  }
  // After all of that the communicator still works.
  const Outcome o = run_arrays(layout(20 * p, skewed(p)), StealOptions{}, 5.0, 1.0);
  EXPECT_EQ(o.wrong_count, 0);
}

}  // namespace
}  // namespace lb4mpi::test
