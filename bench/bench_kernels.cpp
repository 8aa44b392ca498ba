// The apps' work models (docs/EXPERIMENTS.md, "Work models"): what one unit
// of each kernel's work costs on this machine. The simulation build charges
// every iteration of Mandelbrot, PSIA and Pi-solver + STREAM the time its
// model gives (apps/common/work.hpp); the constants of the models
// (mandelbrot::kSecondsPerPoint/Step, psia::kSecondsPerPoint/InAngle,
// pisolver_stream::kSecondsPerSubstep/Element) are this benchmark's
// counters, measured once:
//
//   build/release/bench/bench_kernels --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
//
// Counter `s_per_unit`: CPU seconds per unit of work (Google Benchmark divides
// rates by the CPU time, so a loaded machine changes them little), where the unit is
//   mandelbrot/point      a point that escapes after one step (count 1): kSecondsPerPoint
//   mandelbrot/step       a step of z <- z^4 + c, in a point of the set (count = threshold): kSecondsPerStep
//   psia/point            a point of the cloud outside the support angle (support 0 degrees): kSecondsPerPoint
//   psia/in_angle         a point within the support angle (180 degrees): kSecondsPerPoint + kSecondsPerInAngle
//   pi/substep            a midpoint term of a Pi slice
//   triad/element         a Triad element, arrays of 3 x 32 MiB (larger than the caches)
#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

#include "mandelbrot/mandelbrot_kernel.hpp"
#include "pisolver_stream/pisolver_stream_kernel.hpp"
#include "psia/psia_kernel.hpp"

namespace {

namespace mb = lb4mpi::apps::mandelbrot;
namespace psia = lb4mpi::apps::psia;
namespace ps = lb4mpi::apps::pisolver_stream;
using lb4mpi::Index;

void per_unit(benchmark::State& state, double units_per_iteration) {
  state.counters["s_per_unit"] = benchmark::Counter(
      static_cast<double>(state.iterations()) * units_per_iteration,
      benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void MandelbrotPoint(benchmark::State& state) {
  std::int32_t sink = 0;
  for (auto _ : state) {
    sink += mb::escape_count(1.9, 1.9, 10000);  // |z1| = |c| > 2: one step
    benchmark::DoNotOptimize(sink);
  }
  per_unit(state, 1.0);
}
BENCHMARK(MandelbrotPoint)->Name("mandelbrot/point");

void MandelbrotStep(benchmark::State& state) {
  constexpr std::int32_t kThreshold = 10000;
  std::int32_t sink = 0;
  for (auto _ : state) {
    sink += mb::escape_count(0.0, 0.0, kThreshold);  // in the set: threshold steps
    benchmark::DoNotOptimize(sink);
  }
  per_unit(state, kThreshold);
}
BENCHMARK(MandelbrotStep)->Name("mandelbrot/step");

void PsiaImages(benchmark::State& state, double support_deg) {
  constexpr Index kPoints = 4096;
  const psia::Cloud cloud = psia::make_cloud(kPoints, 1);
  psia::Params p;
  p.support_angle_deg = support_deg;
  std::vector<std::uint32_t> image(p.bins());
  Index i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(psia::spin_image(cloud, i, p, image));
    i = (i + 1) % kPoints;
  }
  per_unit(state, kPoints);
}
BENCHMARK_CAPTURE(PsiaImages, point, 0.0)->Name("psia/point");
BENCHMARK_CAPTURE(PsiaImages, in_angle, 180.0)->Name("psia/in_angle");

void PiSubstep(benchmark::State& state) {
  ps::PiParams p;
  p.iterations = 1000;
  p.substeps = 10000;
  Index i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(ps::pi_slice(p, i));
    i = (i + 1) % p.iterations;
  }
  per_unit(state, static_cast<double>(p.substeps));
}
BENCHMARK(PiSubstep)->Name("pi/substep");

void TriadElement(benchmark::State& state) {
  ps::TriadParams p;
  p.elements = Index{1} << 22;  // 32 MiB per array
  p.block = 4096;
  const auto e = static_cast<std::size_t>(p.elements);
  std::vector<double> a(e, 0.0), b(e), c(e);
  ps::triad_init(b, c);
  Index i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(ps::triad_block(p, i, a, b, c));
    i = (i + 1) % p.iterations();
  }
  per_unit(state, static_cast<double>(p.block));
}
BENCHMARK(TriadElement)->Name("triad/element");

}  // namespace

BENCHMARK_MAIN();
