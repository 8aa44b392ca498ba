// A2WS and its baselines under MPI (label a2ws), in one mpiexec launch:
//   - the packed head/tail deque in its window: owners, thieves and pushes
//     racing with random delays never hand out a task twice or lose one;
//   - the ring exchange: every rank's view converges to what the ranks of
//     its subsystem published, for every radius, and nothing unchanged is sent;
//   - owned loops with balancer a2ws (every radius R = 1..P), lw,
//     random-steal and token, on communicators of every size P = 2..8 cut
//     from the launch: every iteration exactly
//     once, with its items, its results back at its owner, under random
//     delays and heterogeneous speeds.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "a2ws/deque.hpp"
#include "a2ws/ring_info.hpp"
#include "lb4mpi/stealing.hpp"
#include "runtime/clock.hpp"
#include "runtime/mpi.hpp"
#include "../runtime/mpi_check.hpp"

namespace lb4mpi::test {
namespace {

namespace a2ws = lb4mpi::a2ws;

int rank_in(MPI_Comm c) {
  int r = 0;
  MPI_Comm_rank(c, &r);
  return r;
}
int size_of(MPI_Comm c) {
  int s = 0;
  MPI_Comm_size(c, &s);
  return s;
}
Index sum_over(MPI_Comm c, Index v) {
  Index s = 0;
  rt::allreduce(&v, &s, 1, MPI_INT64_T, MPI_SUM, c);
  return s;
}

// ------------------------------------------------------------------ deque

// Rank 0 holds most tasks; every rank takes its own one at a time and,
// when it runs out (or by chance), steals 1..8 from a random rank and pushes
// them (so stolen tasks are stolen again). A rank leaves when its deque is
// empty and a round over every other rank found nothing. Small capacities
// make some pushes overflow into the private list.
TEST(A2wsDeque, OwnersAndThievesNeverTakeTheSameTask) {
  const int p = world_size(), me = world_rank();
  std::mt19937_64 rng(99 + static_cast<std::uint64_t>(me));
  for (const std::int64_t per_rank : {std::int64_t{400}, std::int64_t{37}}) {
    const std::int64_t mine = me == 0 ? per_rank * p : per_rank / 4;
    std::int64_t first = 0;
    {
      std::int64_t before = 0;
      MPI_Exscan(&mine, &before, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
      first = me == 0 ? 0 : before;
    }
    const std::int64_t total = sum_over(MPI_COMM_WORLD, mine);
    std::vector<std::int64_t> tasks(static_cast<std::size_t>(mine));
    for (std::int64_t k = 0; k < mine; ++k) tasks[static_cast<std::size_t>(k)] = first + k;
    std::vector<std::int32_t> ran(static_cast<std::size_t>(total), 0);
    Index steals = 0, short_steals = 0;
    {
      // The second round: barely more room than its own tasks.
      a2ws::TaskDeque dq(MPI_COMM_WORLD, per_rank == 37 ? mine + 3 : mine + total, tasks);
      std::uniform_int_distribution<int> victim(0, p - 1), delay(0, 30);
      for (;;) {
        std::int64_t t = dq.take();
        if (t >= 0) {
          EXPECT_LT(t, total);
          if (t < total) ++ran[static_cast<std::size_t>(t)];
          rt::spin_for_us(delay(rng) < 3 ? 20.0 : 0.0);
          if (delay(rng) > 4) continue;  // now and then a thief even with work
        }
        if (p == 1) {
          if (t < 0) break;
          continue;
        }
        bool got = false;
        for (int tries = 0; tries < 3 * p && !got; ++tries) {
          const int v = victim(rng);
          if (v == me) continue;
          const std::int64_t k = 1 + delay(rng) % 8;
          const a2ws::TaskDeque::Stolen s = dq.steal(v, k);
          if (!s.tasks.empty()) {
            ++steals;
            if (static_cast<std::int64_t>(s.tasks.size()) < k) ++short_steals;
            dq.push(s.tasks);
            got = true;
          }
        }
        if (t < 0 && !got && dq.held() == 0) {
          // A last round over everyone before leaving.
          for (int v = 0; v < p && !got; ++v)
            if (v != me && dq.peek(v) > 0) got = true;
          if (!got) break;
        }
      }
      // Leaving with an empty deque: nothing can be pushed to it any more.
      EXPECT_EQ(dq.take(), -1);
      rt::barrier(MPI_COMM_WORLD);  // every rank past its last access before the window goes
    }
    EXPECT_EQ(not_run_once(ran), 0) << "tasks per rank " << per_rank;
    if (p > 1) {
      EXPECT_GT(sum_over(MPI_COMM_WORLD, steals), 0);
      // Stale views happen: some thief asked for more than was left.
      const Index shorts = sum_over(MPI_COMM_WORLD, short_steals);
      if (per_rank == 400) {
        EXPECT_GT(shorts, 0);
      }
    }
  }
}

// ------------------------------------------------------------------- ring

TEST(A2wsRing, ViewsConvergeForEveryRadiusAndOnlyChangesAreSent) {
  const int p = world_size(), me = world_rank();
  for (int radius = 1; radius <= p; ++radius) {
    const a2ws::RingLayout layout(p, me, radius);
    std::vector<a2ws::PeerView> initial(static_cast<std::size_t>(layout.slots()), a2ws::PeerView{-1, -1, -1});
    a2ws::RingInfo ring(MPI_COMM_WORLD, layout, initial);
    const auto expected = [&](int r, int round) {
      return a2ws::PeerView{100.0 * r + round, 0.5 * r + round, static_cast<double>(r + round)};
    };
    for (int round = 0; round < 3; ++round) {
      ring.set_self(expected(me, round));
      const double deadline = rt::clock_now() + 20.0;
      bool all = false;
      while (!all && rt::clock_now() < deadline) {
        ring.exchange();
        all = true;
        for (int s = 0; s < layout.slots(); ++s) {
          const a2ws::PeerView v = ring.view()[static_cast<std::size_t>(s)];
          const a2ws::PeerView e = expected(layout.rank_at(s), round);
          all = all && v.tasks == e.tasks && v.task_time == e.task_time && v.left == e.left;
        }
        if (!all) rt::backoff(rt::kSpinPolls);
      }
      EXPECT_TRUE(all) << "radius " << radius << " round " << round;
      // Everybody converged; a rank that still forwards does so before the
      // barrier's end, so afterwards nothing is left to send.
      int converged = all ? 1 : 0, everyone = 0;
      MPI_Request r = MPI_REQUEST_NULL;
      MPI_Iallreduce(&converged, &everyone, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD, &r);
      for (int done = 0; done == 0;) {
        ring.exchange();
        MPI_Test(&r, &done, MPI_STATUS_IGNORE);
      }
      ring.exchange();
      rt::barrier(MPI_COMM_WORLD);
      ring.exchange();
      rt::barrier(MPI_COMM_WORLD);
      EXPECT_EQ(ring.exchange(), 0) << "radius " << radius;
      rt::barrier(MPI_COMM_WORLD);  // before anybody publishes the next round
    }
    rt::barrier(MPI_COMM_WORLD);
  }
}

// ------------------------------------------------------------ owned loops

// Global iteration i's item, and the result computed from it.
std::int64_t item_of(Index i) { return 5 * i + 1; }
double result_of(Index i, std::int64_t item) { return static_cast<double>(item) * 0.25 + static_cast<double>(i % 7); }

struct Outcome {
  StealReport report;
  Index wrong_count = 0, wrong_items = 0, wrong_results = 0;
};

/// An owned loop on `comm` over 24 iterations per rank, rank 0 owning half
/// of them; every iteration spins 0-40 us at random (rank 0's longer), and
/// speeds vary per rank when `hetero`.
Outcome run_case(MPI_Comm comm, StealOptions opt, bool with_data, std::uint64_t seed) {
  const int p = size_of(comm), me = rank_in(comm);
  const Index n = 24 * p;
  const Index zero_share = p == 1 ? n : n / 2;
  const Index rest = (n - zero_share) / std::max(1, p - 1);
  const Index first = me == 0 ? 0 : zero_share + (me - 1) * rest;
  const Index last = me == 0 ? zero_share : (me == p - 1 ? n : first + rest);
  std::vector<std::int64_t> items(static_cast<std::size_t>(last - first));
  for (Index i = first; i < last; ++i) items[static_cast<std::size_t>(i - first)] = item_of(i);
  std::vector<double> results(items.size(), -1.0);
  std::vector<std::int32_t> ran(static_cast<std::size_t>(n), 0);
  std::mt19937_64 rng(seed + 7919 * static_cast<std::uint64_t>(world_rank()));
  std::uniform_real_distribution<double> us(0.0, 40.0);
  Index wrong_items = 0;
  Outcome o;
  const auto spin = [&](Index i) { rt::spin_for_us(us(rng) * (i < zero_share ? 2.0 : 1.0)); };
  if (with_data) {
    o.report = owned_for(comm, first, last, ArrayData<std::int64_t>(items), ArrayData<double>(results), opt,
                         [&](Chunk c, std::span<std::int64_t> in, std::span<double> out) {
                           for (Index k = 0; k < c.size; ++k) {
                             const Index i = c.begin + k;
                             ++ran[static_cast<std::size_t>(i)];
                             if (in[static_cast<std::size_t>(k)] != item_of(i)) ++wrong_items;
                             out[static_cast<std::size_t>(k)] = result_of(i, in[static_cast<std::size_t>(k)]);
                             spin(i);
                           }
                         });
  } else {
    o.report = owned_for(comm, first, last, NoData{}, opt, [&](Chunk c, NoView) {
      for (Index i = c.begin; i < c.end(); ++i) {
        ++ran[static_cast<std::size_t>(i)];
        spin(i);
      }
    });
    for (Index i = first; i < last; ++i) results[static_cast<std::size_t>(i - first)] = result_of(i, item_of(i));
  }
  Index wrong_results = 0;
  for (Index i = first; i < last; ++i)
    if (results[static_cast<std::size_t>(i - first)] != result_of(i, item_of(i))) ++wrong_results;
  o.wrong_count = not_run_once(ran, comm);
  o.wrong_items = sum_over(comm, wrong_items);
  o.wrong_results = sum_over(comm, wrong_results);
  return o;
}

void expect_correct(MPI_Comm comm, const Outcome& o, const std::string& what) {
  const int p = size_of(comm);
  EXPECT_EQ(o.wrong_count, 0) << what;
  EXPECT_EQ(o.wrong_items, 0) << what;
  EXPECT_EQ(o.wrong_results, 0) << what;
  EXPECT_EQ(o.report.loop.iterations(), 24 * p) << what;
  ASSERT_EQ(static_cast<int>(o.report.ranks.size()), p) << what;
  Index given = 0;
  for (const RankSteals& r : o.report.ranks) given += r.iterations_given;
  EXPECT_EQ(given, o.report.iterations_stolen()) << what;
  EXPECT_GE(o.report.steal_attempts(), o.report.successful_steals()) << what;
  EXPECT_GT(o.report.loop.t_par, 0.0) << what;
}

/// Communicators of every size k = 2 .. W cut from the launch (ranks
/// 0..k-1), one after the other: f(comm) runs on the members, the others
/// wait. (Not side by side: Open MPI 4.1 names the shared memory of a window
/// after its communicator's context id, which two disjoint communicators
/// may share; their windows created at the same time clash: "MPI_Win_allocate
/// failed: MPI_ERR_WIN", help-opal-shmem-mmap.txt "open(2) ... No such file".)
template <class F>
void for_each_group_size(F&& f) {
  const int w = world_size(), me = world_rank();
  for (int k = std::min(2, w); k <= w; ++k) {
    MPI_Comm comm = MPI_COMM_NULL;
    MPI_Comm_split(MPI_COMM_WORLD, me < k ? 0 : MPI_UNDEFINED, me, &comm);
    if (comm != MPI_COMM_NULL) {
      f(comm);
      MPI_Comm_free(&comm);
    }
    // The others wait here, yielding the core (in MPI_Comm_split, MPICH would
    // spin and take it from the members: 70 s instead of 2 s).
    rt::barrier(MPI_COMM_WORLD);
  }
}

std::string what_of(MPI_Comm comm, const StealOptions& o) {
  return std::string(name(o.balancer)) + " P=" + std::to_string(size_of(comm)) + " R=" + std::to_string(o.radius) +
         (o.preemptive ? "" : " non-preemptive") + (o.speeds.empty() ? "" : " hetero");
}

std::vector<double> speeds_for(int p) {
  std::vector<double> s(static_cast<std::size_t>(p));
  for (int r = 0; r < p; ++r) s[static_cast<std::size_t>(r)] = r % 3 == 1 ? 1.0 : 3.0;  // every third rank 3x slower
  return s;
}

TEST(A2wsOwnedLoops, EveryRadiusRunsEachIterationOnceOnEveryGroupSize) {
  Index stolen = 0;
  for_each_group_size([&](MPI_Comm comm) {
    const int p = size_of(comm);
    for (int radius = 1; radius <= p; ++radius) {
      StealOptions opt;
      opt.balancer = Balancer::A2WS;
      opt.radius = radius;
      opt.break_after = 1;  // tasks of one iteration: many steals
      opt.seed = static_cast<std::uint64_t>(radius);
      if (radius % 2 == 0) opt.speeds = speeds_for(p);
      const Outcome o = run_case(comm, opt, true, static_cast<std::uint64_t>(radius));
      expect_correct(comm, o, what_of(comm, opt));
      stolen += o.report.iterations_stolen();
    }
  });
  EXPECT_GT(stolen, 0);
}

TEST(A2wsOwnedLoops, BaselinesAndVariantsRunEachIterationOnceOnEveryGroupSize) {
  Index stolen = 0;
  for_each_group_size([&](MPI_Comm comm) {
    const int p = size_of(comm);
    std::vector<StealOptions> cases;
    for (Balancer b : {Balancer::LW, Balancer::RandomSteal, Balancer::Token}) {
      StealOptions o;
      o.balancer = b;
      o.break_after = 1;
      o.coordinator = p - 1;  // LW: a leader that is not rank 0
      o.speeds = speeds_for(p);
      cases.push_back(o);
    }
    StealOptions lazy;  // A2WS stealing only once a deque is empty
    lazy.balancer = Balancer::A2WS;
    lazy.preemptive = false;
    lazy.radius = p / 2 + 1;
    lazy.break_after = 2;
    cases.push_back(lazy);
    int k = 0;
    for (const StealOptions& o : cases) {
      const Outcome out = run_case(comm, o, true, 100 + static_cast<std::uint64_t>(k++));
      expect_correct(comm, out, what_of(comm, o));
      stolen += out.report.iterations_stolen();
    }
    // Without data: only task names move.
    StealOptions bare;
    bare.balancer = Balancer::A2WS;
    bare.radius = 2;
    const Outcome out = run_case(comm, bare, false, 200);
    expect_correct(comm, out, what_of(comm, bare) + " without data");
  });
  EXPECT_GT(stolen, 0);
}

}  // namespace
}  // namespace lb4mpi::test
