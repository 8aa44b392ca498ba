// lb4mpi-stress-case: one configuration of the randomized stress run
// (scripts/stress.sh), checked exactly-once.
//
//   LB4MPI_MIN_CHUNK=4 LB4MPI_INJECT_DELAY_US=20 LB4MPI_DELAY_RANKS=1
//   mpiexec -n 3 lb4mpi-stress-case --loop GSS:distributed:1000
//       --loop AF:centralized:0,5,17:-3:2 --steps 3 --drive target --work-ns 800 --seed 7
// (one command line; the environment first)
//
// The options every loop shares come from the environment (Options::from_env:
// LB4MPI_MIN_CHUNK, LB4MPI_MAX_CHUNK, LB4MPI_INJECT_DELAY_US, LB4MPI_WEIGHTS,
// ...); each --loop names its technique, mode, length per time step, first
// index and coordinator. Every rank counts how often it ran each iteration;
// after each time step rank 0 sums the counts over the ranks and requires
// exactly 1 for every iteration (so: exactly once, on exactly one rank), and
// that the loop's report agrees. Exit codes: 0 all good; 1 an iteration ran
// 0 or several times, or a report disagrees (the first bad iteration is
// named); 2 a bad command line; 3 lb4mpi threw (every draw of stress.sh is
// valid, so any error is a failure).
#include <mpi.h>
#include <sched.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "lb4mpi/lb4mpi.hpp"
#include "lb4mpi/loops.hpp"

namespace {

using lb4mpi::Chunk;
using lb4mpi::Index;

// Robust mode (Options::robust, docs/ROBUST.md): the driver accepts --robust
// and reports the feature (`lb4mpi-stress-case --features`), and stress.sh
// then draws it. The check stays a compile-time test so that the driver also
// builds against an lb4mpi without the member.
template <class O>
concept HasRobust = requires(O o) { o.robust = true; };
constexpr bool kHasRobust = HasRobust<lb4mpi::Options>;
template <class O>
void set_robust(O& o, bool on) {
  if constexpr (HasRobust<O>) o.robust = on;  // a template: discarded while the member is missing
}

struct LoopConfig {
  lb4mpi::Technique technique{};
  lb4mpi::Mode mode{};
  std::vector<Index> n;  // per time step (one value: the same every step)
  Index first = 0;
  int coordinator = 0;
  std::string text;  // as given, for messages

  [[nodiscard]] Index n_at(int step) const { return n.size() == 1 ? n[0] : n[static_cast<std::size_t>(step)]; }
};

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  std::istringstream in(s);
  while (std::getline(in, cur, sep)) out.push_back(cur);
  if (!s.empty() && s.back() == sep) out.emplace_back();
  return out;
}

Index to_index(const std::string& s, const std::string& what) {
  std::size_t used = 0;
  long long v = 0;
  try {
    v = std::stoll(s, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != s.size()) throw CLI::ValidationError(what, "not an integer: '" + s + "'");
  return v;
}

// TECHNIQUE:MODE:N[,N...][:FIRST[:COORDINATOR]]
LoopConfig parse_loop(const std::string& spec) {
  const auto parts = split(spec, ':');
  if (parts.size() < 3 || parts.size() > 5) {
    throw CLI::ValidationError("--loop", "expected TECHNIQUE:MODE:N[,N...][:FIRST[:COORDINATOR]], got '" + spec + "'");
  }
  LoopConfig c;
  c.text = spec;
  c.technique = lb4mpi::parse_technique(parts[0]);
  c.mode = lb4mpi::parse_mode(parts[1]);
  for (const auto& n : split(parts[2], ',')) {
    c.n.push_back(to_index(n, "--loop N"));
    if (c.n.back() < 0) throw CLI::ValidationError("--loop", "N must be >= 0 in '" + spec + "'");
  }
  if (parts.size() > 3) c.first = to_index(parts[3], "--loop FIRST");
  if (parts.size() > 4) c.coordinator = static_cast<int>(to_index(parts[4], "--loop COORDINATOR"));
  return c;
}

// The per-iteration work, a function of (seed, loop, step, iteration) so
// that a run is repeatable: 0..max_ns nanoseconds of busy work.
std::uint64_t mix(std::uint64_t x) {  // splitmix64's finalizer
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

void work(std::uint64_t seed, int loop, int step, Index i, std::uint64_t max_ns) {
  if (max_ns == 0) return;
  const std::uint64_t h = mix(seed ^ mix((static_cast<std::uint64_t>(loop) << 48) ^
                                         (static_cast<std::uint64_t>(step) << 40) ^ static_cast<std::uint64_t>(i)));
  const std::uint64_t ns = h % (max_ns + 1);
  if (ns < 200) {
    // Too short to time: about a nanosecond per round.
    volatile std::uint64_t sink = 0;
    for (std::uint64_t k = 0; k < ns; ++k) sink = sink + k;
    return;
  }
  const auto until = std::chrono::steady_clock::now() + std::chrono::nanoseconds(ns);
  while (std::chrono::steady_clock::now() < until) {
  }
}

// Blocking collectives spin; with more ranks than cores (MPICH) a spinning
// rank takes the core from the rank it waits for. Poll and yield instead.
void wait_sharing_core(MPI_Request& req) {
  int done = 0;
  for (int polls = 0;; ++polls) {
    MPI_Test(&req, &done, MPI_STATUS_IGNORE);
    if (done != 0) return;
    if (polls > 256) sched_yield();
  }
}

struct Checker {
  int rank = 0;
  int size = 1;
  bool robust = false;  // `local` counts commits (robust mode executes some iterations twice)
  bool ok = true;
  Index checked = 0;  // iterations checked, over all loops and steps

  // Collective. `local[i]`: how often this rank ran iteration first + i;
  // `stray`: pieces outside [first, last) or empty, seen on this rank;
  // `mine`: iterations this rank ran, to compare with the report.
  void check(const LoopConfig& lc, int loop, int step, Index n, const std::vector<std::int32_t>& local,
             std::int64_t stray, Index mine, const lb4mpi::Report& report) {
    std::vector<std::int32_t> total(rank == 0 ? local.size() : 0);
    MPI_Request req = MPI_REQUEST_NULL;
    MPI_Ireduce(local.data(), total.data(), static_cast<int>(local.size()), MPI_INT32_T, MPI_SUM, 0, MPI_COMM_WORLD,
                &req);
    wait_sharing_core(req);
    // Per rank: stray pieces, and whether the report's count for this rank
    // matches what it executed.
    std::int64_t mine_bad[2] = {stray, report.ranks.size() == static_cast<std::size_t>(size) &&
                                               report.ranks[static_cast<std::size_t>(rank)].iterations == mine
                                           ? 0
                                           : 1};
    std::vector<std::int64_t> all_bad(rank == 0 ? 2 * static_cast<std::size_t>(size) : 0);
    MPI_Igather(mine_bad, 2, MPI_INT64_T, all_bad.data(), 2, MPI_INT64_T, 0, MPI_COMM_WORLD, &req);
    wait_sharing_core(req);

    // Rank 0 finds the first iteration that did not run exactly once; every
    // rank then says how often it ran it, to name the ranks.
    Index bad = -1;
    Index wrong = 0;
    if (rank == 0) {
      for (std::size_t i = 0; i < total.size(); ++i) {
        if (total[i] != 1) {
          if (bad < 0) bad = static_cast<Index>(i);
          ++wrong;
        }
      }
    }
    MPI_Ibcast(&bad, 1, MPI_INT64_T, 0, MPI_COMM_WORLD, &req);
    wait_sharing_core(req);
    std::vector<std::int32_t> ran_on(rank == 0 ? static_cast<std::size_t>(size) : 0);
    if (bad >= 0) {
      const std::int32_t c = local[static_cast<std::size_t>(bad)];
      MPI_Igather(&c, 1, MPI_INT32_T, ran_on.data(), 1, MPI_INT32_T, 0, MPI_COMM_WORLD, &req);
      wait_sharing_core(req);
    }
    if (rank != 0) return;
    checked += n;

    const std::string where = "loop " + std::to_string(loop) + " (" + lc.text + ") step " + std::to_string(step) +
                              ", range [" + std::to_string(lc.first) + ", " + std::to_string(lc.first + n) + ")";
    if (bad >= 0) {
      std::string ranks;
      for (int r = 0; r < size; ++r) {
        if (ran_on[static_cast<std::size_t>(r)] != 0) {
          ranks += (ranks.empty() ? "" : ", ") + std::to_string(r) + " (" +
                   std::to_string(ran_on[static_cast<std::size_t>(r)]) + "x)";
        }
      }
      fail(where + ": iteration " + std::to_string(lc.first + bad) + " ran " +
           std::to_string(total[static_cast<std::size_t>(bad)]) + " times, expected exactly once" +
           (ranks.empty() ? std::string() : " (ranks " + ranks + ")") + "; " + std::to_string(wrong) +
           " iterations of " + std::to_string(n) + " did not run exactly once");
    }
    for (int r = 0; r < size; ++r) {
      if (all_bad[2 * static_cast<std::size_t>(r)] != 0) {
        fail(where + ": rank " + std::to_string(r) + " got " + std::to_string(all_bad[2 * static_cast<std::size_t>(r)]) +
             " pieces that were empty or outside the range");
      }
      if (all_bad[2 * static_cast<std::size_t>(r) + 1] != 0) {
        fail(where + ": the report's iteration count of rank " + std::to_string(r) +
             " differs from what it executed");
      }
    }
    const bool count_ok = robust ? report.iterations() >= n : report.iterations() == n;
    if (!count_ok || report.first != lc.first || report.last != lc.first + n) {
      fail(where + ": the report says " + std::to_string(report.iterations()) + " iterations over [" +
           std::to_string(report.first) + ", " + std::to_string(report.last) + ")");
    }
  }

  void fail(const std::string& what) {
    std::fprintf(stderr, "stress_case: FAILED: %s\n", what.c_str());
    ok = false;
  }
};

// One execution of every loop's time step, counted on this rank.
struct Counts {
  std::vector<std::vector<std::int32_t>> local;
  std::vector<std::vector<std::int32_t>> committed;  // robust mode: commits seen here (the coordinator)
  std::vector<std::int64_t> stray;
  std::vector<Index> mine;
};

int run(int argc, char** argv) {
  int rank = 0;
  int size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  CLI::App app{"One configuration of scripts/stress.sh, checked exactly-once. Options shared by every loop come "
               "from the LB4MPI_* environment (docs/OPTIONS.md).",
               "lb4mpi-stress-case"};
  std::vector<std::string> loop_specs;
  int steps = 1;
  std::string drive = "loop";
  std::uint64_t work_ns = 0;
  std::uint64_t seed = 1;
  bool robust = false;
  bool features = false;
  std::string fault;
  app.add_option("--loop", loop_specs,
                 "TECHNIQUE:MODE:N[,N...][:FIRST[:COORDINATOR]] (repeatable, one per loop): the range of time step s "
                 "is [FIRST, FIRST + N_s) (one N: the same every step); FIRST default 0, COORDINATOR default 0")
      ->take_all();
  app.add_option("--steps", steps, "time steps: every loop runs this many times (restarted in between)")->check(CLI::Range(1, 1000));
  app.add_option("--drive", drive,
                 "loop: each loop its own lb4mpi::Loop, one after the other; any: a LoopSet, next(); "
                 "target: a LoopSet, next(l) round robin")
      ->check(CLI::IsMember({"loop", "any", "target"}));
  app.add_option("--work-ns", work_ns, "per iteration: a pseudo-random 0..this many ns of busy work");
  app.add_option("--seed", seed, "seed of the per-iteration work");
  app.add_flag("--robust", robust, "robust mode on every loop (only when Options has `robust`)");
  app.add_flag("--features", features, "print what this build supports (robust) and exit");
  // Tests of the checker and of stress.sh: the last rank misbehaves.
  app.add_option("--inject-fault", fault,
                 "double/lose: the last rank counts the first iteration of its first piece twice / not at all; "
                 "error: it throws before the first loop; hang: it spins there for ever")
      ->check(CLI::IsMember({"double", "lose", "error", "hang"}));
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return rank == 0 ? app.exit(e) : (e.get_exit_code() == 0 ? 0 : 2);
  }
  if (features) {
    if (rank == 0) std::printf("%s\n", kHasRobust ? "robust" : "");
    return 0;
  }
  if (robust && !kHasRobust) {
    if (rank == 0) std::fprintf(stderr, "stress_case: --robust: this lb4mpi has no robust mode (Options::robust)\n");
    return 2;
  }

  std::vector<LoopConfig> loops;
  try {
    for (const auto& s : loop_specs) loops.push_back(parse_loop(s));
  } catch (const std::exception& e) {  // CLI::ValidationError, or lb4mpi::Error for a bad name
    if (rank == 0) std::fprintf(stderr, "stress_case: %s\n", e.what());
    return 2;
  }
  if (loops.empty()) {
    if (rank == 0) std::fprintf(stderr, "stress_case: give at least one --loop\n");
    return 2;
  }
  for (const auto& lc : loops) {
    if (lc.n.size() != 1 && lc.n.size() != static_cast<std::size_t>(steps)) {
      if (rank == 0) std::fprintf(stderr, "stress_case: --loop %s: 1 or %d values of N\n", lc.text.c_str(), steps);
      return 2;
    }
  }

  if (rank == size - 1 && fault == "error") throw lb4mpi::Error("a fault injected by --inject-fault error");
  if (rank == size - 1 && fault == "hang") {
    for (;;) sched_yield();  // the other ranks wait for it in the first loop's start
  }
  const lb4mpi::Options base = lb4mpi::Options::from_env();
  std::vector<lb4mpi::LoopSpec> specs;
  for (const auto& lc : loops) {
    lb4mpi::LoopSpec s;
    s.first = lc.first;
    s.last = lc.first + lc.n_at(0);
    s.options = base;
    s.options.technique = lc.technique;
    s.options.mode = lc.mode;
    s.options.coordinator = lc.coordinator;
    set_robust(s.options, robust);
    specs.push_back(s);
  }

  const int k = static_cast<int>(loops.size());
  Counts counts;
  int step = 0;  // the time step in progress
  bool faulty = (fault == "double" || fault == "lose") && rank == size - 1;
  auto body = [&](int l, Chunk c) {
    const auto lu = static_cast<std::size_t>(l);
    const Index first = specs[lu].first;
    const Index last = specs[lu].last;
    if (c.size <= 0 || c.begin < first || c.end() > last) {
      ++counts.stray[lu];
      return;
    }
    if (faulty) {
      faulty = false;
      auto& at = counts.local[lu][static_cast<std::size_t>(c.begin - first)];
      at += fault == "double" ? 1 : -1;
    }
    for (Index i = c.begin; i < c.end(); ++i) {
      work(seed, l, step, i, work_ns);
      ++counts.local[lu][static_cast<std::size_t>(i - first)];
    }
    counts.mine[lu] += c.size;
  };
  auto reset = [&] {
    counts.local.assign(static_cast<std::size_t>(k), {});
    for (int l = 0; l < k; ++l) {
      const auto& s = specs[static_cast<std::size_t>(l)];
      counts.local[static_cast<std::size_t>(l)].assign(static_cast<std::size_t>(s.last - s.first), 0);
    }
    counts.committed = counts.local;
    counts.stray.assign(static_cast<std::size_t>(k), 0);
    counts.mine.assign(static_cast<std::size_t>(k), 0);
  };

  // Robust mode: a commit callback of loop l that counts what it commits.
  auto count_commits = [&counts, &specs](int l) {
    return [&counts, &specs, l](Chunk piece, const std::byte*, std::size_t) {
      const Index first = specs[static_cast<std::size_t>(l)].first;
      auto& committed = counts.committed[static_cast<std::size_t>(l)];
      for (Index i = piece.begin; i < piece.end(); ++i) {
        const auto at = static_cast<std::size_t>(i - first);
        if (i >= first && at < committed.size()) ++committed[at];
      }
    };
  };

  Checker checker{rank, size, robust};
  auto check_all = [&](const std::vector<lb4mpi::Report>& reports) {
    for (int l = 0; l < k; ++l) {
      const auto lu = static_cast<std::size_t>(l);
      // Robust mode: each iteration committed exactly once (executed at least once).
      checker.check(loops[lu], l, step, specs[lu].last - specs[lu].first,
                    robust ? counts.committed[lu] : counts.local[lu], counts.stray[lu], counts.mine[lu], reports[lu]);
    }
  };

  if (drive == "loop") {
    // Each loop on its own, one after the other; a Loop object per loop,
    // restarted for the next time step.
    std::vector<std::optional<lb4mpi::Loop>> objs(static_cast<std::size_t>(k));
    for (step = 0; step < steps; ++step) {
      reset();
      std::vector<lb4mpi::Report> reports;
      for (int l = 0; l < k; ++l) {
        auto& s = specs[static_cast<std::size_t>(l)];
        s.last = s.first + loops[static_cast<std::size_t>(l)].n_at(step);
        counts.local[static_cast<std::size_t>(l)].assign(static_cast<std::size_t>(s.last - s.first), 0);
        counts.committed[static_cast<std::size_t>(l)] = counts.local[static_cast<std::size_t>(l)];
        auto& obj = objs[static_cast<std::size_t>(l)];
        if (!obj) {
          obj.emplace(MPI_COMM_WORLD, s.first, s.last, s.options);
          if (robust) obj->on_commit(count_commits(l));
        } else {
          obj->restart(s.first, s.last);
        }
        while (auto c = obj->next()) {
          body(l, *c);
          if (robust) obj->result(std::uint8_t{1});  // results travel, and are committed once
        }
        reports.push_back(obj->finish());
      }
      check_all(reports);
    }
  } else {
    // All loops in flight together on one LoopSet, restarted per time step.
    std::optional<lb4mpi::LoopSet> set;
    for (step = 0; step < steps; ++step) {
      std::vector<std::pair<Index, Index>> ranges;
      for (int l = 0; l < k; ++l) {
        auto& s = specs[static_cast<std::size_t>(l)];
        s.last = s.first + loops[static_cast<std::size_t>(l)].n_at(step);
        ranges.emplace_back(s.first, s.last);
      }
      reset();
      if (!set) {
        set.emplace(MPI_COMM_WORLD, specs);
        if (robust) {
          for (int l = 0; l < k; ++l) set->on_commit(l, count_commits(l));
        }
      } else {
        set->restart(ranges);
      }
      // Robust mode: results travel with each piece and are committed once.
      const auto run = [&](int l, Chunk c) {
        body(l, c);
        if (robust) set->result(std::uint8_t{1});
      };
      if (drive == "any") {
        while (auto p = set->next()) run(p->loop, p->chunk);
      } else {
        while (!set->terminated()) {
          for (int l = 0; l < k; ++l) {
            if (auto c = set->next(l)) run(l, *c);
          }
        }
      }
      check_all(set->finish());
    }
  }

  // Every rank exits with rank 0's verdict.
  int ok = checker.ok ? 1 : 0;
  MPI_Request req = MPI_REQUEST_NULL;
  MPI_Ibcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD, &req);
  wait_sharing_core(req);
  if (rank == 0 && ok != 0) {
    std::printf("stress_case: ok: %d loop(s) x %d step(s) on %d rank(s), %lld iterations, each ran exactly once\n", k,
                steps, size, static_cast<long long>(checker.checked));
  }
  return ok != 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int rc = 0;
  try {
    rc = run(argc, argv);
  } catch (const std::exception& e) {
    // lb4mpi throws on every rank for what it checks at a loop's start, but
    // an error in mid-loop may reach only some ranks: abort the whole job
    // so that the others do not wait for them.
    std::fprintf(stderr, "stress_case: rank %d: error: %s\n", rank, e.what());
    std::fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 3);
  }
  MPI_Finalize();
  return rc;
}
