// Which calls liblb4mpi_perturb delays, counted exactly: run on 3 ranks with
// LB4MPI_PERTURB_RANKS=2 and the library preloaded. Each phase makes known
// calls; every rank compares the library's counter of delayed calls
// (lb4mpi_perturb_delayed_calls, found with dlsym) before and after with what
// it expects: a call is delayed when the caller is world rank 2 or the
// destination / target is world rank 2 — after translating ranks of split
// communicators and windows, also of a communicator (window) created after
// another one was freed (a stale cache entry for a reused handle would show).
// Prints "counts: ok" on rank 0 and exits 0, or names each mismatch and exits 1.
#include <dlfcn.h>
#include <mpi.h>

#include <cstdio>
#include <cstdlib>

namespace {

using Counter = long long (*)();
Counter delayed_calls = nullptr;
Counter delayed_ns = nullptr;
int rank = -1;
int failures = 0;
long long mark = 0;

// Checks the calls delayed since the last check; expected[r] is world rank r's count.
void expect(const char* phase, const int (&expected)[3]) {
  const long long now = delayed_calls();
  const long long got = now - mark;
  mark = now;
  if (got != expected[rank]) {
    std::fprintf(stderr, "counts: rank %d, phase '%s': %lld calls delayed, expected %d\n", rank, phase, got,
                 expected[rank]);
    ++failures;
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

void world_point_to_point() {
  int v = 0;
  int w[2] = {0, 0};
  MPI_Request req;
  if (rank == 0) {
    MPI_Send(&v, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);                    // to 1: no
    MPI_Send(&v, 1, MPI_INT, 2, 0, MPI_COMM_WORLD);                    // to 2: delayed
    MPI_Recv(&v, 1, MPI_INT, 2, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);  // receives are never delayed
    MPI_Ssend(&v, 1, MPI_INT, 1, 1, MPI_COMM_WORLD);                   // to 1: no
    MPI_Send(&v, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD);        // no message: no
    MPI_Sendrecv(&w[0], 1, MPI_INT, 1, 2, &w[1], 1, MPI_INT, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);  // no
  } else if (rank == 1) {
    MPI_Recv(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Isend(&v, 1, MPI_INT, 2, 3, MPI_COMM_WORLD, &req);             // to 2: delayed
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Recv(&v, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&w[0], 1, MPI_INT, 0, 2, &w[1], 1, MPI_INT, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);  // no
  } else {
    MPI_Recv(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Send(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);                    // from 2: delayed
    MPI_Recv(&v, 1, MPI_INT, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv_replace(&v, 1, MPI_INT, MPI_PROC_NULL, 4, MPI_PROC_NULL, 4, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);                           // no message: no
  }
  expect("MPI_COMM_WORLD point-to-point", {1, 1, 1});
}

// Ranks of `comm` are world ranks reversed (comm rank c = world rank 2 - c) when
// `reversed`, else the same.
void split_point_to_point(MPI_Comm comm, bool reversed, const char* phase) {
  int v = 0;
  const auto c = [&](int world) { return reversed ? 2 - world : world; };
  // Two messages to world 0, one to world 2: a translation that swapped them
  // (identity for reversed, or the reverse for identity) would delay 2, not 1.
  if (rank == 1) {
    MPI_Send(&v, 1, MPI_INT, c(0), 5, comm);  // to world 0: no
    MPI_Send(&v, 1, MPI_INT, c(0), 5, comm);  // to world 0: no
    MPI_Send(&v, 1, MPI_INT, c(2), 5, comm);  // to world 2: delayed
  } else {
    for (int k = rank == 0 ? 2 : 1; k > 0; --k) MPI_Recv(&v, 1, MPI_INT, c(1), 5, comm, MPI_STATUS_IGNORE);
  }
  expect(phase, {0, 1, 0});
}

void one_sided(MPI_Comm comm, bool reversed, const char* phase, const int (&expected)[3]) {
  const auto c = [&](int world) { return reversed ? 2 - world : world; };
  long long* base = nullptr;
  MPI_Win win;
  MPI_Win_allocate(2 * sizeof(long long), sizeof(long long), MPI_INFO_NULL, comm, &base, &win);
  base[0] = base[1] = 0;
  MPI_Barrier(comm);
  mark = delayed_calls();
  MPI_Win_lock_all(0, win);
  const long long one = 1;
  long long got = 0, cmp = 0;
  if (rank == 0) {
    MPI_Fetch_and_op(&one, &got, MPI_LONG_LONG, c(2), 0, MPI_SUM, win);                     // delayed
    MPI_Get(&got, 1, MPI_LONG_LONG, c(1), 0, 1, MPI_LONG_LONG, win);                          // no
    MPI_Put(&one, 1, MPI_LONG_LONG, c(1), 1, 1, MPI_LONG_LONG, win);                          // no
    MPI_Compare_and_swap(&one, &cmp, &got, MPI_LONG_LONG, c(2), 1, win);                      // delayed
    MPI_Accumulate(&one, 1, MPI_LONG_LONG, c(0), 0, 1, MPI_LONG_LONG, MPI_SUM, win);          // self: no
    MPI_Get_accumulate(&one, 1, MPI_LONG_LONG, &got, 1, MPI_LONG_LONG, c(2), 0, 1, MPI_LONG_LONG, MPI_SUM,
                       win);                                                                   // delayed
  } else if (rank == 2) {
    MPI_Put(&one, 1, MPI_LONG_LONG, c(1), 0, 1, MPI_LONG_LONG, win);                          // from 2: delayed
  }
  MPI_Win_unlock_all(win);
  expect(phase, expected);
  MPI_Win_free(&win);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  delayed_calls = reinterpret_cast<Counter>(dlsym(RTLD_DEFAULT, "lb4mpi_perturb_delayed_calls"));
  delayed_ns = reinterpret_cast<Counter>(dlsym(RTLD_DEFAULT, "lb4mpi_perturb_delayed_ns"));
  if (delayed_calls == nullptr || delayed_ns == nullptr || size != 3) {
    if (rank == 0) {
      std::fprintf(stderr, "counts: needs 3 ranks (got %d) and liblb4mpi_perturb.so in LD_PRELOAD (%s)\n", size,
                   delayed_calls ? "found" : "not found");
    }
    MPI_Finalize();
    return 1;
  }
  mark = delayed_calls();
  world_point_to_point();

  MPI_Comm reversed, same;
  MPI_Comm_split(MPI_COMM_WORLD, 0, 2 - rank, &reversed);
  split_point_to_point(reversed, true, "reversed communicator");
  MPI_Comm freed = reversed;
  MPI_Comm_free(&reversed);
  // Likely the same handle again: its ranks must be translated afresh.
  MPI_Comm_split(MPI_COMM_WORLD, 0, rank, &same);
  if (rank == 0) std::printf("counts: communicator handle reused after MPI_Comm_free: %s\n", same == freed ? "yes" : "no");
  split_point_to_point(same, false, "communicator created after MPI_Comm_free");

  MPI_Comm dup;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  one_sided(dup, false, "window on a duplicate of MPI_COMM_WORLD", {3, 0, 1});
  MPI_Comm_split(MPI_COMM_WORLD, 0, 2 - rank, &reversed);
  // Targets c(2) = 0 (world 2, delayed), c(1), c(0) = 2 (world 0, self).
  one_sided(reversed, true, "window on a reversed communicator, after MPI_Win_free", {3, 0, 1});
  one_sided(same, false, "window on the identity communicator, after MPI_Win_free", {3, 0, 1});
  MPI_Comm_free(&reversed);
  MPI_Comm_free(&same);
  MPI_Comm_free(&dup);

  // Every delayed call waited the latency (LB4MPI_PERTURB_LATENCY_US).
  const char* lat = std::getenv("LB4MPI_PERTURB_LATENCY_US");
  const long long expected_ns = delayed_calls() * (lat ? std::atoll(lat) : 0) * 1000;
  if (delayed_ns() != expected_ns) {
    std::fprintf(stderr, "counts: rank %d: %lld ns of delay counted, expected %lld\n", rank, delayed_ns(),
                 expected_ns);
    ++failures;
  }
  int all = 0;
  MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0 && all == 0) std::printf("counts: ok\n");
  MPI_Finalize();
  return all == 0 ? 0 : 1;
}
