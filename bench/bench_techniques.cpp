// Cost of one chunk calculation, for every technique.
//
//   recursive/NAME  ChunkCalculator::next(rank), ranks asking round-robin
//                   (what a coordinator does per request, CCA);
//   recursive+record/NAME  adaptive techniques: next(rank) plus record() of
//                   the chunk's timing, the coordinator's whole feedback cycle;
//   closed/NAME     ChunkCalculator::closed_size(step) (what each rank does
//                   per chunk under DCA), for techniques with a closed form.
//
// N = 10^9 iterations, P = 256 ranks. Adaptive techniques first see two
// measured chunks from each of the 256 ranks (ranks of 4 different speeds), so
// their statistics are complete before timing starts. When a loop is fully
// scheduled it is restarted; the restart is timed too, spread over the
// loop's chunks (the `restarts` counter says how often).
// The reported time per iteration is nanoseconds per chunk.
//
//   build/release/bench/bench_techniques --benchmark_repetitions=5
//       --benchmark_report_aggregates_only=true   (one command line)
#include <benchmark/benchmark.h>

#include <cstdint>
#include <string>
#include <vector>

#include "lb4mpi/techniques/chunk_calculator.hpp"
#include "lb4mpi/techniques/params.hpp"
#include "lb4mpi/techniques/perf_stats.hpp"
#include "lb4mpi/techniques/technique.hpp"

namespace {

constexpr lb4mpi::Index kIterations = 1'000'000'000;
constexpr int kRanks = 256;

lb4mpi::ChunkCalculator make_calculator(lb4mpi::Technique t) {
  lb4mpi::ChunkCalculator calc(t, {kIterations, kRanks}, lb4mpi::TechniqueParams{});
  if (lb4mpi::info(t).adaptive) {
    // Two chunks of 1000 iterations per rank (so sigma is defined); ranks of
    // four speeds, 1, 1.5, 2, 2.5 us per iteration, and a little noise.
    for (int round = 0; round < 2; ++round) {
      for (int r = 0; r < kRanks; ++r) {
        const double per_iteration = 1e-6 * (1.0 + 0.5 * (r % 4)) * (round == 0 ? 0.98 : 1.02);
        lb4mpi::ChunkTiming timing;
        timing.rank = r;
        timing.size = 1000;
        timing.work_time = 1000 * per_iteration;
        timing.elapsed_time = timing.work_time * 1.05;
        calc.record(timing);
      }
    }
  }
  return calc;
}

void bench_recursive(benchmark::State& state, lb4mpi::Technique t) {
  lb4mpi::ChunkCalculator calc = make_calculator(t);
  int rank = 0;
  std::int64_t restarts = 0;
  for (auto _ : state) {
    auto chunk = calc.next(rank);
    if (!chunk) {
      calc.restart();
      ++restarts;
      chunk = calc.next(rank);
    }
    benchmark::DoNotOptimize(chunk);
    rank = rank + 1 == kRanks ? 0 : rank + 1;
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["restarts"] = static_cast<double>(restarts);
}

// Adaptive techniques: the whole feedback cycle of one chunk, next() and
// record() of its (simulated) timing, as the coordinator does it.
void bench_recursive_record(benchmark::State& state, lb4mpi::Technique t) {
  lb4mpi::ChunkCalculator calc = make_calculator(t);
  int rank = 0;
  std::int64_t restarts = 0;
  for (auto _ : state) {
    auto chunk = calc.next(rank);
    if (!chunk) {
      calc.restart();
      ++restarts;
      chunk = calc.next(rank);
    }
    lb4mpi::ChunkTiming timing;
    timing.rank = rank;
    timing.size = chunk->size;
    timing.work_time = 1e-6 * (1.0 + 0.5 * (rank % 4)) * static_cast<double>(chunk->size);
    timing.elapsed_time = timing.work_time * 1.05;
    calc.record(timing);
    rank = rank + 1 == kRanks ? 0 : rank + 1;
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["restarts"] = static_cast<double>(restarts);
}

void bench_closed(benchmark::State& state, lb4mpi::Technique t) {
  const lb4mpi::ChunkCalculator calc = make_calculator(t);
  // The steps of one full loop (at most 10^6 of them): cycle through them.
  lb4mpi::Index steps = 0;
  for (lb4mpi::Index scheduled = 0; scheduled < kIterations && steps < 1'000'000; ++steps) {
    scheduled += calc.closed_size(steps);
  }
  lb4mpi::Index step = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(calc.closed_size(step));
    step = step + 1 == steps ? 0 : step + 1;
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["steps"] = static_cast<double>(steps);
}

}  // namespace

int main(int argc, char** argv) {
  for (const auto& ti : lb4mpi::all_techniques()) {
    const std::string name(ti.name);
    benchmark::RegisterBenchmark(("recursive/" + name).c_str(), bench_recursive, ti.technique);
    if (ti.adaptive) {
      benchmark::RegisterBenchmark(("recursive+record/" + name).c_str(), bench_recursive_record,
                                   ti.technique);
    }
    if (ti.has_closed_form) {
      benchmark::RegisterBenchmark(("closed/" + name).c_str(), bench_closed, ti.technique);
    }
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
