// Helpers for runtime tests: run a loop, gather which iterations ran where.
#pragma once
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "lb4mpi/lb4mpi.hpp"
#include "runtime/mpi.hpp"  // collectives that yield the core while they wait (MPICH oversubscribed)

namespace lb4mpi::test {

inline int world_rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}
inline int world_size() {
  int s = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &s);
  return s;
}

struct Coverage {
  std::vector<std::int32_t> count;  ///< how often each iteration ran, summed over all ranks
  Report report;
  Index local_iterations = 0;
  bool out_of_range = false;        ///< a chunk left [first, last) on some rank
  bool empty_chunk = false;         ///< a chunk of size <= 0 on some rank
};

/// Runs [first, last) with `opt`, recording every executed iteration in a
/// bitmap that is summed over all ranks.
inline Coverage run_and_cover(Index first, Index last, const Options& opt, MPI_Comm comm = MPI_COMM_WORLD) {
  Coverage c;
  std::vector<std::int32_t> local(static_cast<std::size_t>(last - first), 0);
  int bad_range = 0;
  int empty = 0;
  c.report = parallel_for(comm, first, last, opt, [&](Chunk ch) {
    if (ch.size <= 0) empty = 1;
    if (ch.begin < first || ch.end() > last) {
      bad_range = 1;
      return;
    }
    for (Index i = ch.begin; i < ch.end(); ++i) ++local[static_cast<std::size_t>(i - first)];
    c.local_iterations += ch.size;
  });
  c.count.resize(local.size());
  rt::allreduce(local.data(), c.count.data(), static_cast<int>(local.size()), MPI_INT32_T, MPI_SUM, comm);
  const int flags[2] = {bad_range, empty};
  int any[2] = {0, 0};
  rt::allreduce(flags, any, 2, MPI_INT, MPI_MAX, comm);
  c.out_of_range = any[0] != 0;
  c.empty_chunk = any[1] != 0;
  return c;
}

/// Collective: how many iterations did not run exactly once, given this
/// rank's per-iteration counts (summed over all ranks of `comm`).
inline Index not_run_once(const std::vector<std::int32_t>& local, MPI_Comm comm = MPI_COMM_WORLD) {
  std::vector<std::int32_t> all(local.size());
  rt::allreduce(local.data(), all.data(), static_cast<int>(local.size()), MPI_INT32_T, MPI_SUM, comm);
  Index wrong = 0;
  for (auto v : all) wrong += (v != 1);
  return wrong;
}

/// Asserts every iteration ran exactly once and the report agrees.
inline void expect_exactly_once(const Coverage& c, Index n) {
  EXPECT_FALSE(c.out_of_range);
  EXPECT_FALSE(c.empty_chunk);
  ASSERT_EQ(static_cast<Index>(c.count.size()), n);
  Index wrong = 0;
  Index first_wrong = -1;
  for (std::size_t i = 0; i < c.count.size(); ++i) {
    if (c.count[i] != 1) {
      if (first_wrong < 0) first_wrong = static_cast<Index>(i);
      ++wrong;
    }
  }
  EXPECT_EQ(wrong, 0) << "iterations not run exactly once; first at offset " << first_wrong << " (ran "
                      << (first_wrong >= 0 ? c.count[static_cast<std::size_t>(first_wrong)] : 0) << " times)";
  EXPECT_EQ(c.report.iterations(), n);
  EXPECT_EQ(static_cast<Index>(c.report.ranks.size()), world_size());
  EXPECT_EQ(c.report.ranks[static_cast<std::size_t>(world_rank())].iterations, c.local_iterations);
  EXPECT_GE(c.report.t_par, 0.0);
}

// Runs `f`, expects lb4mpi::Error containing `needle`, and checks that every
// rank saw the identical message.
inline void expect_same_error_everywhere(const std::function<void()>& f, const std::string& needle) {
  std::string msg;
  try {
    f();
  } catch (const Error& e) {
    msg = e.what();
  }
  EXPECT_NE(msg.find(needle), std::string::npos) << "message: '" << msg << "'";
  // Compare the message with rank 0's.
  int len = static_cast<int>(msg.size());
  int len0 = len;
  MPI_Bcast(&len0, 1, MPI_INT, 0, MPI_COMM_WORLD);
  std::string msg0 = msg;
  msg0.resize(static_cast<std::size_t>(len0));
  MPI_Bcast(msg0.data(), len0, MPI_CHAR, 0, MPI_COMM_WORLD);
  EXPECT_EQ(msg, msg0);
}

}  // namespace lb4mpi::test
