// Per-chunk recording: the Chrome trace-event JSON, the trace CSV, the
// "both" form, the per-rank iteration CSV, and that tracing changes nothing
// about which iterations run.
//
// Every test runs a loop twice (a restarted Loop, or two parallel_for calls),
// or three loops in flight together (LoopSet) for two time steps, checks
// exactly-once coverage with a gathered bitmap (and checksum), and then, on
// rank 0, reads back what the recorder wrote.
#include <gtest/gtest.h>
#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <ostream>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "lb4mpi/loops.hpp"
#include "mpi_check.hpp"

namespace lb4mpi::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// ---------------------------------------------------------------------------
// Helpers

/// splitmix64 finalizer: a 64-bit mix of an iteration index, so a checksum of
/// the executed iterations catches a lost, duplicated or shifted iteration.
std::uint64_t mix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

std::uint64_t expected_checksum(Index first, Index last) {
  std::uint64_t s = 0;
  for (Index i = first; i < last; ++i) s += mix64(static_cast<std::uint64_t>(i));
  return s;
}

/// A fresh path chosen by rank 0 (temp folder, process id, tag) and broadcast,
/// so every rank passes the same Options; old files of that name are removed.
std::string shared_temp_path(const std::string& tag) {
  std::string path;
  if (world_rank() == 0) {
    path = (fs::temp_directory_path() / ("lb4mpi_test_trace_" + std::to_string(::getpid()) + "_p" +
                                         std::to_string(world_size()) + "_" + tag))
               .string();
    std::error_code ec;
    for (const char* ext : {"", ".json", ".csv"}) fs::remove_all(path + ext, ec);
  }
  int len = static_cast<int>(path.size());
  MPI_Bcast(&len, 1, MPI_INT, 0, MPI_COMM_WORLD);
  path.resize(static_cast<std::size_t>(len));
  MPI_Bcast(path.data(), len, MPI_CHAR, 0, MPI_COMM_WORLD);
  MPI_Barrier(MPI_COMM_WORLD);
  return path;
}

/// Runs rank 0's checks of the files. An exception (a missing JSON field,
/// a malformed number) becomes a failure here instead of leaving the test
/// body on rank 0 alone, which would desynchronize the ranks' collectives.
template <class F>
void check_on_rank0(F&& checks) {
  if (world_rank() != 0) return;
  try {
    checks();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "reading the trace threw: " << e.what();
  }
}

/// Rank 0 removes what a test wrote (after every rank is done with it).
void remove_on_rank0(const std::vector<std::string>& paths) {
  MPI_Barrier(MPI_COMM_WORLD);
  if (world_rank() != 0) return;
  std::error_code ec;
  for (const auto& p : paths) fs::remove_all(p, ec);
}

/// What two executions of [first, first + n) did, gathered over all ranks.
struct TwoRuns {
  std::vector<Report> reports;           ///< one per execution
  std::vector<std::uint64_t> checksums;  ///< gathered sum of mix64(i), one per execution
  std::vector<Index> wrong;              ///< iterations not run exactly once, per execution
  bool out_of_range = false;
  [[nodiscard]] Index chunks() const {
    Index c = 0;
    for (const auto& r : reports) c += r.chunks();
    return c;
  }
  /// Chunks and iterations rank r executed over both executions.
  [[nodiscard]] Index rank_chunks(int r) const {
    Index c = 0;
    for (const auto& rep : reports) c += rep.ranks[static_cast<std::size_t>(r)].chunks;
    return c;
  }
  [[nodiscard]] Index rank_iterations(int r) const {
    Index c = 0;
    for (const auto& rep : reports) c += rep.ranks[static_cast<std::size_t>(r)].iterations;
    return c;
  }
};

/// Runs [first, first + n) twice with `opt`: one Loop restarted (same loop id,
/// steps 0 and 1) when `restart`, else two parallel_for calls (two loop ids).
TwoRuns run_twice(const Options& opt, Index first, Index n, bool restart) {
  TwoRuns out;
  std::vector<std::int32_t> local(static_cast<std::size_t>(n));
  std::uint64_t sum = 0;
  int bad = 0;
  auto body = [&](Chunk c) {
    if (c.size <= 0 || c.begin < first || c.end() > first + n) {
      bad = 1;
      return;
    }
    for (Index i = c.begin; i < c.end(); ++i) {
      ++local[static_cast<std::size_t>(i - first)];
      sum += mix64(static_cast<std::uint64_t>(i));
    }
  };
  auto gather = [&](Report r) {
    std::vector<std::int32_t> all(local.size());
    MPI_Allreduce(local.data(), all.data(), static_cast<int>(n), MPI_INT32_T, MPI_SUM,
                  MPI_COMM_WORLD);
    Index wrong = 0;
    for (auto v : all) wrong += (v != 1);
    std::uint64_t total = 0;
    MPI_Allreduce(&sum, &total, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    out.reports.push_back(std::move(r));
    out.checksums.push_back(total);
    out.wrong.push_back(wrong);
    std::fill(local.begin(), local.end(), 0);
    sum = 0;
  };
  if (restart) {
    Loop loop(MPI_COMM_WORLD, first, first + n, opt);
    for (int step = 0; step < 2; ++step) {
      if (step > 0) loop.restart(first, first + n);
      while (auto c = loop.next()) body(*c);
      gather(loop.finish());
    }
  } else {
    for (int k = 0; k < 2; ++k) gather(parallel_for(MPI_COMM_WORLD, first, first + n, opt, body));
  }
  int any_bad = 0;
  MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  out.out_of_range = any_bad != 0;
  return out;
}

/// Exactly-once coverage of both executions, by bitmap and by checksum.
void expect_covered(const TwoRuns& r, Index first, Index n) {
  EXPECT_FALSE(r.out_of_range) << "a chunk was empty or left the range";
  const std::uint64_t want = expected_checksum(first, first + n);
  ASSERT_EQ(r.reports.size(), 2U);
  for (std::size_t k = 0; k < 2; ++k) {
    EXPECT_EQ(r.wrong[k], 0) << "execution " << k << ": iterations not run exactly once";
    EXPECT_EQ(r.checksums[k], want) << "execution " << k;
    EXPECT_EQ(r.reports[k].iterations(), n) << "execution " << k;
  }
}

/// One chunk as read back from a trace (JSON event or CSV row).
struct ReadChunk {
  int rank = -1;
  int loop = -1;
  int step = -1;
  Index start = 0;
  Index size = 0;
};

/// The chunks of every (loop, step) must tile [first, first + n) exactly:
/// sorted by start they are non-empty, contiguous, and sum to n.
void expect_tiling(const std::vector<ReadChunk>& chunks, Index first, Index n,
                   std::size_t executions) {
  std::map<std::pair<int, int>, std::vector<std::pair<Index, Index>>> by_execution;
  for (const auto& c : chunks) by_execution[{c.loop, c.step}].emplace_back(c.start, c.size);
  EXPECT_EQ(by_execution.size(), executions) << "distinct (loop, step) pairs in the trace";
  for (auto& [key, v] : by_execution) {
    SCOPED_TRACE("loop " + std::to_string(key.first) + " step " + std::to_string(key.second));
    std::sort(v.begin(), v.end());
    Index next = first;
    Index total = 0;
    for (const auto& [start, size] : v) {
      EXPECT_GT(size, 0);
      EXPECT_EQ(start, next) << "gap or overlap at " << next;
      next = start + size;
      total += size;
    }
    EXPECT_EQ(total, n);
    EXPECT_EQ(next, first + n);
  }
}

/// Per-rank chunk counts and iterations in the trace match the reports.
void expect_per_rank(const std::vector<ReadChunk>& chunks, const TwoRuns& runs) {
  const int p = world_size();
  std::vector<Index> count(static_cast<std::size_t>(p), 0);
  std::vector<Index> iters(static_cast<std::size_t>(p), 0);
  for (const auto& c : chunks) {
    ASSERT_GE(c.rank, 0);
    ASSERT_LT(c.rank, p);
    ++count[static_cast<std::size_t>(c.rank)];
    iters[static_cast<std::size_t>(c.rank)] += c.size;
  }
  EXPECT_EQ(static_cast<Index>(chunks.size()), runs.chunks()) << "one record per executed chunk";
  for (int r = 0; r < p; ++r) {
    EXPECT_EQ(count[static_cast<std::size_t>(r)], runs.rank_chunks(r)) << "chunks of rank " << r;
    EXPECT_EQ(iters[static_cast<std::size_t>(r)], runs.rank_iterations(r))
        << "iterations of rank " << r;
  }
}

/// Loop ids and steps: a restarted loop is one id with steps 0 and 1, two
/// parallel_for calls are two ids with step 0 each.
void expect_loop_steps(const std::vector<ReadChunk>& chunks, bool restart) {
  std::set<int> loops;
  std::set<int> steps;
  for (const auto& c : chunks) {
    loops.insert(c.loop);
    steps.insert(c.step);
  }
  if (restart) {
    EXPECT_EQ(loops.size(), 1U);
    EXPECT_EQ(steps, (std::set<int>{0, 1}));
  } else {
    EXPECT_EQ(loops.size(), 2U);
    EXPECT_EQ(steps, (std::set<int>{0}));
  }
}

/// One "X" event as an interval on a rank's track.
struct Span {
  int tid = 0;
  int loop = 0;
  int step = 0;
  double ts = 0.0;
  double end = 0.0;
};

/// Complete ("X") events on one thread must nest: two of them are disjoint or
/// one contains the other (the trace-event format's rule, which Perfetto
/// enforces). Counts the pairs that overlap partially; `group` picks which
/// events are compared with each other. A tolerance of 1 ns absorbs the
/// rounding of the %.3f microsecond stamps.
template <class Key>
Index misnested_pairs(std::vector<Span> spans, Key group, std::string* example) {
  std::sort(spans.begin(), spans.end(), [&](const Span& a, const Span& b) {
    if (group(a) != group(b)) return group(a) < group(b);
    if (a.ts != b.ts) return a.ts < b.ts;
    return a.end > b.end;  // the enclosing one first
  });
  constexpr double kTol = 1e-3;  // microseconds
  Index bad = 0;
  std::vector<const Span*> open;  // stack of enclosing events
  for (std::size_t i = 0; i < spans.size(); ++i) {
    const Span& s = spans[i];
    if (i > 0 && group(spans[i - 1]) != group(s)) open.clear();
    while (!open.empty() && open.back()->end <= s.ts + kTol) open.pop_back();
    if (!open.empty() && s.end > open.back()->end + kTol) {
      if (bad == 0 && example != nullptr) {
        *example = "tid " + std::to_string(s.tid) + ": [" + std::to_string(open.back()->ts) + ", " +
                   std::to_string(open.back()->end) + ") (loop " +
                   std::to_string(open.back()->loop) + " step " +
                   std::to_string(open.back()->step) + ") and [" + std::to_string(s.ts) + ", " +
                   std::to_string(s.end) + ") (loop " + std::to_string(s.loop) + " step " +
                   std::to_string(s.step) + ")";
      }
      ++bad;
      continue;  // keep the enclosing stack as it was
    }
    open.push_back(&s);
  }
  return bad;
}

std::vector<Span> x_spans(const json& doc) {
  std::vector<Span> out;
  for (const json& e : doc["traceEvents"]) {
    if (e.value("ph", "") != "X") continue;
    Span s;
    s.tid = e.at("tid").get<int>();
    s.loop = e.at("args").value("loop", -1);
    s.step = e.at("args").value("step", -1);
    s.ts = e.at("ts").get<double>();
    s.end = s.ts + e.at("dur").get<double>();
    out.push_back(s);
  }
  return out;
}

/// Reads and checks a JSON trace; returns its chunk events.
std::vector<ReadChunk> check_json(const std::string& path, const Options& opt, const TwoRuns& runs,
                                  Index first, Index n, bool restart) {
  SCOPED_TRACE("JSON trace " + path);
  std::vector<ReadChunk> chunks;
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << "trace file missing";
  if (!in) return chunks;
  json doc;
  try {
    doc = json::parse(in);
  } catch (const json::exception& e) {
    ADD_FAILURE() << "not valid JSON: " << e.what();
    return chunks;
  }
  EXPECT_TRUE(doc.is_object());
  EXPECT_TRUE(doc.contains("traceEvents"));
  if (!doc.contains("traceEvents") || !doc["traceEvents"].is_array()) return chunks;
  const int p = world_size();
  std::set<int> named_ranks;
  Index serve_events = 0;
  for (const json& e : doc["traceEvents"]) {
    EXPECT_TRUE(e.contains("ph") && e["ph"].is_string()) << e.dump();
    const std::string ph = e.value("ph", "");
    if (ph == "M") {
      if (e.value("name", "") == "thread_name") {
        const int tid = e.at("tid").get<int>();
        EXPECT_EQ(e.at("args").at("name").get<std::string>(), "rank " + std::to_string(tid));
        named_ranks.insert(tid);
      }
      continue;
    }
    EXPECT_EQ(ph, "X") << "unexpected event " << e.dump();
    EXPECT_GE(e.at("dur").get<double>(), 0.0) << e.dump();
    EXPECT_GE(e.at("ts").get<double>(), 0.0) << e.dump();
    const std::string cat = e.value("cat", "");
    const int tid = e.at("tid").get<int>();
    if (cat == "serve") {
      ++serve_events;
      EXPECT_EQ(e.value("name", ""), "serve requests");
      EXPECT_EQ(tid, opt.coordinator) << "only the coordinator serves";
      continue;
    }
    EXPECT_EQ(cat, "chunk") << e.dump();
    const json& a = e.at("args");
    ReadChunk c;
    c.rank = tid;
    c.loop = a.at("loop").get<int>();
    c.step = a.at("step").get<int>();
    c.start = a.at("start").get<Index>();
    c.size = a.at("size").get<Index>();
    EXPECT_EQ(e.value("name", ""), "loop " + std::to_string(c.loop));
    EXPECT_EQ(a.at("technique").get<std::string>(), std::string(name(opt.technique)));
    EXPECT_EQ(a.at("mode").get<std::string>(), std::string(name(opt.mode)));
    EXPECT_GE(a.at("obtain_us").get<double>(), 0.0);
    chunks.push_back(c);
  }
  for (int r = 0; r < p; ++r) EXPECT_TRUE(named_ranks.count(r)) << "no thread_name for rank " << r;
  {
    // Within one execution of one loop, a rank's events nest (the
    // coordinator's serve intervals lie inside or between its chunks).
    std::string example;
    const Index bad = misnested_pairs(
        x_spans(doc), [](const Span& x) { return std::make_tuple(x.tid, x.loop, x.step); },
        &example);
    EXPECT_EQ(bad, 0) << "partially overlapping events in one execution, e.g. " << example;
  }
  if (opt.mode == Mode::DistributedRMA) {
    EXPECT_EQ(serve_events, 0) << "one-sided DCA has no serving coordinator";
  }
  expect_per_rank(chunks, runs);
  expect_tiling(chunks, first, n, 2);
  expect_loop_steps(chunks, restart);
  return chunks;
}

std::vector<std::string> split(const std::string& line, char sep = ',') {
  std::vector<std::string> out;
  std::stringstream ss(line);
  std::string cell;
  while (std::getline(ss, cell, sep)) out.push_back(cell);
  if (!line.empty() && line.back() == sep) out.emplace_back();
  return out;
}

/// Reads and checks a CSV trace; returns its chunk rows.
std::vector<ReadChunk> check_csv(const std::string& path, const Options& opt, const TwoRuns& runs,
                                 Index first, Index n, bool restart) {
  SCOPED_TRACE("CSV trace " + path);
  std::vector<ReadChunk> chunks;
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << "trace file missing";
  if (!in) return chunks;
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "kind,rank,loop,step,technique,mode,start,size,t_request_s,t_begin_s,t_end_s");
  int row = 1;
  while (std::getline(in, line)) {
    ++row;
    const auto f = split(line);
    EXPECT_EQ(f.size(), 11U) << "row " << row << ": " << line;
    if (f.size() != 11U) continue;
    const double t_request = std::stod(f[8]);
    const double t_begin = std::stod(f[9]);
    const double t_end = std::stod(f[10]);
    EXPECT_LE(t_begin, t_end) << "row " << row;
    EXPECT_GE(t_begin, 0.0) << "row " << row;
    if (f[0] == "serve") {
      EXPECT_EQ(std::stoi(f[1]), opt.coordinator) << "row " << row;
      continue;
    }
    EXPECT_EQ(f[0], "chunk") << "row " << row;
    EXPECT_LE(t_request, t_begin) << "row " << row;
    EXPECT_EQ(f[4], std::string(name(opt.technique))) << "row " << row;
    EXPECT_EQ(f[5], std::string(name(opt.mode))) << "row " << row;
    ReadChunk c;
    c.rank = std::stoi(f[1]);
    c.loop = std::stoi(f[2]);
    c.step = std::stoi(f[3]);
    c.start = std::stoll(f[6]);
    c.size = std::stoll(f[7]);
    chunks.push_back(c);
  }
  expect_per_rank(chunks, runs);
  expect_tiling(chunks, first, n, 2);
  expect_loop_steps(chunks, restart);
  return chunks;
}

// ---------------------------------------------------------------------------
// JSON trace, every execution model, restarted loop and two parallel_for calls

struct Case {
  Mode mode;
  Technique technique;
  bool restart;
};
void PrintTo(const Case& c, std::ostream* os) {
  *os << name(c.mode) << ' ' << name(c.technique) << (c.restart ? " restart" : " twice");
}

std::string trace_case_name(const ::testing::TestParamInfo<Case>& p) {
  std::string s = std::string(name(p.param.mode)) + "_" + std::string(name(p.param.technique)) +
                  (p.param.restart ? "_restart" : "_twice");
  for (char& ch : s) {
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  }
  return s;
}

std::string mode_case_name(const ::testing::TestParamInfo<Mode>& p) {
  std::string s(name(p.param));
  std::replace(s.begin(), s.end(), '-', '_');
  return s;
}

class TraceJson : public ::testing::TestWithParam<Case> {};

TEST_P(TraceJson, OneEventPerChunkTilingTheLoop) {
  const Case& tc = GetParam();
  Options opt;
  opt.mode = tc.mode;
  opt.technique = tc.technique;
  const std::string path = shared_temp_path(trace_case_name({tc, 0}) + ".json");
  opt.trace = path;
  // A nonzero 64-bit first index: starts in the trace are absolute.
  const Index first = tc.restart ? (Index{1} << 33) + 7 : 0;
  const Index n = tc.technique == Technique::SS ? 600 : 2500;
  const TwoRuns runs = run_twice(opt, first, n, tc.restart);
  expect_covered(runs, first, n);
  check_on_rank0([&] {
    check_json(path, opt, runs, first, n, tc.restart);
    EXPECT_FALSE(fs::exists(path + ".csv"));
  });
  remove_on_rank0({path});
}

INSTANTIATE_TEST_SUITE_P(Modes, TraceJson,
                         ::testing::Values(Case{Mode::Centralized, Technique::SS, true},
                                           Case{Mode::Centralized, Technique::GSS, false},
                                           Case{Mode::Centralized, Technique::FAC2, true},
                                           Case{Mode::Centralized, Technique::AF, false},
                                           Case{Mode::Centralized, Technique::AWF_B, true},
                                           Case{Mode::Distributed, Technique::GSS, true},
                                           Case{Mode::Distributed, Technique::FAC2, false},
                                           Case{Mode::Distributed, Technique::SS, true},
                                           Case{Mode::DistributedRMA, Technique::GSS, false},
                                           Case{Mode::DistributedRMA, Technique::FAC2, true},
                                           Case{Mode::DistributedRMA, Technique::SS, false}),
                         trace_case_name);

// ---------------------------------------------------------------------------
// CSV and "both" forms

class TraceCsv : public ::testing::TestWithParam<Mode> {};

TEST_P(TraceCsv, HeaderAndOneRowPerChunk) {
  Options opt;
  opt.mode = GetParam();
  opt.technique = Technique::GSS;
  const std::string path = shared_temp_path("csv_" + std::string(name(opt.mode)) + ".csv");
  opt.trace = path;
  const Index n = 3000;
  const TwoRuns runs = run_twice(opt, 0, n, true);
  expect_covered(runs, 0, n);
  check_on_rank0([&] {
    check_csv(path, opt, runs, 0, n, true);
    EXPECT_FALSE(fs::exists(path + ".json"));
  });
  remove_on_rank0({path});
}

TEST_P(TraceCsv, PathWithoutExtensionWritesBoth) {
  Options opt;
  opt.mode = GetParam();
  opt.technique = Technique::FAC2;
  const std::string path = shared_temp_path("both_" + std::string(name(opt.mode)));
  opt.trace = path;
  const Index n = 2000;
  const TwoRuns runs = run_twice(opt, 0, n, false);
  expect_covered(runs, 0, n);
  check_on_rank0([&] {
    EXPECT_FALSE(fs::exists(path)) << "the bare path itself is not written";
    const auto from_json = check_json(path + ".json", opt, runs, 0, n, false);
    const auto from_csv = check_csv(path + ".csv", opt, runs, 0, n, false);
    // Both files describe the same chunks.
    auto key = [](const ReadChunk& c) {
      return std::make_tuple(c.loop, c.step, c.start, c.size, c.rank);
    };
    std::vector<std::tuple<int, int, Index, Index, int>> a;
    std::vector<std::tuple<int, int, Index, Index, int>> b;
    for (const auto& c : from_json) a.push_back(key(c));
    for (const auto& c : from_csv) b.push_back(key(c));
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    EXPECT_EQ(a, b);
  });
  remove_on_rank0({path + ".json", path + ".csv"});
}

INSTANTIATE_TEST_SUITE_P(Modes, TraceCsv,
                         ::testing::Values(Mode::Centralized, Mode::Distributed,
                                           Mode::DistributedRMA),
                         mode_case_name);

// ---------------------------------------------------------------------------
// Tracing does not change what runs

TEST(Trace, OnOrOffSameCoverage) {
  for (Mode mode : {Mode::Centralized, Mode::Distributed, Mode::DistributedRMA}) {
    SCOPED_TRACE(std::string(name(mode)));
    Options off;
    off.mode = mode;
    off.technique = Technique::FAC2;
    Options on = off;
    on.trace = shared_temp_path("onoff_" + std::string(name(mode)) + ".json");
    const Index n = 4000;
    const TwoRuns a = run_twice(off, 0, n, true);
    const TwoRuns b = run_twice(on, 0, n, true);
    expect_covered(a, 0, n);
    expect_covered(b, 0, n);
    EXPECT_EQ(a.checksums, b.checksums);
    for (std::size_t k = 0; k < 2; ++k)
      EXPECT_EQ(a.reports[k].iterations(), b.reports[k].iterations());
    check_on_rank0([&] { EXPECT_TRUE(fs::exists(on.trace)); });
    remove_on_rank0({on.trace});
  }
}

TEST(Trace, FromEnvironment) {
  const std::string path = shared_temp_path("env.json");
  ::setenv("LB4MPI_TRACE", path.c_str(), 1);
  ::setenv("LB4MPI_SCHEDULING", "TSS", 1);
  Options opt;
  try {
    opt = Options::from_env();
  } catch (...) {
    ::unsetenv("LB4MPI_TRACE");
    ::unsetenv("LB4MPI_SCHEDULING");
    throw;
  }
  ::unsetenv("LB4MPI_TRACE");
  ::unsetenv("LB4MPI_SCHEDULING");
  EXPECT_EQ(opt.trace, path);
  const Index n = 1234;
  const TwoRuns runs = run_twice(opt, 0, n, true);
  expect_covered(runs, 0, n);
  check_on_rank0([&] { check_json(path, opt, runs, 0, n, true); });
  remove_on_rank0({path});
}

TEST(Trace, EveryRankIsNamedEvenWithoutChunks) {
  // N = 0: no rank executes a chunk; N = 1: one rank does. The file is still
  // written, valid, and names every rank's track.
  for (Mode mode : {Mode::Centralized, Mode::Distributed, Mode::DistributedRMA}) {
    for (Index n : {Index{0}, Index{1}}) {
      SCOPED_TRACE(std::string(name(mode)) + " N = " + std::to_string(n));
      Options opt;
      opt.mode = mode;
      opt.technique = Technique::GSS;
      opt.trace =
          shared_temp_path("tiny_" + std::string(name(mode)) + "_" + std::to_string(n) + ".json");
      const Coverage c = run_and_cover(0, n, opt);
      expect_exactly_once(c, n);
      check_on_rank0([&] {
        std::ifstream in(opt.trace);
        EXPECT_TRUE(in.good()) << "no trace written";
        const json doc = json::parse(in);
        std::set<int> named;
        Index chunks = 0;
        for (const json& e : doc.at("traceEvents")) {
          if (e.value("name", "") == "thread_name") named.insert(e.at("tid").get<int>());
          if (e.value("cat", "") == "chunk") ++chunks;
        }
        EXPECT_EQ(chunks, n);
        for (int r = 0; r < world_size(); ++r) {
          EXPECT_TRUE(named.count(r)) << "no thread_name for rank " << r;
        }
      });
      remove_on_rank0({opt.trace});
    }
  }
}

TEST(Trace, FileGrowsWithEveryExecution) {
  // Rank 0 appends every execution's events: after each one the file is a
  // complete document with the chunks of all executions so far, every rank
  // named once, and nothing of an older file of that name (replaced by the
  // process's first write). The CSV next to it grows alike.
  Options opt;
  opt.technique = Technique::GSS;
  const std::string base = shared_temp_path("grow");
  const std::string path = base + ".json";
  opt.trace = base;  // no extension: both files
  if (world_rank() == 0) {
    std::ofstream(path) << "{\"traceEvents\":[{\"cat\":\"chunk\",\"args\":{\"size\":999999}}]}\n";
    std::ofstream(base + ".csv") << "junk,from,an,older,run\n";
  }
  MPI_Barrier(MPI_COMM_WORLD);
  const Index n = 1000;
  Loop loop(MPI_COMM_WORLD, 0, n, opt);
  std::vector<std::int32_t> local(static_cast<std::size_t>(n), 0);
  for (int step = 0; step < 3; ++step) {
    if (step > 0) loop.restart(0, n);
    while (auto c = loop.next()) {
      for (Index i = c->begin; i < c->end(); ++i) ++local[static_cast<std::size_t>(i)];
    }
    const Report r = loop.finish();
    EXPECT_EQ(r.iterations(), n);
    check_on_rank0([&] {
      std::ifstream in(path);
      json doc = json::parse(in, nullptr, /*allow_exceptions=*/false);
      EXPECT_FALSE(doc.is_discarded()) << "not valid JSON after step " << step;
      if (doc.is_discarded()) return;
      Index chunk_events = 0;
      Index iterations = 0;
      std::vector<int> named(static_cast<std::size_t>(world_size()), 0);
      for (const json& e : doc["traceEvents"]) {
        if (e.value("cat", "") == "chunk") {
          ++chunk_events;
          iterations += e["args"]["size"].get<Index>();
        }
        if (e.value("name", "") == "thread_name") ++named.at(e["tid"].get<std::size_t>());
      }
      EXPECT_EQ(iterations, n * (step + 1)) << "after step " << step;
      EXPECT_GE(chunk_events, step + 1);
      for (std::size_t k = 0; k < named.size(); ++k) EXPECT_EQ(named[k], 1) << "rank " << k << " named";
      std::ifstream csv(base + ".csv");
      std::string line;
      std::getline(csv, line);
      EXPECT_EQ(line.rfind("kind,rank,loop,step", 0), 0u) << line;
      Index csv_iterations = 0;
      while (std::getline(csv, line)) {
        const auto cols = split(line);
        ASSERT_GE(cols.size(), 8u) << line;
        if (cols[0] == "chunk") csv_iterations += std::stoll(cols[7]);
        EXPECT_NE(cols[0], "kind") << "a second header";
      }
      EXPECT_EQ(csv_iterations, n * (step + 1)) << "CSV after step " << step;
    });
  }
  std::vector<std::int32_t> all(local.size());
  MPI_Allreduce(local.data(), all.data(), static_cast<int>(n), MPI_INT32_T, MPI_SUM,
                MPI_COMM_WORLD);
  Index wrong = 0;
  for (auto v : all) wrong += (v != 3);
  EXPECT_EQ(wrong, 0) << "iterations not run exactly once per execution";
  remove_on_rank0({path, base + ".csv"});
}

TEST(Trace, AutoSelectionNamesEachExecutionsTechniqueAndReason) {
  // Technique::Auto: every execution's chunks carry the technique it ran,
  // and one "selection" event per execution gives the policy's reason, the
  // same as the report's.
  Options opt;
  opt.technique = Technique::Auto;
  opt.auto_candidates = {Technique::GSS, Technique::FAC2, Technique::TSS};
  const std::string path = shared_temp_path("auto") + ".json";
  opt.trace = path;
  const Index n = 800;
  Loop loop(MPI_COMM_WORLD, 0, n, opt);
  std::vector<Report> reports;
  std::vector<std::int32_t> local(static_cast<std::size_t>(n), 0);
  for (int step = 0; step < 4; ++step) {
    if (step > 0) loop.restart(0, n);
    while (auto c = loop.next()) {
      for (Index i = c->begin; i < c->end(); ++i) ++local[static_cast<std::size_t>(i)];
    }
    reports.push_back(loop.finish());
  }
  check_on_rank0([&] {
    std::ifstream in(path);
    const json doc = json::parse(in);
    std::map<int, std::pair<std::string, std::string>> selected;  // step -> (technique, reason)
    std::map<int, std::set<std::string>> chunk_techniques;          // step -> techniques of its chunks
    for (const json& e : doc.at("traceEvents")) {
      if (e.value("cat", "") == "selection") {
        EXPECT_EQ(e.value("ph", ""), "i") << e.dump();
        const json& a = e.at("args");
        selected[a.at("step").get<int>()] = {a.at("technique").get<std::string>(), a.at("reason").get<std::string>()};
      } else if (e.value("cat", "") == "chunk") {
        chunk_techniques[e.at("args").at("step").get<int>()].insert(e.at("args").at("technique").get<std::string>());
      }
    }
    ASSERT_EQ(selected.size(), reports.size());
    for (int step = 0; step < 4; ++step) {
      const Report& r = reports[static_cast<std::size_t>(step)];
      EXPECT_EQ(selected[step].first, std::string(name(r.technique))) << "step " << step;
      EXPECT_EQ(selected[step].second, r.selection) << "step " << step;
      EXPECT_EQ(chunk_techniques[step], std::set<std::string>{std::string(name(r.technique))}) << "step " << step;
    }
  });
  std::vector<std::int32_t> all(local.size());
  MPI_Allreduce(local.data(), all.data(), static_cast<int>(n), MPI_INT32_T, MPI_SUM, MPI_COMM_WORLD);
  Index wrong = 0;
  for (auto v : all) wrong += (v != 4);
  EXPECT_EQ(wrong, 0) << "iterations not run exactly once per execution";
  remove_on_rank0({path});
}

TEST(Trace, UnwritablePathIsAnError) {
  // The trace file is checked when the loop starts (issue 20): every rank
  // throws the same error naming the path, before any iteration runs, and
  // no rank hangs. (Before, the loop ran and only rank 0 threw at its end.)
  Options opt;
  opt.technique = Technique::FAC2;
  opt.trace = "/nonexistent-lb4mpi-dir/sub/trace.json";
  const Index n = 500;
  std::vector<std::int32_t> local(static_cast<std::size_t>(n), 0);
  std::string msg;
  try {
    parallel_for(MPI_COMM_WORLD, 0, n, opt, [&](Chunk c) {
      for (Index i = c.begin; i < c.end(); ++i) ++local[static_cast<std::size_t>(i)];
    });
  } catch (const Error& e) {
    msg = e.what();
  }
  EXPECT_NE(msg.find("/nonexistent-lb4mpi-dir/sub/trace.json"), std::string::npos)
      << "every rank must say that the trace cannot be written: '" << msg << "'";
  std::vector<std::int32_t> all(local.size());
  MPI_Allreduce(local.data(), all.data(), static_cast<int>(n), MPI_INT32_T, MPI_SUM, MPI_COMM_WORLD);
  Index ran = 0;
  for (auto v : all) ran += v;
  EXPECT_EQ(ran, 0) << "no iteration may run before the error";
}

// An output that breaks during the loop (its folder replaced by a file, as
// a folder removed or a disk gone would) is found when the loop ends: every
// rank gets the same lb4mpi::OutputError naming the file, and the error
// carries the complete report (issue 20: the result is never lost to a trace
// error). `break_folder` is called by every rank on its first chunk.
void break_folder(const std::string& folder) {
  std::error_code ec;
  fs::remove_all(folder, ec);
  std::ofstream(folder) << "not a folder\n";
}

struct Broken {
  std::string message;       // this rank's OutputError, "" if none
  std::vector<Report> reports;
  Index executed = 0;        // iterations executed, summed over ranks
  Index not_once = 0;        // iterations executed never or more than once
};

template <class Run>
Broken run_breaking(const std::string& folder, Index n, int loops, Run&& run) {
  std::vector<std::int32_t> local(static_cast<std::size_t>(n) * static_cast<std::size_t>(loops), 0);
  bool broken = false;
  Broken out;
  try {
    run([&](int loop, Chunk c) {
      if (!broken) {
        break_folder(folder);
        broken = true;
      }
      for (Index i = c.begin; i < c.end(); ++i) ++local[static_cast<std::size_t>(loop * n + i)];
    });
    ADD_FAILURE() << "rank " << world_rank() << ": no OutputError";
  } catch (const OutputError& e) {
    out.message = e.what();
    out.reports = e.reports();
  } catch (const Error& e) {
    ADD_FAILURE() << "rank " << world_rank() << ": an Error but not an OutputError: " << e.what();
  }
  std::vector<std::int32_t> all(local.size());
  MPI_Allreduce(local.data(), all.data(), static_cast<int>(all.size()), MPI_INT32_T, MPI_SUM, MPI_COMM_WORLD);
  for (auto v : all) {
    out.executed += v;
    if (v != 1) ++out.not_once;
  }
  return out;
}

/// The message is the same on every rank.
void expect_same_everywhere(const std::string& message) {
  std::uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : message) h = (h ^ c) * 1099511628211ULL;
  std::uint64_t lo = 0, hi = 0;
  MPI_Allreduce(&h, &lo, 1, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&h, &hi, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
  EXPECT_EQ(lo, hi) << "rank " << world_rank() << " has another message: '" << message << "'";
}

TEST(Trace, OutputThatBreaksDuringTheLoopIsAnErrorOnEveryRankWithTheReport) {
  const std::string folder = shared_temp_path("breaks");
  if (world_rank() == 0) fs::create_directories(folder);
  MPI_Barrier(MPI_COMM_WORLD);
  Options opt;
  opt.technique = Technique::FAC2;
  opt.trace = folder + "/trace.json";
  const Index n = 2000;
  const Broken b = run_breaking(folder, n, 1, [&](auto&& body) {
    parallel_for(MPI_COMM_WORLD, 0, n, opt, [&](Chunk c) { body(0, c); });
  });
  EXPECT_EQ(b.executed, n);
  EXPECT_EQ(b.not_once, 0) << "iterations run other than once";
  EXPECT_NE(b.message.find(opt.trace), std::string::npos) << b.message;
  EXPECT_NE(b.message.find("LB4MPI_TRACE"), std::string::npos) << b.message;
  expect_same_everywhere(b.message);
  ASSERT_EQ(b.reports.size(), 1U);
  EXPECT_EQ(b.reports[0].iterations(), n) << "the report must be complete";
  EXPECT_EQ(b.reports[0].ranks.size(), static_cast<std::size_t>(world_size()));
  remove_on_rank0({folder});
}

TEST(Trace, IterationCsvThatBreaksInALoopSetKeepsEveryLoopsReport) {
  const std::string folder = shared_temp_path("breaks_csv");
  Options a;
  a.technique = Technique::GSS;
  a.iterations_info = true;
  a.iterations_dir = folder;
  Options b = a;
  b.technique = Technique::SS;
  b.mode = Mode::Distributed;
  const Index n = 1500;
  const Broken r = run_breaking(folder, n, 2, [&](auto&& body) {
    run_loops(MPI_COMM_WORLD, {{0, n, a}, {0, n, b}},
              {[&](Chunk c) { body(0, c); }, [&](Chunk c) { body(1, c); }}, true);
  });
  EXPECT_EQ(r.executed, 2 * n);
  EXPECT_EQ(r.not_once, 0) << "iterations run other than once";
  EXPECT_NE(r.message.find("iteration CSV"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find(folder), std::string::npos) << r.message;
  expect_same_everywhere(r.message);
  ASSERT_EQ(r.reports.size(), 2U);
  EXPECT_EQ(r.reports[0].iterations(), n);
  EXPECT_EQ(r.reports[1].iterations(), n);
  remove_on_rank0({folder});
}

// Every execution is stamped from one process-wide origin, so the chunks of
// time step 1 follow those of time step 0 on each rank's track (overlapping
// "X" events on one thread would break the trace-event format).
TEST(Trace, EventsOfARankNestAcrossExecutions) {
  Options opt;
  opt.technique = Technique::FAC2;
  const std::string path = shared_temp_path("nesting.json");
  opt.trace = path;
  const Index n = 4000;
  const TwoRuns runs = run_twice(opt, 0, n, true);
  expect_covered(runs, 0, n);
  check_on_rank0([&] {
    std::ifstream in(path);
    const json doc = json::parse(in);
    std::string example;
    const Index bad = misnested_pairs(
        x_spans(doc), [](const Span& x) { return x.tid; }, &example);
    EXPECT_EQ(bad, 0) << "partially overlapping events on one rank's track, e.g. " << example;
  });
  remove_on_rank0({path});
}

// ---------------------------------------------------------------------------
// Per-rank iteration CSV (`000` Table 4.2)

class IterationsInfo : public ::testing::TestWithParam<Mode> {};

TEST_P(IterationsInfo, OneCsvPerRankMatchingItsReport) {
  Options opt;
  opt.mode = GetParam();
  opt.technique = Technique::FAC2;
  opt.iterations_info = true;
  const std::string dir = shared_temp_path("iterations_" + std::string(name(opt.mode)));
  opt.iterations_dir = dir;
  const Index n = 3000;
  const TwoRuns runs = run_twice(opt, 0, n, true);
  expect_covered(runs, 0, n);

  // Each rank reads its own file.
  const int me = world_rank();
  const std::string file = dir + "/iterations_rank" + std::to_string(me) + ".csv";
  Index rows = 0;
  Index iterations = 0;
  std::map<int, Index> per_step;
  try {  // a malformed number must not make this rank leave the test alone
    std::ifstream in(file);
    EXPECT_TRUE(in.good()) << file << " missing";
    std::string line;
    std::getline(in, line);
    if (in) {
      EXPECT_EQ(line, "loop,step,technique,start,size,t_begin_s,t_end_s");
    }
    while (std::getline(in, line)) {
      const auto f = split(line);
      EXPECT_EQ(f.size(), 7U) << line;
      if (f.size() != 7U) continue;
      EXPECT_EQ(f[2], "FAC2");
      const Index size = std::stoll(f[4]);
      EXPECT_GT(size, 0);
      EXPECT_LE(std::stod(f[5]), std::stod(f[6])) << line;
      ++rows;
      iterations += size;
      per_step[std::stoi(f[1])] += size;
    }
  } catch (const std::exception& e) {
    ADD_FAILURE() << file << ": " << e.what();
  }
  EXPECT_EQ(rows, runs.rank_chunks(me));
  EXPECT_EQ(iterations, runs.rank_iterations(me));
  for (int s = 0; s < 2; ++s) {
    EXPECT_EQ(
        per_step[s],
        runs.reports[static_cast<std::size_t>(s)].ranks[static_cast<std::size_t>(me)].iterations)
        << "step " << s;
  }
  // Summed over the ranks, the files hold every iteration of both executions.
  Index total = 0;
  MPI_Allreduce(&iterations, &total, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  EXPECT_EQ(total, 2 * n);
  // iterations_info alone writes no trace file.
  check_on_rank0([&] {
    std::size_t files = 0;
    for (const auto& entry : fs::directory_iterator(dir)) {
      ++files;
      EXPECT_EQ(entry.path().extension(), ".csv") << entry.path();
    }
    EXPECT_EQ(files, static_cast<std::size_t>(world_size()));
  });
  remove_on_rank0({dir});
}

INSTANTIATE_TEST_SUITE_P(Modes, IterationsInfo,
                         ::testing::Values(Mode::Centralized, Mode::Distributed,
                                           Mode::DistributedRMA),
                         mode_case_name);


TEST(IterationsInfoFile, FirstWriteOfTheProcessReplacesAnOldFile) {
  // A file left by an earlier program run is replaced by this process's
  // first write; later executions of the process append to it.
  Options opt;
  opt.technique = Technique::GSS;
  opt.iterations_info = true;
  const std::string dir = shared_temp_path("iterations_truncate");
  opt.iterations_dir = dir;
  const int me = world_rank();
  const std::string file = dir + "/iterations_rank" + std::to_string(me) + ".csv";
  if (me == 0) fs::create_directories(dir);
  MPI_Barrier(MPI_COMM_WORLD);
  {
    std::ofstream old(file);
    old << "loop,step,technique,start,size,t_begin_s,t_end_s\n";
    for (int k = 0; k < 50; ++k) old << "7,0,SS," << k << ",1,0.5,0.6\n";
    old << "junk from an earlier run\n";
  }
  const Index n = 1500;
  const TwoRuns runs = run_twice(opt, 0, n, true);  // one loop, two time steps
  expect_covered(runs, 0, n);
  // A third execution, of another loop, appends too.
  const Coverage third = run_and_cover(0, n, opt);
  expect_exactly_once(third, n);
  const Index want_rows = runs.rank_chunks(me) + third.report.ranks[static_cast<std::size_t>(me)].chunks;
  const Index want_iterations = runs.rank_iterations(me) + third.local_iterations;
  Index rows = 0;
  Index headers = 0;
  Index foreign = 0;  // rows that are not this run's
  std::string example;
  Index iterations = 0;
  try {
    std::ifstream in(file);
    EXPECT_TRUE(in.good()) << file << " missing";
    std::string line;
    bool first_line = true;
    while (std::getline(in, line)) {
      if (first_line) {
        EXPECT_EQ(line, "loop,step,technique,start,size,t_begin_s,t_end_s");
        first_line = false;
      }
      if (line.rfind("loop,", 0) == 0) {
        ++headers;
        continue;
      }
      const auto f = split(line);
      if (f.size() != 7U || f[2] != "GSS") {
        if (foreign++ == 0) example = line;
        continue;
      }
      ++rows;
      iterations += std::stoll(f[4]);
    }
  } catch (const std::exception& e) {
    ADD_FAILURE() << file << ": " << e.what();
  }
  EXPECT_EQ(foreign, 0) << "rows of an earlier run survived, e.g. " << example;
  EXPECT_EQ(headers, 1) << "one header";
  EXPECT_EQ(rows, want_rows) << "exactly this process's chunks";
  EXPECT_EQ(iterations, want_iterations);
  Index total = 0;
  MPI_Allreduce(&iterations, &total, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  EXPECT_EQ(total, 3 * n);
  remove_on_rank0({dir});
}

// ---------------------------------------------------------------------------
// Several loops in flight together (LoopSet): a rank runs pieces of the
// loops in turn. A chunk's event covers its first run of pieces, later runs
// are "continuation" events, so the events of a rank's track nest or are
// disjoint; there is still one chunk event per chunk.

/// Busy-waits about `us` microseconds (a body that takes real time, so the
/// loops' pieces interleave on every rank).
void trace_spin_us(double us) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::nanoseconds(static_cast<long long>(us * 1e3));
  while (std::chrono::steady_clock::now() < until) {
  }
}

struct MultiEvent {
  std::string cat;
  int tid = 0;
  int loop = 0;
  int step = 0;
  Index start = 0;
  Index size = 0;
  double ts = 0.0;  // microseconds
  double end = 0.0;
};

class TraceMultiLoop : public ::testing::TestWithParam<Mode> {};

TEST_P(TraceMultiLoop, EventsNestAndEveryChunkIsOneEvent) {
  const Mode mode = GetParam();
  const int p = world_size();
  const int me = world_rank();
  const std::string path = shared_temp_path("multi_" + std::string(name(mode)));
  const std::string dir = shared_temp_path("multi_iters_" + std::string(name(mode)));
  struct L {
    Technique technique;
    Index first;
    Index n;
  };
  const std::vector<L> loops = {{Technique::FAC2, 0, 900}, {Technique::GSS, (Index{1} << 33) + 3, 700},
                                {Technique::TSS, -40, 500}};
  std::vector<LoopSpec> specs;
  for (const L& l : loops) {
    LoopSpec s;
    s.first = l.first;
    s.last = l.first + l.n;
    s.options.mode = mode;
    s.options.technique = l.technique;
    s.options.trace = path;  // one file for all loops: JSON and CSV
    s.options.iterations_info = true;
    s.options.iterations_dir = dir;
    specs.push_back(s);
  }
  constexpr int kSteps = 2;
  const std::size_t nl = loops.size();
  std::vector<std::vector<std::int32_t>> local(nl);
  std::vector<std::vector<Report>> reports;  // [step][loop]
  int bad = 0;
  Index wrong = 0;
  LoopSet set(MPI_COMM_WORLD, specs);
  for (int step = 0; step < kSteps; ++step) {
    if (step > 0) {
      std::vector<std::pair<Index, Index>> ranges;
      for (const auto& s : specs) ranges.emplace_back(s.first, s.last);
      set.restart(ranges);
    }
    for (std::size_t l = 0; l < nl; ++l) local[l].assign(static_cast<std::size_t>(loops[l].n), 0);
    while (!set.terminated()) {
      for (int l = 0; l < set.size(); ++l) {
        const auto c = set.next(l);
        if (!c) continue;
        const L& lp = loops[static_cast<std::size_t>(l)];
        if (c->size <= 0 || c->begin < lp.first || c->end() > lp.first + lp.n) {
          bad = 1;
          continue;
        }
        for (Index i = c->begin; i < c->end(); ++i) {
          ++local[static_cast<std::size_t>(l)][static_cast<std::size_t>(i - lp.first)];
          trace_spin_us(3.0);
        }
      }
    }
    reports.push_back(set.finish());
    for (std::size_t l = 0; l < nl; ++l) {
      std::vector<std::int32_t> all(local[l].size());
      MPI_Allreduce(local[l].data(), all.data(), static_cast<int>(all.size()), MPI_INT32_T, MPI_SUM,
                    MPI_COMM_WORLD);
      Index w = 0;
      for (auto v : all) w += (v != 1);
      EXPECT_EQ(w, 0) << "loop " << l << " step " << step << ": iterations not run exactly once";
      wrong += w;
      EXPECT_EQ(reports.back()[l].iterations(), loops[l].n) << "loop " << l << " step " << step;
    }
  }
  int any_bad = 0;
  MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  EXPECT_EQ(any_bad, 0) << "a chunk was empty or left its loop's range";

  // The loops' ids in the trace: consecutive, in the order of specs.
  check_on_rank0([&] {
    std::ifstream in(path + ".json");
    ASSERT_TRUE(in.good()) << "no JSON trace";
    const json doc = json::parse(in);
    std::vector<MultiEvent> events;
    std::vector<Span> spans;
    for (const json& e : doc.at("traceEvents")) {
      if (e.value("ph", "") != "X") continue;
      MultiEvent ev;
      ev.cat = e.value("cat", "");
      ev.tid = e.at("tid").get<int>();
      const json& a = e.at("args");
      ev.loop = a.at("loop").get<int>();
      ev.step = a.at("step").get<int>();
      if (ev.cat != "serve") {
        ev.start = a.at("start").get<Index>();
        ev.size = a.at("size").get<Index>();
      }
      ev.ts = e.at("ts").get<double>();
      ev.end = ev.ts + e.at("dur").get<double>();
      EXPECT_TRUE(ev.cat == "chunk" || ev.cat == "continuation" || ev.cat == "serve") << e.dump();
      if (ev.cat == "continuation") {
        EXPECT_TRUE(a.value("continued", false)) << e.dump();
        EXPECT_EQ(e.value("name", ""), "loop " + std::to_string(ev.loop) + " (continued)");
      }
      events.push_back(ev);
      spans.push_back(Span{ev.tid, ev.loop, ev.step, ev.ts, ev.end});
    }
    // The point: on each rank's track, events nest or are disjoint.
    std::string example;
    const Index misnested = misnested_pairs(spans, [](const Span& x) { return x.tid; }, &example);
    EXPECT_EQ(misnested, 0) << "partially overlapping events on one rank's track, e.g. " << example;

    int min_loop = INT32_MAX;
    for (const auto& ev : events) min_loop = std::min(min_loop, ev.loop);
    std::map<std::tuple<int, int, int, Index, Index>, std::pair<double, double>> chunk_at;  // tid, loop, step, start, size
    std::vector<std::vector<ReadChunk>> per_loop(nl);
    std::map<std::tuple<int, int, int>, Index> chunks_of;  // (rank, loop index, step)
    std::map<std::tuple<int, int, int>, double> busy_us;   // chunk + continuation time
    Index continuations = 0;
    for (const auto& ev : events) {
      if (ev.cat != "chunk") continue;
      const int l = ev.loop - min_loop;
      ASSERT_GE(l, 0);
      ASSERT_LT(l, static_cast<int>(nl)) << "loop ids are consecutive";
      per_loop[static_cast<std::size_t>(l)].push_back(ReadChunk{ev.tid, ev.loop, ev.step, ev.start, ev.size});
      ++chunks_of[{ev.tid, l, ev.step}];
      busy_us[{ev.tid, l, ev.step}] += ev.end - ev.ts;
      EXPECT_TRUE(chunk_at.emplace(std::make_tuple(ev.tid, ev.loop, ev.step, ev.start, ev.size),
                                   std::make_pair(ev.ts, ev.end))
                      .second)
          << "two chunk events for one chunk";
    }
    for (const auto& ev : events) {
      if (ev.cat != "continuation") continue;
      ++continuations;
      const auto it = chunk_at.find(std::make_tuple(ev.tid, ev.loop, ev.step, ev.start, ev.size));
      EXPECT_NE(it, chunk_at.end()) << "a continuation of no chunk of its rank: loop " << ev.loop << " start "
                                    << ev.start;
      if (it != chunk_at.end()) {
        EXPECT_GE(ev.ts + 1e-3, it->second.second) << "a continuation starts after its chunk's first run";
      }
      busy_us[{ev.tid, ev.loop - min_loop, ev.step}] += ev.end - ev.ts;
    }
    for (std::size_t l = 0; l < nl; ++l) {
      SCOPED_TRACE("loop " + std::to_string(l));
      expect_tiling(per_loop[l], loops[l].first, loops[l].n, kSteps);
    }
    for (int s = 0; s < kSteps; ++s) {
      for (std::size_t l = 0; l < nl; ++l) {
        for (int r = 0; r < p; ++r) {
          const RankReport& rr = reports[static_cast<std::size_t>(s)][l].ranks[static_cast<std::size_t>(r)];
          const auto key = std::make_tuple(r, static_cast<int>(l), s);
          EXPECT_EQ(chunks_of[key], rr.chunks) << "one chunk event per chunk: rank " << r << " loop " << l
                                               << " step " << s;
          // The runs cover every piece: at least the rank's work time.
          EXPECT_GE(busy_us[key] + 0.01 * static_cast<double>(rr.chunks + 1), rr.work_time * 1e6)
              << "rank " << r << " loop " << l << " step " << s;
        }
      }
    }
    if (mode == Mode::Centralized) {
      // The coordinator runs its chunks in pieces (break_after) and takes
      // the loops in turn: its chunks must have been continued.
      EXPECT_GT(continuations, 0) << "the test did not interleave the loops' pieces";
    }

    // The CSV holds the same events.
    std::ifstream csv(path + ".csv");
    ASSERT_TRUE(csv.good()) << "no CSV trace";
    std::string line;
    std::getline(csv, line);
    EXPECT_EQ(line, "kind,rank,loop,step,technique,mode,start,size,t_request_s,t_begin_s,t_end_s");
    std::multiset<std::tuple<std::string, int, int, int, Index, Index>> from_json;
    std::multiset<std::tuple<std::string, int, int, int, Index, Index>> from_csv;
    for (const auto& ev : events) from_json.emplace(ev.cat, ev.tid, ev.loop, ev.step, ev.start, ev.size);
    while (std::getline(csv, line)) {
      const auto f = split(line);
      EXPECT_EQ(f.size(), 11U) << line;
      if (f.size() != 11U) continue;
      from_csv.emplace(f[0], std::stoi(f[1]), std::stoi(f[2]), std::stoi(f[3]), std::stoll(f[6]), std::stoll(f[7]));
      EXPECT_LE(std::stod(f[8]), std::stod(f[9])) << line;
      EXPECT_LE(std::stod(f[9]), std::stod(f[10])) << line;
    }
    EXPECT_EQ(from_json, from_csv);
  });

  // Each rank's iteration CSV: one row per chunk it executed, of every loop.
  Index want_rows = 0;
  for (const auto& step : reports) {
    for (const Report& r : step) want_rows += r.ranks[static_cast<std::size_t>(me)].chunks;
  }
  Index rows = 0;
  try {
    std::ifstream in(dir + "/iterations_rank" + std::to_string(me) + ".csv");
    EXPECT_TRUE(in.good());
    std::string line;
    std::getline(in, line);
    while (std::getline(in, line)) {
      const auto f = split(line);
      EXPECT_EQ(f.size(), 7U) << line;
      if (f.size() != 7U) continue;
      EXPECT_LE(std::stod(f[5]), std::stod(f[6])) << line;
      ++rows;
    }
  } catch (const std::exception& e) {
    ADD_FAILURE() << e.what();
  }
  EXPECT_EQ(rows, want_rows);
  EXPECT_EQ(wrong, 0);
  remove_on_rank0({path + ".json", path + ".csv", dir});
}

INSTANTIATE_TEST_SUITE_P(Modes, TraceMultiLoop,
                         ::testing::Values(Mode::Centralized, Mode::Distributed, Mode::DistributedRMA),
                         mode_case_name);

}  // namespace
}  // namespace lb4mpi::test
