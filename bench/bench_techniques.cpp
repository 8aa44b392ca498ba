// Cost of one chunk calculation, for every technique.
//
//   recursive/NAME  ChunkCalculator::next(rank), ranks asking round-robin
//                   (what a coordinator does per request, CCA);
//   recursive+record/NAME  adaptive techniques: next(rank) plus record() of
//                   the chunk's timing, the coordinator's whole feedback cycle;
//   closed/NAME     ChunkCalculator::closed_size(step) (what each rank does
//                   per chunk under DCA), for techniques with a closed form.
//
// N = 10^9 iterations, P = 256 ranks. Adaptive techniques (and WF) first see
// two measured chunks from each of the 256 ranks (ranks of 4 different
// speeds), so their statistics are complete before timing starts. When a loop
// is fully scheduled it is restarted; restart() clears AF's statistics (they
// are per execution), so the restart and a fresh seeding of the statistics
// happen with the timer paused (once per loop: a pause leaks about 0.2 us
// into the timing, < 0.05 ns per chunk for the adaptive techniques with
// their thousands of chunks per loop, 0.8 ns for STATIC's 256). Every
// timed call therefore evaluates the technique's real formula with the
// statistics of all P ranks; before timing, two executions are walked
// through the DCA split (grant) to check that no rank is treated as
// unmeasured.
// Counters: `restarts`, and `chunks_per_loop` (timed calls per restart, when
// a loop was completed).
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

// Two chunks of 1000 iterations per rank (so sigma is defined); ranks of
// four speeds, 1, 1.5, 2, 2.5 us per iteration, and a little noise.
void seed_statistics(lb4mpi::ChunkCalculator& calc) {
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

bool needs_statistics(lb4mpi::Technique t) {
  return lb4mpi::info(t).adaptive || t == lb4mpi::Technique::WF;
}

lb4mpi::ChunkCalculator make_calculator(lb4mpi::Technique t) {
  lb4mpi::ChunkCalculator calc(t, {kIterations, kRanks}, lb4mpi::TechniqueParams{});
  if (needs_statistics(t)) seed_statistics(calc);
  return calc;
}

// The next execution of the loop, with the statistics seeded again (restart
// clears AF's per-execution figures). Not timed.
void restart(benchmark::State& state, lb4mpi::ChunkCalculator& calc, std::int64_t& restarts) {
  state.PauseTiming();
  calc.restart();
  if (needs_statistics(calc.technique())) seed_statistics(calc);
  ++restarts;
  state.ResumeTiming();
}

// Techniques without a closed form: walks two executions through grant()
// (the same rule as next()) and fails the benchmark if any step would treat
// its rank as unmeasured (the min_chunk shortcut instead of the formula).
bool every_step_measured(lb4mpi::Technique t) {
  if (lb4mpi::info(t).has_closed_form) return true;
  lb4mpi::ChunkCalculator calc = make_calculator(t);
  for (int execution = 0; execution < 2; ++execution) {
    int rank = 0;
    while (const auto g = calc.grant(rank)) {
      if (!g->inputs.measured) return false;
      calc.commit(*g, calc.evaluate(*g).size);
      rank = rank + 1 == kRanks ? 0 : rank + 1;
    }
    calc.restart();
    if (needs_statistics(t)) seed_statistics(calc);
  }
  return true;
}

// chunks_per_loop only once a loop was completed (SS, FSC: 10^9 / size
// chunks, more than one run times).
void set_counters(benchmark::State& state, std::int64_t restarts) {
  state.SetItemsProcessed(state.iterations());
  state.counters["restarts"] = static_cast<double>(restarts);
  if (restarts > 0) {
    state.counters["chunks_per_loop"] =
        static_cast<double>(state.iterations()) / static_cast<double>(restarts);
  }
}

void bench_recursive(benchmark::State& state, lb4mpi::Technique t) {
  if (!every_step_measured(t)) {
    state.SkipWithError("a rank without statistics: the benchmark would time the min_chunk shortcut");
    return;
  }
  lb4mpi::ChunkCalculator calc = make_calculator(t);
  int rank = 0;
  std::int64_t restarts = 0;
  for (auto _ : state) {
    auto chunk = calc.next(rank);
    if (!chunk) {
      restart(state, calc, restarts);
      chunk = calc.next(rank);
    }
    benchmark::DoNotOptimize(chunk);
    rank = rank + 1 == kRanks ? 0 : rank + 1;
  }
  set_counters(state, restarts);
}

// Adaptive techniques: the whole feedback cycle of one chunk, next() and
// record() of its (simulated) timing, as the coordinator does it.
void bench_recursive_record(benchmark::State& state, lb4mpi::Technique t) {
  if (!every_step_measured(t)) {
    state.SkipWithError("a rank without statistics: the benchmark would time the min_chunk shortcut");
    return;
  }
  lb4mpi::ChunkCalculator calc = make_calculator(t);
  int rank = 0;
  std::int64_t restarts = 0;
  for (auto _ : state) {
    auto chunk = calc.next(rank);
    if (!chunk) {
      restart(state, calc, restarts);
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
  set_counters(state, restarts);
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
