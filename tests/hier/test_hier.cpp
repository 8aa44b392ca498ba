// Hierarchical mode (docs/RUNTIME.md, "Hierarchical"): emulated nodes of 2
// and 3 ranks (LB4MPI_RANKS_PER_NODE), so that one launch of 4 or 6 ranks
// has even nodes, uneven ones and (4 ranks as 3 + 1) a node of one rank.
// Every case checks that each iteration ran exactly once (a bitmap summed
// over the ranks).
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "../runtime/mpi_check.hpp"
#include "lb4mpi/loops.hpp"

namespace lb4mpi::test {
namespace {

Options hier(Technique global, Technique node, int ranks_per_node, Mode global_mode = Mode::Distributed) {
  Options o;
  o.mode = Mode::Hierarchical;
  o.technique = global;
  o.node_technique = node;
  o.ranks_per_node = ranks_per_node;
  o.global_mode = global_mode;
  return o;
}

std::string label(const Options& o) {
  return std::string(name(o.technique)) + "/" + std::string(name(o.node_technique)) + " " +
         std::string(name(o.global_mode)) + ", nodes of " + std::to_string(o.ranks_per_node);
}

// Collective: how many iterations did not run exactly `times` times over all ranks.
Index not_run(const std::vector<std::int32_t>& local, int times) {
  std::vector<std::int32_t> all(local.size());
  rt::allreduce(local.data(), all.data(), static_cast<int>(local.size()), MPI_INT32_T, MPI_SUM, MPI_COMM_WORLD);
  Index wrong = 0;
  for (auto v : all) wrong += (v != times);
  return wrong;
}

std::vector<Technique> every_technique() {
  std::vector<Technique> out;
  for (const TechniqueInfo& t : all_techniques()) out.push_back(t.technique);
  return out;
}

// Every technique inside a node, between nodes FAC2, on nodes of 2 and 3.
TEST(Hierarchical, EveryTechniqueInsideANode) {
  for (int k : {2, 3}) {
    for (Technique t : every_technique()) {
      const Options o = hier(Technique::FAC2, t, k);
      SCOPED_TRACE(label(o));
      expect_exactly_once(run_and_cover(0, 2000, o), 2000);
    }
  }
}

// A representative set between nodes, in each global model.
TEST(Hierarchical, TechniquesBetweenNodesInEveryGlobalModel) {
  for (Mode m : {Mode::Centralized, Mode::Distributed, Mode::DistributedRMA}) {
    for (Technique t : {Technique::STATIC, Technique::SS, Technique::GSS, Technique::FAC2, Technique::TSS,
                        Technique::AWF_B, Technique::AF}) {
      const Options o = hier(t, Technique::GSS, 3, m);
      SCOPED_TRACE(label(o));
      expect_exactly_once(run_and_cover(0, 3001, o), 3001);
    }
  }
}

// The "done when": FAC2, GSS, SS and AF at both levels, nodes of 2 and 3.
TEST(Hierarchical, SameTechniqueAtBothLevels) {
  for (int k : {2, 3}) {
    for (Technique t : {Technique::FAC2, Technique::GSS, Technique::SS, Technique::AF}) {
      const Options o = hier(t, t, k);
      SCOPED_TRACE(label(o));
      expect_exactly_once(run_and_cover(-50, 4950, o), 5000);
      expect_exactly_once(run_and_cover(0, 1, o), 1);  // fewer iterations than ranks
      expect_exactly_once(run_and_cover(0, 0, o), 0);
    }
  }
}

// Several executions of one loop (adaptive techniques learn at both levels
// across them), and the nodes MPI reports (ranks_per_node 0).
TEST(Hierarchical, TimeStepsAndSharedMemoryNodes) {
  for (int k : {0, 2}) {
    Options o = hier(Technique::AWF_D, Technique::AF, k, Mode::Centralized);
    SCOPED_TRACE(label(o));
    const Index n = 1500;
    std::vector<std::int32_t> local(static_cast<std::size_t>(n), 0);
    Loop loop(MPI_COMM_WORLD, 0, n, o);
    for (int step = 0; step < 3; ++step) {
      if (step > 0) loop.restart(0, n);
      while (auto c = loop.next()) {
        for (Index i = c->begin; i < c->end(); ++i) ++local[static_cast<std::size_t>(i)];
      }
      const Report r = loop.finish();
      EXPECT_EQ(r.iterations(), n);
      EXPECT_EQ(r.mode, Mode::Hierarchical);
    }
    EXPECT_EQ(not_run(local, 3), 0);  // three executions: each iteration three times
  }
}

// Loops in flight together: a hierarchical one beside a flat one.
TEST(Hierarchical, InALoopSet) {
  std::vector<LoopSpec> specs = {{0, 1200, hier(Technique::FAC2, Technique::SS, 2)}, {0, 800, Options{}}};
  specs[1].options.technique = Technique::GSS;
  std::vector<std::vector<std::int32_t>> local = {std::vector<std::int32_t>(1200, 0),
                                                  std::vector<std::int32_t>(800, 0)};
  LoopSet set(MPI_COMM_WORLD, specs);
  while (auto p = set.next()) {
    for (Index i = p->chunk.begin; i < p->chunk.end(); ++i) ++local[static_cast<std::size_t>(p->loop)][static_cast<std::size_t>(i)];
  }
  const std::vector<Report> reports = set.finish();
  ASSERT_EQ(reports.size(), 2u);
  EXPECT_EQ(not_run_once(local[0]), 0);
  EXPECT_EQ(not_run_once(local[1]), 0);
}

// Automatic selection between nodes.
TEST(Hierarchical, AutoBetweenNodes) {
  Options o = hier(Technique::Auto, Technique::GSS, 2);
  const Index n = 2000;
  std::vector<std::int32_t> local(static_cast<std::size_t>(n), 0);
  Loop loop(MPI_COMM_WORLD, 0, n, o);
  const int steps = 5;
  for (int step = 0; step < steps; ++step) {
    if (step > 0) loop.restart(0, n);
    while (auto c = loop.next()) {
      for (Index i = c->begin; i < c->end(); ++i) ++local[static_cast<std::size_t>(i)];
    }
    EXPECT_EQ(loop.finish().iterations(), n);
  }
  EXPECT_EQ(not_run(local, steps), 0);
}

// The trace shows both levels: each leader's global chunks ("global"
// records, absolute indices) tile the loop, and every sub-chunk a rank ran
// lies inside one of its node's global chunks. No global chunk but the
// loop's last is below the floor of 2 iterations per rank of a node.
TEST(Hierarchical, TraceShowsBothLevels) {
  int rank = 0;
  int size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  Options o = hier(Technique::FAC2, Technique::GSS, 2, Mode::DistributedRMA);
  std::string path;
  if (rank == 0) {
    path = (std::filesystem::temp_directory_path() /
            ("lb4mpi_test_hier_trace_" + std::to_string(::getpid()) + "_p" + std::to_string(size) + ".csv"))
               .string();
    std::filesystem::remove(path);
  }
  int len = static_cast<int>(path.size());
  MPI_Bcast(&len, 1, MPI_INT, 0, MPI_COMM_WORLD);
  path.resize(static_cast<std::size_t>(len));
  MPI_Bcast(path.data(), len, MPI_CHAR, 0, MPI_COMM_WORLD);
  o.trace = path;
  const Index first = (Index{1} << 33) + 5;  // starts in the trace are absolute
  const Index n = 3000;
  std::vector<std::int32_t> local(static_cast<std::size_t>(n), 0);
  parallel_for(MPI_COMM_WORLD, first, first + n, o, [&](Chunk c) {
    for (Index i = c.begin; i < c.end(); ++i) ++local[static_cast<std::size_t>(i - first)];
  });
  EXPECT_EQ(not_run_once(local), 0);
  if (rank == 0) {
    struct Row {
      std::string kind;
      int rank = 0;
      Index start = 0;
      Index size = 0;
    };
    std::vector<Row> rows;
    std::ifstream in(path);
    std::string line;
    std::getline(in, line);  // header
    while (std::getline(in, line)) {
      std::vector<std::string> f;
      std::stringstream ss(line);
      for (std::string x; std::getline(ss, x, ',');) f.push_back(x);
      ASSERT_EQ(f.size(), 11u) << line;
      rows.push_back(Row{f[0], std::stoi(f[1]), std::stoll(f[6]), std::stoll(f[7])});
    }
    std::vector<std::int32_t> global_cover(static_cast<std::size_t>(n), 0);
    Index chunks = 0;
    int narrow = 0;  // global chunks of fewer than 2 iterations per rank of a node: the loop's last only
    for (const Row& r : rows) {
      if (r.kind != "global") continue;
      EXPECT_EQ(r.rank % 2, 0) << "a global chunk on rank " << r.rank << ", not a leader (nodes of 2)";
      if (r.size < 2 * 2) ++narrow;
      for (Index i = r.start; i < r.start + r.size; ++i) {
        ASSERT_TRUE(i >= first && i < first + n) << i;
        ++global_cover[static_cast<std::size_t>(i - first)];
      }
    }
    EXPECT_EQ(std::count(global_cover.begin(), global_cover.end(), 1), n) << "the global chunks do not tile the loop";
    EXPECT_LE(narrow, 1) << "global chunks below the floor of 2 iterations per rank of a node";
    for (const Row& c : rows) {
      if (c.kind != "chunk") continue;
      ++chunks;
      const bool inside = std::any_of(rows.begin(), rows.end(), [&](const Row& g) {
        return g.kind == "global" && g.rank / 2 == c.rank / 2 && g.start <= c.start && c.start + c.size <= g.start + g.size;
      });
      EXPECT_TRUE(inside) << "sub-chunk [" << c.start << ", +" << c.size << ") of rank " << c.rank
                          << " is in no global chunk of its node";
    }
    EXPECT_GT(chunks, 0);
    std::filesystem::remove(path);
  }
}

// Robust mode and a node technique of auto are refused on every rank, naming why.
TEST(Hierarchical, RefusedClearly) {
  Options o = hier(Technique::FAC2, Technique::GSS, 2);
  o.robust = true;
  try {
    parallel_for(MPI_COMM_WORLD, 0, 100, o, [](Chunk) {});
    ADD_FAILURE() << "robust hierarchical was not refused";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("robust mode is not available in hierarchical mode"), std::string::npos)
        << e.what();
  }
  o.robust = false;
  o.node_technique = Technique::Auto;
  try {
    parallel_for(MPI_COMM_WORLD, 0, 100, o, [](Chunk) {});
    ADD_FAILURE() << "node_technique auto was not refused";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("node_technique cannot be auto"), std::string::npos) << e.what();
  }
  // The communicator is still usable.
  expect_exactly_once(run_and_cover(0, 500, hier(Technique::GSS, Technique::GSS, 2)), 500);
}

}  // namespace
}  // namespace lb4mpi::test
