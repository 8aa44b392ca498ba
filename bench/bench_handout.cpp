// bench_handout: what handing out one chunk costs in lb4mpi's runtime, and
// the MPI primitives underneath, on the ranks of one MPI job.
//
//   mpiexec -n 4 bench_handout [--n 1000000] [--reps 5] [--warmup 1]
//           [--modes centralized,distributed,distributed-rma] [--technique SS]
//           [--api restart|parallel_for|capi] [--calls 10000] [--budget 3]
//           [--skip-loop] [--skip-mpi]
//
// (a) hand-out throughput: an empty-bodied loop over N iterations with SS (one
//     iteration per chunk), so T_par is nothing but chunk hand-out. For each
//     repetition the modes run one after the other (interleaved, so machine
//     noise hits all modes alike). --api restart (default) keeps one
//     lb4mpi::Loop per mode and restarts it; --api parallel_for calls
//     lb4mpi::parallel_for anew each time (window/communicator set-up included
//     in wall_s, not in t_par_s); --api capi drives the LB4MPI-compatible C
//     interface (DLS_StartLoop / DLS_StartChunk / DLS_EndChunk / DLS_EndLoop,
//     one infoDLS handle per mode), T_par = the slowest rank's time from a
//     barrier to DLS_EndLoop's return (techniques with a C id only).
// (b) primitives, each call timed on its own, median per rank:
//     - MPI_Fetch_and_op(+1, MPI_INT64_T, MPI_SUM) on rank 0's window
//       (MPI_Win_allocate, MPI_Win_lock_all(MPI_MODE_NOCHECK)) followed by
//       MPI_Win_flush(0) — what distributed-rma does per chunk;
//     - an empty two-sided round trip: MPI_Send(0 bytes) to rank 0, rank 0
//       answers with MPI_Send(0 bytes) — the reference for the two-sided modes.
//     Scenario "alone": one rank at a time, the others wait in a barrier that
//     yields the core (MPI_Ibarrier + MPI_Test + sched_yield);
//     "concurrent": all ranks at once (rank 0 joins the fetch-and-op run; in
//     the round trip it only answers). Each rank times --calls calls (after
//     5 % warm-up) or stops after --budget seconds, whichever comes first;
//     "calls" in the output is the number it timed.
//
// Output: rank 0 prints one JSON object per line on stdout, one per
// measurement ("bench": "handout" per mode and repetition; "fetch_and_op" and
// "round_trip" per scenario and rank), nothing else.
#include <mpi.h>
#include <sched.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <numeric>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "lb4mpi/lb4mpi.h"
#include "lb4mpi/lb4mpi.hpp"

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

struct Args {
  lb4mpi::Index n = 1'000'000;
  int reps = 5;
  int warmup = 1;
  std::vector<lb4mpi::Mode> modes{lb4mpi::Mode::Centralized, lb4mpi::Mode::Distributed,
                                  lb4mpi::Mode::DistributedRMA};
  lb4mpi::Technique technique = lb4mpi::Technique::SS;
  bool restart = true;  // --api restart (true) | parallel_for (false)
  bool capi = false;    // --api capi
  int calls = 10'000;
  double budget_s = 3.0;  // per rank and scenario: stop timing calls after this long
  bool run_loop = true;
  bool run_mpi = true;
};

[[noreturn]] void usage_error(int rank, const std::string& what) {
  if (rank == 0)
    std::fprintf(stderr,
                 "bench_handout: error: %s\n"
                 "usage: bench_handout [--n N] [--reps K] [--warmup W] [--modes M,M,...]\n"
                 "                     [--technique T] [--api restart|parallel_for|capi]\n"
                 "                     [--calls C] [--budget S] [--skip-loop] [--skip-mpi]\n",
                 what.c_str());
  MPI_Finalize();
  std::exit(2);
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, sep))
    if (!item.empty()) out.push_back(item);
  return out;
}

long long to_int(int rank, const std::string& opt, const std::string& text, long long lo) {
  try {
    std::size_t used = 0;
    const long long v = std::stoll(text, &used);
    if (used != text.size() || v < lo) throw std::invalid_argument(text);
    return v;
  } catch (const std::exception&) {
    usage_error(rank, opt + " wants an integer >= " + std::to_string(lo) + ", got '" + text + "'");
  }
}

Args parse(int argc, char** argv, int rank) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string opt = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage_error(rank, opt + " needs a value");
      return argv[++i];
    };
    if (opt == "--n") {
      a.n = to_int(rank, opt, value(), 1);
    } else if (opt == "--reps") {
      a.reps = static_cast<int>(to_int(rank, opt, value(), 1));
    } else if (opt == "--warmup") {
      a.warmup = static_cast<int>(to_int(rank, opt, value(), 0));
    } else if (opt == "--calls") {
      a.calls = static_cast<int>(to_int(rank, opt, value(), 1));
    } else if (opt == "--budget") {
      a.budget_s = static_cast<double>(to_int(rank, opt, value(), 1));
    } else if (opt == "--modes") {
      a.modes.clear();
      try {
        for (const std::string& m : split(value(), ',')) a.modes.push_back(lb4mpi::parse_mode(m));
      } catch (const lb4mpi::Error& e) {
        usage_error(rank, std::string("--modes: ") + e.what());
      }
      if (a.modes.empty()) usage_error(rank, "--modes: no mode given");
    } else if (opt == "--technique") {
      try {
        a.technique = lb4mpi::parse_technique(value());
      } catch (const lb4mpi::Error& e) {
        usage_error(rank, std::string("--technique: ") + e.what());
      }
    } else if (opt == "--api") {
      const std::string v = value();
      if (v == "restart")
        a.restart = true;
      else if (v == "parallel_for")
        a.restart = false;
      else if (v == "capi")
        a.capi = true;
      else
        usage_error(rank, "--api wants restart, parallel_for or capi, got '" + v + "'");
    } else if (opt == "--skip-loop") {
      a.run_loop = false;
    } else if (opt == "--skip-mpi") {
      a.run_mpi = false;
    } else {
      usage_error(rank, "unknown option '" + opt + "'");
    }
  }
  return a;
}

std::string mpi_library() {
  char text[MPI_MAX_LIBRARY_VERSION_STRING];
  int len = 0;
  MPI_Get_library_version(text, &len);
  const std::string v(text, static_cast<std::size_t>(len));
  if (v.find("Open MPI") != std::string::npos) return "openmpi";
  if (v.find("MPICH") != std::string::npos) return "mpich";
  return "other";
}

struct Stats {
  double median = 0, mean = 0, p10 = 0, p90 = 0, min = 0;
};

Stats stats_of(std::vector<double> v) {
  Stats s;
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  auto at = [&](double q) {
    return v[static_cast<std::size_t>(q * static_cast<double>(v.size() - 1))];
  };
  const std::size_t m = v.size() / 2;
  s.median = v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
  s.mean = std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
  s.p10 = at(0.10);
  s.p90 = at(0.90);
  s.min = v.front();
  return s;
}

// ---------------------------------------------------------------- (a) hand-out

void bench_loops(const Args& a, MPI_Comm comm, const std::string& mpi) {
  int rank = 0, size = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  std::vector<lb4mpi::Options> opts;
  for (lb4mpi::Mode m : a.modes) {
    lb4mpi::Options o;
    o.technique = a.technique;
    o.mode = m;
    opts.push_back(o);
  }
  std::vector<std::optional<lb4mpi::Loop>> loops(opts.size());
  std::vector<int> runs(opts.size(), 0);
  volatile lb4mpi::Index sink = 0;

  for (int rep = -a.warmup; rep < a.reps; ++rep) {
    for (std::size_t k = 0; k < opts.size(); ++k) {
      MPI_Barrier(comm);
      const auto t0 = Clock::now();
      lb4mpi::Report r;
      if (a.restart) {
        if (!loops[k]) {
          loops[k].emplace(comm, 0, a.n, opts[k]);
        } else {
          loops[k]->restart(0, a.n);
        }
        while (auto c = loops[k]->next()) sink = sink + c->size;
        r = loops[k]->finish();
      } else {
        r = lb4mpi::parallel_for(comm, 0, a.n, opts[k],
                                 [&](lb4mpi::Chunk c) { sink = sink + c.size; });
      }
      const double wall = seconds_since(t0);
      ++runs[k];
      if (rep < 0 || rank != 0) continue;
      const auto chunks = static_cast<double>(r.chunks());
      std::printf(
          "{\"bench\":\"handout\",\"mpi\":\"%s\",\"ranks\":%d,\"mode\":\"%s\",\"technique\":\"%s\","
          "\"api\":\"%s\",\"n\":%lld,\"rep\":%d,\"t_par_s\":%.9g,\"wall_s\":%.9g,\"chunks\":%lld,"
          "\"iterations\":%lld,\"chunks_per_s\":%.6g,\"ns_per_chunk\":%.6g,\"chunks_per_rank\":[",
          mpi.c_str(), size, std::string(lb4mpi::name(opts[k].mode)).c_str(),
          std::string(lb4mpi::name(a.technique)).c_str(), a.restart ? "restart" : "parallel_for",
          static_cast<long long>(a.n), rep, r.t_par, wall, static_cast<long long>(r.chunks()),
          static_cast<long long>(r.iterations()), r.t_par > 0 ? chunks / r.t_par : 0.0,
          chunks > 0 ? r.t_par * 1e9 / chunks : 0.0);
      for (std::size_t i = 0; i < r.ranks.size(); ++i)
        std::printf("%s%lld", i ? "," : "", static_cast<long long>(r.ranks[i].chunks));
      std::printf("],\"overhead_s_per_rank\":[");
      for (std::size_t i = 0; i < r.ranks.size(); ++i)
        std::printf("%s%.6g", i ? "," : "", r.ranks[i].overhead);
      std::printf("],\"serve_s_coordinator\":%.6g}\n",
                  r.ranks.empty() ? 0.0 : r.ranks[0].serve_time);
      std::fflush(stdout);
    }
  }
  loops.clear();  // collective destruction (frees the RMA windows)
}

// The C interface's ids of the techniques and modes (lb4mpi.h).
int c_method(lb4mpi::Technique t) {
  switch (t) {
    case lb4mpi::Technique::STATIC: return STATIC;
    case lb4mpi::Technique::SS: return SS;
    case lb4mpi::Technique::GSS: return GSS;
    case lb4mpi::Technique::TSS: return TSS;
    case lb4mpi::Technique::FAC2: return FAC;
    default: return -1;
  }
}

int c_mode(lb4mpi::Mode m) {
  switch (m) {
    case lb4mpi::Mode::Centralized: return CENTRALIZED;
    case lb4mpi::Mode::Distributed: return DECENTRALIZED;
    default: return DECENTRALIZED_RMA;
  }
}

// (a) through the C interface: one handle per mode, kept across repetitions
// (each DLS_StartLoop with the same method and mode is the loop's next time
// step, as a restart).
void bench_loops_capi(const Args& a, MPI_Comm comm, const std::string& mpi) {
  int rank = 0, size = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const int method = c_method(a.technique);
  if (method < 0) usage_error(rank, "--api capi: the technique has no id in the C interface (STATIC, SS, GSS, TSS, FAC2)");
  if (a.n > 2'000'000'000) usage_error(rank, "--api capi: --n must fit an int");
  std::vector<infoDLS> handles(a.modes.size());
  for (infoDLS& h : handles) DLS_Parameters_Setup(comm, &h, size, -1, -1, 1, 0.0, 0.0, 0, 1.0, 1.0);
  volatile long long sink = 0;
  for (int rep = -a.warmup; rep < a.reps; ++rep) {
    for (std::size_t k = 0; k < a.modes.size(); ++k) {
      Configure_Chunk_Calculation_Mode(c_mode(a.modes[k]));
      MPI_Barrier(comm);
      const auto t0 = Clock::now();
      DLS_StartLoop(&handles[k], 0, static_cast<int>(a.n - 1), method);
      long long chunks = 0;
      while (!DLS_Terminated(&handles[k])) {
        int start = 0, csize = 0;
        DLS_StartChunk(&handles[k], &start, &csize);
        sink = sink + csize;
        chunks += csize > 0 ? 1 : 0;
        DLS_EndChunk(&handles[k]);
      }
      int iterations = 0;
      double work = 0.0;
      DLS_EndLoop(&handles[k], &iterations, &work);
      const double mine = seconds_since(t0);
      double t_par = 0.0;
      long long all_chunks = 0, all_iterations = 0;
      const long long it = iterations;
      MPI_Reduce(&mine, &t_par, 1, MPI_DOUBLE, MPI_MAX, 0, comm);
      MPI_Reduce(&chunks, &all_chunks, 1, MPI_LONG_LONG, MPI_SUM, 0, comm);
      MPI_Reduce(&it, &all_iterations, 1, MPI_LONG_LONG, MPI_SUM, 0, comm);
      if (rep < 0 || rank != 0) continue;
      if (all_iterations != a.n) {
        std::fprintf(stderr, "bench_handout: the C interface ran %lld of %lld iterations\n", all_iterations,
                     static_cast<long long>(a.n));
        MPI_Abort(comm, 1);
      }
      std::printf(
          "{\"bench\":\"handout\",\"mpi\":\"%s\",\"ranks\":%d,\"mode\":\"%s\",\"technique\":\"%s\","
          "\"api\":\"capi\",\"n\":%lld,\"rep\":%d,\"t_par_s\":%.9g,\"wall_s\":%.9g,\"chunks\":%lld,"
          "\"iterations\":%lld,\"chunks_per_s\":%.6g,\"ns_per_chunk\":%.6g,\"ns_per_iteration\":%.6g}\n",
          mpi.c_str(), size, std::string(lb4mpi::name(a.modes[k])).c_str(),
          std::string(lb4mpi::name(a.technique)).c_str(), static_cast<long long>(a.n), rep, t_par, t_par,
          all_chunks, all_iterations, t_par > 0 ? static_cast<double>(all_chunks) / t_par : 0.0,
          all_chunks > 0 ? t_par * 1e9 / static_cast<double>(all_chunks) : 0.0,
          t_par * 1e9 / static_cast<double>(a.n));
      std::fflush(stdout);
    }
  }
  for (infoDLS& h : handles) DLS_Finalize(&h);
}

// ---------------------------------------------------------- (b) MPI primitives

// A barrier that gives the core away while it waits (MPI_Ibarrier, then
// MPI_Test + sched_yield): with more ranks than cores, ranks that only wait
// must not take the core from the ones being measured. Testing keeps the MPI
// progress engine running, which target-side progress of RMA may need.
void yielding_barrier(MPI_Comm comm) {
  MPI_Request req = MPI_REQUEST_NULL;
  MPI_Ibarrier(comm, &req);
  int done = 0;
  while (true) {
    MPI_Test(&req, &done, MPI_STATUS_IGNORE);
    if (done) break;
    sched_yield();
  }
}

// `all`: 6 numbers per rank — median, mean, p10, p90, min, count. A rank that
// timed no call (its budget ran out during the warm-up) prints nulls.
void print_primitive(const char* bench, const char* scenario, const std::string& mpi, int size,
                     int first_rank, const std::vector<double>& all) {
  for (int r = first_rank; r < size; ++r) {
    const double* s = &all[static_cast<std::size_t>(r) * 6];
    std::printf(
        "{\"bench\":\"%s\",\"mpi\":\"%s\",\"ranks\":%d,\"scenario\":\"%s\","
        "\"rank\":%d,\"calls\":%d",
        bench, mpi.c_str(), size, scenario, r, static_cast<int>(s[5]));
    if (s[5] > 0)
      std::printf(
          ",\"median_ns\":%.6g,\"mean_ns\":%.6g,\"p10_ns\":%.6g,\"p90_ns\":%.6g,"
          "\"min_ns\":%.6g}\n",
          s[0], s[1], s[2], s[3], s[4]);
    else
      std::printf(
          ",\"median_ns\":null,\"mean_ns\":null,\"p10_ns\":null,\"p90_ns\":null,"
          "\"min_ns\":null}\n");
  }
  std::fflush(stdout);
}

std::vector<double> gather_stats(MPI_Comm comm, const std::vector<double>& ns) {
  int size = 0;
  MPI_Comm_size(comm, &size);
  const Stats s = stats_of(ns);
  const double mine[6] = {s.median, s.mean, s.p10, s.p90, s.min, static_cast<double>(ns.size())};
  std::vector<double> all(static_cast<std::size_t>(size) * 6);
  MPI_Gather(mine, 6, MPI_DOUBLE, all.data(), 6, MPI_DOUBLE, 0, comm);
  return all;
}

void bench_fetch_and_op(const Args& a, MPI_Comm comm, const std::string& mpi) {
  int rank = 0, size = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  void* base = nullptr;
  MPI_Win win = MPI_WIN_NULL;
  const MPI_Aint bytes = rank == 0 ? static_cast<MPI_Aint>(sizeof(std::int64_t)) : 0;
  MPI_Win_allocate(bytes, sizeof(std::int64_t), MPI_INFO_NULL, comm, &base, &win);
  if (rank == 0) *static_cast<std::int64_t*>(base) = 0;
  MPI_Barrier(comm);
  MPI_Win_lock_all(MPI_MODE_NOCHECK, win);

  const int warm = std::max(10, a.calls / 20);
  auto run = [&](std::vector<double>& ns) {
    const std::int64_t one = 1;
    std::int64_t old = 0;
    const auto start = Clock::now();
    for (int i = 0; i < warm + a.calls && seconds_since(start) < a.budget_s; ++i) {
      const auto t0 = Clock::now();
      MPI_Fetch_and_op(&one, &old, MPI_INT64_T, 0, 0, MPI_SUM, win);
      MPI_Win_flush(0, win);
      const auto t1 = Clock::now();
      if (i >= warm) ns.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count());
    }
  };

  std::vector<double> ns;
  ns.reserve(static_cast<std::size_t>(a.calls));
  for (int r = 0; r < size; ++r) {  // alone: one rank at a time
    MPI_Barrier(comm);
    if (rank == r) run(ns);
    yielding_barrier(comm);
  }
  std::vector<double> all = gather_stats(comm, ns);
  if (rank == 0) print_primitive("fetch_and_op", "alone", mpi, size, 0, all);

  ns.clear();
  MPI_Barrier(comm);
  run(ns);  // concurrent: everyone at once
  MPI_Barrier(comm);
  all = gather_stats(comm, ns);
  if (rank == 0) print_primitive("fetch_and_op", "concurrent", mpi, size, 0, all);

  MPI_Win_unlock_all(win);
  MPI_Win_free(&win);
}

void bench_round_trip(const Args& a, MPI_Comm comm, const std::string& mpi) {
  int rank = 0, size = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  if (size < 2) return;
  constexpr int kTag = 4711;
  constexpr int kDone = 4712;
  const int warm = std::max(10, a.calls / 20);
  const int per_rank = warm + a.calls;

  // Rank 0 answers every request until `askers` ranks said they are done.
  auto serve = [&](int askers) {
    while (askers > 0) {
      MPI_Status st;
      MPI_Recv(nullptr, 0, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &st);
      if (st.MPI_TAG == kDone)
        --askers;
      else
        MPI_Send(nullptr, 0, MPI_BYTE, st.MPI_SOURCE, kTag, comm);
    }
  };
  auto ask = [&](std::vector<double>& ns) {
    const auto start = Clock::now();
    for (int i = 0; i < per_rank && seconds_since(start) < a.budget_s; ++i) {
      const auto t0 = Clock::now();
      MPI_Send(nullptr, 0, MPI_BYTE, 0, kTag, comm);
      MPI_Recv(nullptr, 0, MPI_BYTE, 0, kTag, comm, MPI_STATUS_IGNORE);
      const auto t1 = Clock::now();
      if (i >= warm) ns.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count());
    }
    MPI_Send(nullptr, 0, MPI_BYTE, 0, kDone, comm);
  };

  std::vector<double> ns;
  ns.reserve(static_cast<std::size_t>(a.calls));
  for (int r = 1; r < size; ++r) {  // alone: one asking rank at a time
    MPI_Barrier(comm);
    if (rank == 0)
      serve(1);
    else if (rank == r)
      ask(ns);
    yielding_barrier(comm);
  }
  std::vector<double> all = gather_stats(comm, ns);
  if (rank == 0) print_primitive("round_trip", "alone", mpi, size, 1, all);

  ns.clear();
  MPI_Barrier(comm);
  if (rank == 0)
    serve(size - 1);
  else
    ask(ns);
  MPI_Barrier(comm);
  all = gather_stats(comm, ns);
  if (rank == 0) print_primitive("round_trip", "concurrent", mpi, size, 1, all);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const Args a = parse(argc, argv, rank);
  const std::string mpi = mpi_library();
  int code = 0;
  try {
    if (a.run_loop) {
      if (a.capi) {
        bench_loops_capi(a, MPI_COMM_WORLD, mpi);
      } else {
        bench_loops(a, MPI_COMM_WORLD, mpi);
      }
    }
    if (a.run_mpi) {
      bench_fetch_and_op(a, MPI_COMM_WORLD, mpi);
      bench_round_trip(a, MPI_COMM_WORLD, mpi);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_handout [rank %d]: error: %s\n", rank, e.what());
    MPI_Abort(MPI_COMM_WORLD, 3);
    code = 3;
  }
  MPI_Finalize();
  return code;
}
