// Bad input: the same clear error on every rank, never a hang.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <regex>
#include <sstream>
#include <functional>
#include <string>
#include <vector>

#include "mpi_check.hpp"
#include "runtime/channel.hpp"
#include "runtime/mpi.hpp"

namespace lb4mpi::test {
namespace {

void noop(Chunk) {}

TEST(Errors, FirstGreaterThanLast) {
  expect_same_error_everywhere([] { parallel_for(MPI_COMM_WORLD, 10, 5, Options{}, noop); },
                               "first must not exceed last");
}

TEST(Errors, UnknownTechniqueFromEnvironment) {
  setenv("LB4MPI_SCHEDULING", "FASTEST", 1);
  expect_same_error_everywhere([] { (void)Options::from_env(); }, "LB4MPI_SCHEDULING");
  expect_same_error_everywhere([] { (void)Options::from_env(); }, "GSS");  // lists valid names
  unsetenv("LB4MPI_SCHEDULING");
}

TEST(Errors, DelayInjectionFromEnvironment) {
  setenv("LB4MPI_INJECT_DELAY_US", "12.5", 1);
  setenv("LB4MPI_DELAY_RANKS", "0,2", 1);
  const Options o = Options::from_env();
  EXPECT_DOUBLE_EQ(o.inject_delay_us, 12.5);
  EXPECT_EQ(o.delay_ranks, (std::vector<int>{0, 2}));
  setenv("LB4MPI_DELAY_RANKS", "0,x", 1);
  expect_same_error_everywhere([] { (void)Options::from_env(); }, "LB4MPI_DELAY_RANKS");
  setenv("LB4MPI_DELAY_RANKS", "0", 1);
  setenv("LB4MPI_INJECT_DELAY_US", "-3", 1);
  Options neg = Options::from_env();
  expect_same_error_everywhere([&] { parallel_for(MPI_COMM_WORLD, 0, 10, neg, noop); }, "LB4MPI_INJECT_DELAY_US");
  unsetenv("LB4MPI_INJECT_DELAY_US");
  Options far;
  far.delay_ranks = {world_size()};
  expect_same_error_everywhere([&] { parallel_for(MPI_COMM_WORLD, 0, 10, far, noop); }, "LB4MPI_DELAY_RANKS");
  unsetenv("LB4MPI_DELAY_RANKS");
}

TEST(Errors, UnknownMode) {
  expect_same_error_everywhere([] { (void)parse_mode("turbo"); }, "centralized");
}

TEST(Errors, InvalidParameter) {
  Options opt;
  opt.technique = Technique::FISS;
  opt.params.fiss_batches = 1;
  expect_same_error_everywhere([&] { parallel_for(MPI_COMM_WORLD, 0, 100, opt, noop); }, "FISS");
  Options w;
  w.technique = Technique::WF;
  w.params.weights = {1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0};  // never matches P <= 8
  expect_same_error_everywhere([&] { parallel_for(MPI_COMM_WORLD, 0, 100, w, noop); }, "weights");
  Options m;
  m.params.min_chunk = 0;
  expect_same_error_everywhere([&] { parallel_for(MPI_COMM_WORLD, 0, 100, m, noop); }, "min");
}

TEST(Errors, BadCoordinator) {
  Options opt;
  opt.coordinator = world_size();
  expect_same_error_everywhere([&] { parallel_for(MPI_COMM_WORLD, 0, 100, opt, noop); }, "coordinator");
}

TEST(Errors, OneRankWithBadInputFailsEveryRank) {
  // Only the last rank passes a bad range: all ranks must throw, none hangs.
  const Index last = world_rank() == world_size() - 1 ? -1 : 100;
  expect_same_error_everywhere([&] { parallel_for(MPI_COMM_WORLD, 0, last, Options{}, noop); },
                               "first must not exceed last");
}

TEST(Errors, RanksThatDisagreeFailTogether) {
  if (world_size() < 2) return;  // one rank cannot disagree with itself
  const Index last = world_rank() == 0 ? 100 : 101;
  // The message names the first rank that differs, the field and both values.
  expect_same_error_everywhere([&] { parallel_for(MPI_COMM_WORLD, 0, last, Options{}, noop); },
                               "the ranks disagree on the loop: range [0, 101) on rank 1, [0, 100) on rank 0");
}

TEST(Errors, DisagreementNamesTheOptionAndTheRank) {
  if (world_size() < 2) return;
  const int last_rank = world_size() - 1;
  Options o;
  o.technique = Technique::GSS;
  if (world_rank() == last_rank) o.params.min_chunk = 4;  // only the last rank differs
  expect_same_error_everywhere([&] { parallel_for(MPI_COMM_WORLD, 0, 100, o, noop); },
                               "min_chunk 4 on rank " + std::to_string(last_rank) + ", 1 on rank 0");
  // The loop still runs afterwards (no stray messages): every iteration once.
  std::vector<std::int32_t> local(300, 0);
  o.params.min_chunk = 1;
  parallel_for(MPI_COMM_WORLD, 0, 300, o, [&](Chunk c) {
    for (Index i = c.begin; i < c.end(); ++i) ++local[static_cast<std::size_t>(i)];
  });
  EXPECT_EQ(not_run_once(local), 0);
}

TEST(Errors, LoopStillWorksAfterErrors) {
  // The failed starts above left no stray messages behind.
  Options opt;
  opt.technique = Technique::SS;
  expect_exactly_once(run_and_cover(0, 500, opt), 500);
}

TEST(Errors, EarlyFinishIsReportedNotHung) {
  // Rank 0 stops after its first chunk; the loop still completes everywhere
  // and every rank learns that rank 0 dropped iterations.
  Options opt;
  opt.technique = Technique::SS;
  Loop loop(MPI_COMM_WORLD, 0, 100, opt);
  std::string msg;
  if (world_rank() == 0) {
    (void)loop.next();
  } else {
    while (loop.next()) {
    }
  }
  try {
    (void)loop.finish();
  } catch (const Error& e) {
    msg = e.what();
  }
  EXPECT_NE(msg.find("on rank 0 before next() returned no chunk"), std::string::npos) << msg;
  EXPECT_NE(msg.find("not executed"), std::string::npos) << msg;
  // The loop can run its next time step, completely.
  loop.restart(0, 100);
  std::vector<std::int32_t> local(100, 0);
  while (auto c = loop.next()) {
    for (Index i = c->begin; i < c->end(); ++i) ++local[static_cast<std::size_t>(i)];
  }
  const Report r = loop.finish();
  std::vector<std::int32_t> all(100, 0);
  MPI_Allreduce(local.data(), all.data(), 100, MPI_INT32_T, MPI_SUM, MPI_COMM_WORLD);
  for (std::size_t i = 0; i < all.size(); ++i) ASSERT_EQ(all[i], 1) << "iteration " << i;
  EXPECT_EQ(r.iterations(), 100);
}

// lb4mpi's private communicator returns MPI errors (MPI_ERRORS_RETURN)
// instead of aborting the job, and the runtime turns each into an
// lb4mpi::Error naming the call. A send to a rank that does not exist is
// detected locally by both MPIs (no message, no hang).
TEST(Errors, MpiErrorOnThePrivateCommunicatorIsAnError) {
  rt::Channel& channel = rt::private_channel(MPI_COMM_WORLD);
  int size = 0;
  MPI_Comm_size(channel.comm, &size);
  int value = 0;
  std::string msg;
  try {
    rt::check_mpi(MPI_Send(&value, 1, MPI_INT, size, 0, channel.comm), "MPI_Send");
  } catch (const Error& e) {
    msg = e.what();
  }
  EXPECT_NE(msg.find("lb4mpi: MPI_Send failed"), std::string::npos) << "message: '" << msg << "'";
  // The communicator still works: a loop on it runs every iteration once.
  std::vector<std::int32_t> local(500, 0);
  const Report r = parallel_for(MPI_COMM_WORLD, 0, 500, Options{}, [&](Chunk c) {
    for (Index i = c.begin; i < c.end(); ++i) ++local[static_cast<std::size_t>(i)];
  });
  EXPECT_EQ(not_run_once(local), 0) << "iterations not run exactly once after the MPI error";
  EXPECT_EQ(r.iterations(), 500);
}

// A misspelt LB4MPI_* variable is named with the nearest known one; under
// LB4MPI_STRICT=1 it stops the loop on every rank before any work.
TEST(Errors, UnknownVariableIsNamedAndStrictMakesItAnError) {
  setenv("LB4MPI_MDOE", "distributed", 1);
  const std::vector<std::string> unknown = Options::unknown_variables();
  ASSERT_EQ(unknown.size(), 1u);
  EXPECT_EQ(unknown[0], "LB4MPI_MDOE is not a known variable (did you mean LB4MPI_MODE?)");
  setenv("LB4MPI_STRICT", "1", 1);
  Index ran = 0;
  expect_same_error_everywhere([&] { parallel_for(MPI_COMM_WORLD, 0, 100, Options{}, [&](Chunk c) { ran += c.size; }); },
                               "LB4MPI_MDOE is not a known variable (did you mean LB4MPI_MODE?) (LB4MPI_STRICT=1)");
  EXPECT_EQ(ran, 0) << "no iteration may run before the error";
  unsetenv("LB4MPI_STRICT");
  // Without LB4MPI_STRICT a warning only (rank 0's stderr): the loop runs, every iteration once.
  std::vector<std::int32_t> local(200, 0);
  parallel_for(MPI_COMM_WORLD, 0, 200, Options{}, [&](Chunk c) {
    for (Index i = c.begin; i < c.end(); ++i) ++local[static_cast<std::size_t>(i)];
  });
  EXPECT_EQ(not_run_once(local), 0);
  unsetenv("LB4MPI_MDOE");
  EXPECT_TRUE(Options::unknown_variables().empty());
}

// The known variables are one list in the code; docs/OPTIONS.md lists each.
TEST(Errors, EveryKnownVariableIsDocumented) {
  std::ifstream doc(LB4MPI_SOURCE_DIR "/docs/OPTIONS.md");
  ASSERT_TRUE(doc.good()) << "cannot read docs/OPTIONS.md";
  const std::string text((std::istreambuf_iterator<char>(doc)), std::istreambuf_iterator<char>());
  for (const std::string& var : Options::known_variables()) {
    EXPECT_NE(text.find("`" + var + "`"), std::string::npos) << var << " is not in docs/OPTIONS.md";
  }
}

// Files lb4mpi will write are checked when the loop starts: a path that
// cannot be written stops every rank with the same error, before any work.
TEST(Errors, UnwritableOutputsFailBeforeAnyWork) {
  Index ran = 0;
  auto body = [&](Chunk c) { ran += c.size; };
  Options trace;
  trace.trace = "/no/such/dir/run.json";
  expect_same_error_everywhere([&] { parallel_for(MPI_COMM_WORLD, 0, 100, trace, body); },
                               "cannot write the trace file '/no/such/dir/run.json' (LB4MPI_TRACE): its folder "
                               "'/no/such/dir' does not exist");
  Options iterations;
  iterations.iterations_info = true;
  iterations.iterations_dir = "/proc/lb4mpi-no-such-folder";  // not even root can create it
  expect_same_error_everywhere([&] { parallel_for(MPI_COMM_WORLD, 0, 100, iterations, body); },
                               "cannot create the folder '/proc/lb4mpi-no-such-folder' for the iteration CSVs");
  EXPECT_EQ(ran, 0) << "no iteration may run before the error";
  // The communicator is fine afterwards: every iteration once.
  std::vector<std::int32_t> local(200, 0);
  parallel_for(MPI_COMM_WORLD, 0, 200, Options{}, [&](Chunk c) {
    for (Index i = c.begin; i < c.end(); ++i) ++local[static_cast<std::size_t>(i)];
  });
  EXPECT_EQ(not_run_once(local), 0);
}

// A value error names where the value came from (issue 20), and the same
// message reaches every rank before any iteration runs.
TEST(Errors, ValueErrorsNameTheirOrigin) {
  Index ran = 0;
  auto body = [&](Chunk c) { ran += c.size; };
  setenv("LB4MPI_MIN_CHUNK", "-5", 1);
  const Options min = Options::from_env();
  unsetenv("LB4MPI_MIN_CHUNK");
  expect_same_error_everywhere([&] { parallel_for(MPI_COMM_WORLD, 0, 100, min, body); },
                               "min_chunk must be >= 1, got -5 (from LB4MPI_MIN_CHUNK=-5)");
  setenv("LB4MPI_SIGMA", "0", 1);
  Options fsc = Options::from_env();
  unsetenv("LB4MPI_SIGMA");
  fsc.technique = Technique::FSC;
  expect_same_error_everywhere([&] { parallel_for(MPI_COMM_WORLD, 0, 100, fsc, body); },
                               "FSC needs sigma > 0, got 0 (from LB4MPI_SIGMA=0)");
  Options code;  // set in code: no origin to name
  code.params.fiss_batches = 1;
  code.technique = Technique::FISS;
  expect_same_error_everywhere([&] { parallel_for(MPI_COMM_WORLD, 0, 100, code, body); },
                               "FISS needs fiss_batches >= 2, got 1");
  EXPECT_EQ(ran, 0) << "no iteration may run before the error";
  // An int variable out of int's range is an error, not a truncated value.
  setenv("LB4MPI_FISS_B", "4294967298", 1);
  expect_same_error_everywhere([] { (void)Options::from_env(); }, "LB4MPI_FISS_B='4294967298' is out of range");
  unsetenv("LB4MPI_FISS_B");
}

// docs/OPTIONS.md and the checks agree on every numeric range: each range in
// the table's "values" column ("≥ 1", "> 0", "[0, 1]", "FSC: > 0; TAP, FAC:
// ≥ 0") is probed at its bound through the row's variable, for the
// techniques the row names (all when it names none).
struct Probe {
  std::string var;
  std::vector<Technique> techniques;
  std::string op;  // ">=", ">", "[]"
  double lo = 0.0, hi = 0.0;
};

std::vector<Technique> techniques_named(const std::string& text) {
  std::vector<Technique> out;
  std::string item;
  std::istringstream in(text);
  while (std::getline(in, item, ',')) {
    try {
      out.push_back(parse_technique(item));
    } catch (const Error&) {
      return {};
    }
  }
  return out;
}

std::vector<Probe> documented_ranges() {
  std::ifstream doc(LB4MPI_SOURCE_DIR "/docs/OPTIONS.md");
  EXPECT_TRUE(doc.good()) << "cannot read docs/OPTIONS.md";
  const std::regex row(R"(^\| `[a-z_.]+` \| `(LB4MPI_[A-Z_]+)` \| ([^|]*) \| ([^|]*) \|$)");
  const std::regex range(R"((?:([A-Za-z0-9, -]+): )?(≥|>) (-?[0-9.]+)|\[(-?[0-9.]+), (-?[0-9.]+)\])");
  std::vector<Probe> out;
  std::string line;
  while (std::getline(doc, line)) {
    std::smatch m;
    if (!std::regex_match(line, m, row)) continue;
    const std::string values = m[2];
    const std::string meaning = m[3];
    const auto colon = meaning.find(':');
    const std::vector<Technique> row_techniques =
        colon == std::string::npos ? std::vector<Technique>{} : techniques_named(meaning.substr(0, colon));
    for (auto it = std::sregex_iterator(values.begin(), values.end(), range); it != std::sregex_iterator(); ++it) {
      const std::smatch& r = *it;
      Probe p;
      p.var = m[1];
      p.techniques = r[1].matched ? techniques_named(r[1]) : row_techniques;
      if (r[4].matched) {
        p.op = "[]";
        p.lo = std::stod(r[4]);
        p.hi = std::stod(r[5]);
      } else {
        p.op = r[2] == "≥" ? ">=" : ">";
        p.lo = std::stod(r[3]);
      }
      out.push_back(p);
    }
  }
  return out;
}

// Whether LB4MPI_<var>=value is accepted for technique t (N = 1000, P = 4).
bool accepted(const std::string& var, double value, Technique t, std::string& why) {
  char text[64];
  std::snprintf(text, sizeof text, "%.17g", value);
  setenv(var.c_str(), text, 1);
  bool ok = true;
  try {
    Options o = Options::from_env();
    o.technique = t;
    o.validate(1000, 4);
  } catch (const Error& e) {
    ok = false;
    why = e.what();
  }
  unsetenv(var.c_str());
  return ok;
}

TEST(Errors, DocumentedRangesAreTheCheckedRanges) {
  const std::vector<Probe> probes = documented_ranges();
  ASSERT_GE(probes.size(), 9U) << "docs/OPTIONS.md: the table's ranges were not found";
  for (const Probe& p : probes) {
    std::vector<Technique> ts = p.techniques;
    if (ts.empty()) {
      for (const TechniqueInfo& ti : all_techniques()) ts.push_back(ti.technique);
    }
    for (Technique t : ts) {
      const std::string where = p.var + " for " + std::string(name(t)) + " (docs: " + p.op + " " +
                                std::to_string(p.lo) + ")";
      std::string why;
      // Integers (min chunk, FISS batches) step by 1, reals by a little.
      const double below = p.lo == std::floor(p.lo) && p.lo >= 1.0 ? p.lo - 1.0 : p.lo - 1e-6;
      EXPECT_FALSE(accepted(p.var, below, t, why)) << where << ": a value below the range is accepted";
      EXPECT_NE(why.find(p.var + "="), std::string::npos) << where << ": the error does not name the variable: " << why;
      if (p.op == ">=" || p.op == "[]") {
        EXPECT_TRUE(accepted(p.var, p.lo, t, why)) << where << ": the bound is rejected: " << why;
      } else {
        EXPECT_FALSE(accepted(p.var, p.lo, t, why)) << where << ": the bound is accepted";
        EXPECT_TRUE(accepted(p.var, p.lo + 1e-6, t, why)) << where << ": just above the bound is rejected: " << why;
      }
      if (p.op == "[]") {
        EXPECT_TRUE(accepted(p.var, p.hi, t, why)) << where << ": the upper bound is rejected: " << why;
        EXPECT_FALSE(accepted(p.var, p.hi + 1e-6, t, why)) << where << ": above the range is accepted";
      }
    }
  }
}

}  // namespace
}  // namespace lb4mpi::test
