// Round trips between world ranks 0 and 1, for check_pingpong.cmake: rank 0
// prints one line per kind of exchange,
//   rtt <kind> median_ns=<n> mean_ns=<n>
// kinds: send (MPI_Send / MPI_Recv on MPI_COMM_WORLD), isend (MPI_Isend +
// MPI_Wait), split (MPI_Send on a communicator whose rank order is the reverse
// of MPI_COMM_WORLD's), rma (MPI_Fetch_and_op + MPI_Win_flush from rank 0 to
// a window of rank 1 on a duplicate of MPI_COMM_WORLD: one message per round
// trip, the others two). Usage: pingpong [iterations] (default 200).
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

void report(int rank, const char* kind, std::vector<long long>& ns) {
  if (rank != 0) return;
  std::sort(ns.begin(), ns.end());
  const long long median = ns[ns.size() / 2];
  const long long mean = std::accumulate(ns.begin(), ns.end(), 0LL) / static_cast<long long>(ns.size());
  std::printf("rtt %s median_ns=%lld mean_ns=%lld\n", kind, median, mean);
  std::fflush(stdout);
}

// Round trips between the ranks 0 and 1 of `comm` (the others wait).
void two_sided(MPI_Comm comm, const char* kind, bool nonblocking, int iterations, int warmup) {
  int rank = 0, world = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_rank(MPI_COMM_WORLD, &world);
  std::vector<long long> ns;
  int token = 0;
  for (int i = 0; i < warmup + iterations; ++i) {
    const auto t0 = Clock::now();
    if (rank == 0 || rank == 1) {
      const int other = 1 - rank;
      if (rank == 1) MPI_Recv(&token, 1, MPI_INT, other, 7, comm, MPI_STATUS_IGNORE);
      ++token;
      if (nonblocking) {
        MPI_Request req;
        MPI_Isend(&token, 1, MPI_INT, other, 7, comm, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
      } else {
        MPI_Send(&token, 1, MPI_INT, other, 7, comm);
      }
      if (rank == 0) MPI_Recv(&token, 1, MPI_INT, other, 7, comm, MPI_STATUS_IGNORE);
    }
    if (i >= warmup) ns.push_back(std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t0).count());
  }
  // Report from the process that is world rank 0 (comm rank 1 in the reversed communicator).
  if (world == 0) report(0, kind, ns);
  MPI_Barrier(MPI_COMM_WORLD);
}

void one_sided(int iterations, int warmup) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm dup;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  long long* base = nullptr;
  MPI_Win win;
  MPI_Win_allocate(sizeof(long long), sizeof(long long), MPI_INFO_NULL, dup, &base, &win);
  *base = 0;
  MPI_Barrier(dup);
  std::vector<long long> ns;
  if (rank == 0) {
    MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
    const long long one = 1;
    long long old = 0;
    for (int i = 0; i < warmup + iterations; ++i) {
      const auto t0 = Clock::now();
      MPI_Fetch_and_op(&one, &old, MPI_LONG_LONG, 1, 0, MPI_SUM, win);
      MPI_Win_flush(1, win);
      if (i >= warmup) ns.push_back(std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t0).count());
    }
    MPI_Win_unlock(1, win);
    if (old != warmup + iterations - 1) {
      std::fprintf(stderr, "pingpong: fetch-and-op returned %lld, expected %d\n", old, warmup + iterations - 1);
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
    report(0, "rma", ns);
  }
  MPI_Barrier(dup);
  MPI_Win_free(&win);
  MPI_Comm_free(&dup);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const int iterations = argc > 1 ? std::atoi(argv[1]) : 200;
  int size = 0, rank = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (size < 2 || iterations < 1) {
    if (rank == 0) std::fprintf(stderr, "pingpong: needs 2 or more ranks and iterations >= 1\n");
    MPI_Finalize();
    return 2;
  }
  const int warmup = 10;
  two_sided(MPI_COMM_WORLD, "send", false, iterations, warmup);
  two_sided(MPI_COMM_WORLD, "isend", true, iterations, warmup);
  MPI_Comm reversed;
  MPI_Comm_split(MPI_COMM_WORLD, 0, size - 1 - rank, &reversed);
  // Ranks 0 and 1 of the reversed communicator are world ranks size-1 and size-2:
  // world 1 and 0 on 2 ranks.
  two_sided(reversed, "split", false, iterations, warmup);
  MPI_Comm_free(&reversed);
  one_sided(iterations, warmup);
  MPI_Finalize();
  return 0;
}
