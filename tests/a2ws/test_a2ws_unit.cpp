// A2WS's pure parts, without MPI: the steal equations (`002` Eq. 2-10), the
// packed head/tail word under every interleaving a random schedule draws,
// and the ring layout of `002` §2.1.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <map>
#include <random>
#include <vector>

#include "a2ws/held_work.hpp"
#include "a2ws/packed_deque.hpp"
#include "a2ws/ring_layout.hpp"
#include "a2ws/smart.hpp"

namespace a2ws = lb4mpi::a2ws;

// ---------------------------------------------------------------- Eq. 2-10

TEST(SmartStealing, IdealRuntimeAndTasksEq2Eq3) {
  const std::vector<double> n{10, 10}, t{1, 2};
  EXPECT_DOUBLE_EQ(a2ws::ideal_runtime(n, t), 20.0 / 1.5);
  EXPECT_DOUBLE_EQ(a2ws::ideal_tasks(20, 1.5, 1.0), 20.0 / 1.5);
  EXPECT_DOUBLE_EQ(a2ws::ideal_tasks(20, 1.5, 2.0), 10.0 / 1.5);
}

TEST(SmartStealing, RatesOfAllRanksSumToZeroAndEqualizeFinishTimesEq4) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> tasks(0, 50), time(0.01, 3);
  for (int round = 0; round < 200; ++round) {
    const std::size_t p = 2 + round % 7;
    std::vector<double> n(p), t(p);
    for (std::size_t j = 0; j < p; ++j) {
      n[j] = std::floor(tasks(rng));
      t[j] = time(rng);
    }
    n[0] += 1;  // N > 0
    const double ideal = a2ws::ideal_runtime(n, t);
    double total = 0;
    for (std::size_t i = 0; i < p; ++i) {
      const double s = a2ws::steal_rate(n, t, i);
      total += s;
      // After its steal every rank would finish at t_ideal.
      EXPECT_NEAR(a2ws::pair_runtime(n[i], t[i], s), ideal, 1e-9 * ideal);
    }
    EXPECT_NEAR(total, 0.0, 1e-9);
  }
}

TEST(SmartStealing, RadiusLimitedRateUsesOnlyTheSubsystemEq5) {
  // Eq. 5 is Eq. 4 on the 2R+1 ranks the spans hold.
  const std::vector<double> n{4, 8, 12}, t{1, 1, 1};
  EXPECT_DOUBLE_EQ(a2ws::steal_rate(n, t, 0), 4.0);
  EXPECT_DOUBLE_EQ(a2ws::steal_rate(n, t, 2), -4.0);
}

TEST(SmartStealing, PairRateEqualizesThePairEq9Eq10) {
  for (double ti : {0.5, 1.0, 3.0})
    for (double tj : {0.25, 1.0, 7.0}) {
      const double ni = 3, nj = 17;
      const double s = a2ws::pair_rate(ni, ti, nj, tj);
      EXPECT_NEAR((ni + s) * ti, (nj - s) * tj, 1e-12);
      // Eq. 9 before simplification (with t_i * (1/t_i + 1/t_j) in the
      // denominator: the printed t_i / (...) is not a number of tasks).
      EXPECT_NEAR(s, (ni + nj) / (ti * (1 / ti + 1 / tj)) - ni, 1e-12);
    }
}

TEST(SmartStealing, RoundingPicksTheSmallerPairRuntimeEq6to8) {
  // A fast thief: rounding up (2) gives max(1*3, 2*1)... see the values.
  // thief t=1 n=0, victim t=3 n=2: S=1.5; floor: max(1*3, 1) = 3; ceil: max(0, 2) = 2.
  EXPECT_EQ(a2ws::round_rate(1.5, 0, 1, 2, 3), 2);
  // A slow thief: t=3 n=0, victim t=1 n=2: S=0.5; floor 0: max(2, 0) = 2; ceil 1: max(1, 3) = 3.
  EXPECT_EQ(a2ws::round_rate(0.5, 0, 3, 2, 1), 0);
  // A tie rounds up: t=1 both, n 0 and 3, S=1.5: max(2,1) = max(1,2).
  EXPECT_EQ(a2ws::round_rate(1.5, 0, 1, 3, 1), 2);
  EXPECT_DOUBLE_EQ(a2ws::pair_makespan(0, 1, 3, 1, 1), 2.0);
  // Integers stay.
  EXPECT_EQ(a2ws::round_rate(4.0, 1, 1, 9, 1), 4);
}

TEST(SmartStealing, PreemptiveStealingEstimatesFromElapsedTime) {
  // §2.2.1: after its first task the fastest rank sees everyone alike: no steal.
  const double elapsed1 = 1.0;
  std::vector<a2ws::PeerView> v{{10, 1.0, 9}, {10, 0.0, 9}, {10, 0.0, 9}};
  for (auto& p : v) p.task_time = a2ws::estimated_task_time(p, elapsed1);
  EXPECT_FALSE(a2ws::select_victim(v, 0, 0.5).has_value());
  // After its second task the others look half as fast: it steals.
  const double elapsed2 = 2.0;
  v = {{10, 1.0, 8}, {10, 0.0, 9}, {10, 0.0, 9}};
  for (auto& p : v) p.task_time = a2ws::estimated_task_time(p, elapsed2);
  const auto c = a2ws::select_victim(v, 0, 0.0);
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->criterion, a2ws::Criterion::ClosestRate);
  EXPECT_NE(c->victim, 0u);
  // S_0 = 30 / (1 * 2) - 10 = 5, S_j = 30 / (2 * 2) - 10 = -2.5: min = 2.5, rounded for the pair.
  EXPECT_EQ(c->amount, a2ws::round_rate(2.5, 10, 1, 10, 2));
  EXPECT_DOUBLE_EQ(a2ws::estimated_task_time({5, 0.0, 0}, 0.0), 1e-9);
}

TEST(SmartStealing, ClosestRateDrawsVictimsByHowWellTheyFit) {
  // Thief 0 needs S_0 > 0; victim 1 offers -S_1 close to it, victim 2 much more.
  const std::vector<a2ws::PeerView> v{{5, 1, 0}, {5, 2, 4}, {5, 8, 4}};
  const std::vector<double> n{5, 5, 5}, t{1, 2, 8};
  const double s0 = a2ws::steal_rate(n, t, 0), s1 = a2ws::steal_rate(n, t, 1), s2 = a2ws::steal_rate(n, t, 2);
  ASSERT_GT(s0, 0);
  ASSERT_LT(s2, s1);
  ASSERT_LT(s1, 0);
  const double w1 = 1 / (1 + std::abs(s0 + s1)), w2 = 1 / (1 + std::abs(s0 + s2));
  std::map<std::size_t, int> picks;
  const int draws = 10000;
  for (int k = 0; k < draws; ++k) {
    const auto c = a2ws::select_victim(v, 0, (k + 0.5) / draws);
    ASSERT_TRUE(c.has_value());
    ASSERT_EQ(c->criterion, a2ws::Criterion::ClosestRate);
    ++picks[c->victim];
    const double need = std::min(s0, c->victim == 1 ? -s1 : -s2);
    // At most half of the 4 the victim has left.
    EXPECT_EQ(c->amount, std::min<std::int64_t>(2, a2ws::round_rate(need, 5, 1, 5, t[c->victim])));
  }
  EXPECT_EQ(picks[0], 0);
  EXPECT_NEAR(picks[1] / double(draws), w1 / (w1 + w2), 0.001);
  EXPECT_NEAR(picks[2] / double(draws), w2 / (w1 + w2), 0.001);
}

TEST(SmartStealing, AmountsAreCappedAtHalfOfWhatTheVictimHasLeft) {
  // The pair balance says 50; the victim has 3 left to take: 2 of them
  // (half, rounded up: one steal never empties a victim of more than one).
  std::vector<a2ws::PeerView> v{{0, 1, 0}, {100, 1, 3}};
  auto c = a2ws::select_victim(v, 0, 0.3);
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->amount, 2);
  v[1].left = 1;  // its last stealable task can still go
  c = a2ws::select_victim(v, 0, 0.3);
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->amount, 1);
  v[1].left = 40;  // far from the balance: half of what is left
  c = a2ws::select_victim(v, 0, 0.3);
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->amount, 20);
  v[1].left = 0;  // nothing left to take: no steal, whatever the rates say
  EXPECT_FALSE(a2ws::select_victim(v, 0, 0.3).has_value());
}

TEST(SmartStealing, InPairComparisonWhenNoVictimHasASurplusToGive) {
  // The thief needs tasks (S_0 > 0), but the one rank with a surplus has
  // none in its deque (running, or private), and the other has no surplus
  // by Eq. 5: the pair (thief, rank 2) still gains from a steal (Eq. 10).
  const std::vector<a2ws::PeerView> v{{0, 1.0, 0}, {10, 1.0, 0}, {3, 1.0, 2}};
  const std::vector<double> n{0, 10, 3}, t{1, 1, 1};
  ASSERT_GT(a2ws::steal_rate(n, t, 0), 0.0);
  ASSERT_LT(a2ws::steal_rate(n, t, 1), 0.0);
  ASSERT_GE(a2ws::steal_rate(n, t, 2), 0.0);
  const auto c = a2ws::select_victim(v, 0, 0.0);
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->criterion, a2ws::Criterion::InPair);
  EXPECT_EQ(c->victim, 2u);
  EXPECT_EQ(c->amount, 1);  // (0 + 3) / 2 = 1.5, rounded up (Eq. 7: a tie), capped at half the 2 left
  // A slow thief next to equally loaded fast ranks: no steal helps any pair.
  const std::vector<a2ws::PeerView> w{{4, 4.0, 0}, {4, 1.0, 2}, {4, 1.0, 2}};
  EXPECT_FALSE(a2ws::select_victim(w, 0, 0.0).has_value());
}

TEST(SmartStealing, AThiefTakesNoTaskItWouldFinishAfterEverybodyElse) {
  // Near the end: a 24 times slower rank, idle; two fast ranks hold 30 and
  // 10 tasks. The pair rounding (Eq. 7, 8) would give it one of the 30
  // (finishing at 24 against 29 for the victim), but the fast ranks finish
  // all but that one in (40 - 1) / 2 = 19.5.
  const std::vector<a2ws::PeerView> slow{{0, 24.0, 0}, {30, 1.0, 29}, {10, 1.0, 9}};
  const std::vector<double> n{0, 30, 10}, t{24, 1, 1};
  const double s0 = a2ws::steal_rate(n, t, 0);
  ASSERT_GT(s0, 0.0);
  EXPECT_EQ(a2ws::round_rate(std::min(s0, -a2ws::steal_rate(n, t, 1)), 0, 24, 30, 1), 1);
  EXPECT_EQ(a2ws::round_rate(a2ws::pair_rate(0, 24, 30, 1), 0, 24, 30, 1), 1);
  EXPECT_EQ(a2ws::worth_stealing(1, 0, 24, 40, 2), 0);
  EXPECT_FALSE(a2ws::select_victim(slow, 0, 0.5).has_value());
  // A fast idle rank takes its share.
  const std::vector<a2ws::PeerView> fast{{0, 1.0, 0}, {30, 1.0, 29}, {10, 1.0, 9}};
  const auto c = a2ws::select_victim(fast, 0, 0.0);
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->victim, 1u);
  EXPECT_GE(c->amount, 6);
  // Early on the same slow rank may take a task: the others need far longer.
  const std::vector<a2ws::PeerView> early{{0, 24.0, 0}, {600, 1.0, 599}, {60, 1.0, 59}};
  EXPECT_TRUE(a2ws::select_victim(early, 0, 0.5).has_value());
  // The guard keeps the largest amount that still finishes in time.
  EXPECT_EQ(a2ws::worth_stealing(10, 0, 1, 22, 2), 7);  // 7 <= (22 - 7) / 2 = 7.5; 8 > 7
}

// ------------------------------------------------------- held work (issue 34)

TEST(HeldWork, TimeOfTheTasksHeldPerOwner) {
  // Rank 0 of 2 owns 1000 heavy tasks (4 s each); it ran 100, a thief took
  // 500 from its tail, it took 100 light tasks (1 s on the victim) and ran 80.
  a2ws::HeldWork h(2, 0, 1000);
  for (int k = 0; k < 100; ++k) {
    h.take(0);
    h.ran(0, 4.0);
  }
  h.sync(400);  // the thief's 500 came off its own tasks
  for (int k = 0; k < 100; ++k) h.took_in(1, 1.0);
  EXPECT_DOUBLE_EQ(h.time_of(1), 1.0);  // not run here yet: the victim's time
  for (int k = 0; k < 80; ++k) {
    h.take(1);
    h.ran(1, 1.0);
  }
  const a2ws::PeerView v = h.view(400, -1);
  EXPECT_EQ(v.tasks, 420.0);
  EXPECT_NEAR(v.tasks * v.task_time, 400 * 4.0 + 20 * 1.0, 1e-9);
  EXPECT_EQ(v.left, 400.0);
  // A thief takes from the tail: its own tasks first, then those taken in.
  h.sync(410);
  EXPECT_NEAR(h.view(410, -1).tasks * h.view(410, -1).task_time, 390 * 4.0 + 20 * 1.0, 1e-9);
  h.sync(10);
  EXPECT_NEAR(h.view(10, -1).tasks * h.view(10, -1).task_time, 10 * 1.0, 1e-9);
  // Nothing ran yet: t = 0, the thieves estimate it (002 §2.2.1).
  EXPECT_EQ(a2ws::HeldWork(2, 1, 5).view(5, -1).task_time, 0.0);
}

TEST(HeldWork, TheOverloadedRankDoesNotSteal) {
  // lb4mpi-pisolver --imbalance 30 at P = 2: rank 0's tasks cost 4, rank 1's 1.
  // Rank 0 (as above) holds 400 heavy and 20 light tasks: 1620 s of work;
  // rank 1 holds 350 heavy (stolen) and 50 light ones: 1450 s. Rank 0 has
  // the most left and must not steal. With the mean of all it ran (100 x 4
  // and 80 x 1 s: 2.67 s per task), its 420 tasks looked like 1120 s and it
  // stole from rank 1 (the erratic runs of issue 34).
  a2ws::HeldWork h(2, 0, 1000);
  for (int k = 0; k < 100; ++k) {
    h.take(0);
    h.ran(0, 4.0);
  }
  h.sync(400);
  for (int k = 0; k < 100; ++k) h.took_in(1, 1.0);
  for (int k = 0; k < 80; ++k) {
    h.take(1);
    h.ran(1, 1.0);
  }
  const a2ws::PeerView rank1{400, 1450.0 / 400, 399};
  for (double u : {0.0, 0.5, 0.99}) {
    EXPECT_FALSE(a2ws::select_victim(std::vector<a2ws::PeerView>{h.view(400, -1), rank1}, 0, u).has_value());
  }
  const a2ws::PeerView mean_of_all_it_ran{420, (100 * 4.0 + 80 * 1.0) / 180, 400};
  EXPECT_TRUE(a2ws::select_victim(std::vector<a2ws::PeerView>{mean_of_all_it_ran, rank1}, 0, 0.5).has_value());
}

TEST(HeldWork, ASlowStartFades) {
  // A rank's first 70 tasks ran at 297 us, the next 400 at their steady
  // 111 us (pisolver at P = 2, the erratic round of issue 34: the cumulative
  // mean still said 135 us, and a thief stole for work that was not there).
  a2ws::HeldWork h(2, 0, 1000);
  for (int k = 0; k < 470; ++k) {
    h.take(0);
    h.ran(0, k < 70 ? 297e-6 : 111e-6);
  }
  const double cumulative = (70 * 297e-6 + 400 * 111e-6) / 470;
  EXPECT_GT(cumulative, 1.2 * 111e-6);
  EXPECT_LT(h.time_of(0), 1.03 * 111e-6);
  EXPECT_GT(h.time_of(0), 111e-6);
  // One preempted task (5 ms) moves the steady mean by a small fraction.
  h.ran(0, 5e-3);
  EXPECT_LT(h.time_of(0), 111e-6 + 5e-3 / 64 + 1e-9);
  // The fallback for an owner never run here follows the same recent mean.
  EXPECT_DOUBLE_EQ(h.time_of(1), h.time_of(0));
  EXPECT_NEAR(h.view(530, -1).task_time, h.time_of(0), 1e-12);
}

TEST(SmartStealing, NoStealThatSavesLessThanATask) {
  // Rank 0 needs 90 000 us (900 tasks of 100 us), rank 1 90 150 us (1150
  // tasks of 78.4 us): Eq. 7 rounds Eq. 10's 0.84 up to one task, which
  // shortens the pair's run time by 50 us, less than a task of either; no
  // steal (issue 34: near balance, ranks took 1-5 tasks from each other
  // after every task, as the estimates moved with each task's noise).
  const double tj = 90150e-6 / 1150;
  const std::vector<a2ws::PeerView> near{{900, 100e-6, 899}, {1150, tj, 1149}};
  EXPECT_EQ(a2ws::round_rate(a2ws::pair_rate(900, 100e-6, 1150, tj), 900, 100e-6, 1150, tj), 1);
  EXPECT_FALSE(a2ws::select_victim(near, 0, 0.5).has_value());
  EXPECT_EQ(a2ws::saves_a_task(1, near[0], near[1]), 0);
  // A difference of several tasks: the steal goes ahead.
  const std::vector<a2ws::PeerView> apart{{900, 100e-6, 899}, {1300, 78e-6, 1299}};
  const auto c = a2ws::select_victim(apart, 0, 0.5);
  ASSERT_TRUE(c.has_value());
  EXPECT_GE(c->amount, 5);
}

TEST(SmartStealing, APreemptiveStealMustSaveATenthOfThePairsTime) {
  // Rank 0 still holds 90 ms of tasks, rank 1 101.4 ms: balancing them
  // saves ~5.7 ms, 5.6 % of the pair's time. A rank that ran dry
  // (min_saving 0) steals; one that still holds tasks does not (issue 34:
  // on 40 000 tasks of 2-8 us, A2WS made 300-600 such steals a run).
  const std::vector<a2ws::PeerView> near{{900, 100e-6, 899}, {1300, 78e-6, 1299}};
  EXPECT_TRUE(a2ws::select_victim(near, 0, 0.5, 0.0).has_value());
  EXPECT_FALSE(a2ws::select_victim(near, 0, 0.5, a2ws::kPreemptiveMinSaving).has_value());
  // 140 ms against 90 ms: a steal saves ~18 %, preemptive or not.
  const std::vector<a2ws::PeerView> far{{900, 100e-6, 899}, {1800, 78e-6, 1799}};
  const auto c = a2ws::select_victim(far, 0, 0.5, a2ws::kPreemptiveMinSaving);
  ASSERT_TRUE(c.has_value());
  EXPECT_GE(c->amount, 100);
}

// ------------------------------------------------------- packed head/tail

TEST(PackedDeque, EncodesHeadAndTakenInOneWord) {
  const a2ws::DequeWord w{12345, 987654321};
  EXPECT_EQ(a2ws::decode(a2ws::encode(w)).head, 12345);
  EXPECT_EQ(a2ws::decode(a2ws::encode(w)).taken, 987654321);
  const std::int64_t v = a2ws::encode(w) + a2ws::delta(-5, 7);
  EXPECT_EQ(a2ws::decode(v).head, 12340);
  EXPECT_EQ(a2ws::decode(v).taken, 987654328);
  EXPECT_EQ(a2ws::decode(a2ws::encode({a2ws::kMaxCapacity, 0})).head, a2ws::kMaxCapacity);
  EXPECT_GT(a2ws::encode({a2ws::kMaxCapacity, a2ws::kTakenMask}), 0);  // fits a signed word
}

TEST(PackedDeque, ThiefClaimsFromTheTailAndAdjustsAStaleView) {
  // 10 slots, tasks in [4, 10).
  EXPECT_EQ(a2ws::claim_outcome({4, 0}, 2, 10).first, 8);
  EXPECT_EQ(a2ws::claim_outcome({4, 0}, 2, 10).count, 2);
  // Asked 9, 6 were left: all of them.
  EXPECT_EQ(a2ws::claim_outcome({4, 0}, 9, 10).first, 4);
  EXPECT_EQ(a2ws::claim_outcome({4, 0}, 9, 10).count, 6);
  // Empty (tail below head after an earlier over-claim).
  EXPECT_EQ(a2ws::claim_outcome({4, 9}, 1, 10).count, 0);
}

namespace {

// A model of one deque under an adversarial schedule: the owner takes and
// pushes, thieves claim and (some steps later) read their slots. Every
// atomic is an addition on one integer, as MPI_Fetch_and_op(MPI_SUM).
struct Model {
  std::int64_t capacity;
  std::int64_t word = 0;
  std::vector<std::int64_t> slot;     // task ids
  std::vector<std::uint64_t> version; // bumped by every write
  a2ws::OwnerEnd owner;
  std::map<std::int64_t, int> ran;    // task id -> times executed
  std::int64_t next_id = 0;

  Model(std::int64_t cap, std::int64_t initial)
      : capacity(cap), slot(cap, -1), version(cap, 0), owner(cap, initial) {
    for (std::int64_t s = cap - initial; s < cap; ++s) write(s);
    word = owner.initial_word();
  }
  void write(std::int64_t s) {
    slot[s] = next_id;
    ran[next_id] = 0;
    ++next_id;
    ++version[s];
  }
  std::int64_t fetch_add(std::int64_t d) {
    const std::int64_t before = word;
    word += d;
    return before;
  }
};

struct Thief {
  bool claimed = false;
  a2ws::Slots slots;
  std::vector<std::uint64_t> versions;  // at the claim
};

}  // namespace

TEST(PackedDeque, OwnerAndThievesNeverTakeTheSameTaskUnderRandomSchedules) {
  std::mt19937_64 rng(2024);
  for (int trial = 0; trial < 3000; ++trial) {
    const std::int64_t initial = static_cast<std::int64_t>(rng() % 12);
    const std::int64_t cap = initial + 6 + static_cast<std::int64_t>(rng() % 40);
    Model m(cap, initial);
    std::vector<Thief> thieves(1 + rng() % 4);
    int pushes_left = static_cast<int>(rng() % 6);
    for (int step = 0; step < 400; ++step) {
      const auto who = rng() % (thieves.size() + 1);
      if (who == 0) {  // the owner
        if (!m.owner.known_empty() && rng() % 3 != 0) {
          const std::int64_t s = m.owner.took(m.fetch_add(m.owner.take_delta()));
          if (s >= 0) ++m.ran[m.slot[s]];
        } else if (pushes_left > 0) {
          const std::int64_t k = 1 + static_cast<std::int64_t>(rng() % 5);
          if (!m.owner.fits(k)) continue;
          for (std::int64_t s = m.owner.head() - k; s < m.owner.head(); ++s) m.write(s);
          const std::int64_t d = m.owner.push_delta(k);
          const a2ws::Slots lost = m.owner.pushed(k, d, m.fetch_add(d));
          for (std::int64_t s = lost.first; s < lost.first + lost.count; ++s) ++m.ran[m.slot[s]];
          --pushes_left;
        }
      } else {  // a thief: claim, or read what it claimed
        Thief& t = thieves[who - 1];
        if (!t.claimed) {
          const std::int64_t k = 1 + static_cast<std::int64_t>(rng() % 6);
          t.slots = a2ws::claim_outcome(a2ws::decode(m.fetch_add(a2ws::delta(0, k))), k, cap);
          t.versions.clear();
          for (std::int64_t s = t.slots.first; s < t.slots.first + t.slots.count; ++s) t.versions.push_back(m.version[s]);
          t.claimed = true;
        } else {
          for (std::int64_t i = 0; i < t.slots.count; ++i) {
            const std::int64_t s = t.slots.first + i;
            ASSERT_EQ(m.version[s], t.versions[i]) << "slot " << s << " overwritten before its thief read it";
            ++m.ran[m.slot[s]];
          }
          t.claimed = false;
        }
      }
    }
    // Drain: thieves read, the owner takes until empty.
    for (Thief& t : thieves)
      if (t.claimed)
        for (std::int64_t i = 0; i < t.slots.count; ++i) ++m.ran[m.slot[t.slots.first + i]];
    while (!m.owner.known_empty()) {
      const std::int64_t s = m.owner.took(m.fetch_add(m.owner.take_delta()));
      if (s >= 0) ++m.ran[m.slot[s]];
    }
    for (const auto& [id, times] : m.ran) ASSERT_EQ(times, 1) << "task " << id << " in trial " << trial;
  }
}

TEST(PackedDeque, PushRepairsTheWordOfAnEmptyDeque) {
  // 4 tasks; a thief over-claims 10 (takes 4): tail far below the head.
  a2ws::OwnerEnd o(20, 4);
  std::int64_t word = o.initial_word();
  const auto c = a2ws::claim_outcome(a2ws::decode(word), 10, 20);
  word += a2ws::delta(0, 10);
  EXPECT_EQ(c.count, 4);
  std::int64_t before = word;
  word += o.take_delta();
  EXPECT_EQ(o.took(before), -1);
  EXPECT_TRUE(o.known_empty());
  // The owner pushes 3: all reachable again, the word exact.
  const std::int64_t d = o.push_delta(3);
  before = word;
  word += d;
  const a2ws::Slots lost = o.pushed(3, d, before);
  EXPECT_EQ(lost.count, 0);
  EXPECT_EQ(a2ws::decode(word).head, 13);
  EXPECT_EQ(a2ws::tasks_in(a2ws::decode(word), 20), 3);
  EXPECT_EQ(o.last_seen_tasks(), 3);
}

// ------------------------------------------------------------ ring layout

TEST(RingLayout, SubsystemsHoldEq1RanksEachOnce) {
  for (int p = 1; p <= 9; ++p)
    for (int r = 1; r <= p + 1; ++r)
      for (int i = 0; i < p; ++i) {
        const a2ws::RingLayout l(p, i, r);
        EXPECT_EQ(l.slots(), std::min(2 * r + 1, p)) << p << " " << r;
        std::vector<int> seen(p, 0);
        for (int s = 0; s < l.slots(); ++s) ++seen[l.rank_at(s)];
        for (int j = 0; j < p; ++j) EXPECT_LE(seen[j], 1);
        EXPECT_EQ(l.rank_at(l.self_slot()), i);
      }
}

TEST(RingLayout, EverySlotHasOneWriterAndInformationSpreadsInRadiusHops) {
  for (int p = 1; p <= 9; ++p)
    for (int r = 1; r <= p; ++r) {
      std::vector<a2ws::RingLayout> ls;
      for (int i = 0; i < p; ++i) ls.emplace_back(p, i, r);
      // Writers of each (rank, slot).
      std::vector<std::vector<int>> writers(p, std::vector<int>(ls[0].slots(), 0));
      for (int i = 0; i < p; ++i) {
        const auto& l = ls[i];
        for (int s = l.to_left_first(); s < l.to_left_first() + l.to_left_count(); ++s) {
          const int target = l.left_neighbour(), ts = l.to_left_target(s);
          ASSERT_GE(ts, 0);
          ASSERT_LT(ts, ls[target].slots());
          EXPECT_EQ(ls[target].rank_at(ts), l.rank_at(s));
          EXPECT_GT(ts, ls[target].self_slot());  // the neighbour's right part
          ++writers[target][ts];
        }
        for (int s = l.to_right_first(); s < l.to_right_first() + l.to_right_count(); ++s) {
          const int target = l.right_neighbour(), ts = l.to_right_target(s);
          ASSERT_GE(ts, 0);
          EXPECT_EQ(ls[target].rank_at(ts), l.rank_at(s));
          EXPECT_LT(ts, ls[target].self_slot());  // the neighbour's left part
          ++writers[target][ts];
        }
      }
      for (int i = 0; i < p; ++i)
        for (int s = 0; s < ls[i].slots(); ++s) EXPECT_EQ(writers[i][s], s == ls[i].self_slot() ? 0 : 1);
      // Synchronous rounds of sending: after R rounds each rank knows every
      // member of its subsystem.
      std::vector<std::vector<int>> info(p, std::vector<int>(ls[0].slots(), -1));
      for (int i = 0; i < p; ++i) info[i][ls[i].self_slot()] = i;
      for (int round = 0; round < r; ++round) {
        auto next = info;
        for (int i = 0; i < p; ++i) {
          const auto& l = ls[i];
          for (int s = l.to_left_first(); s < l.to_left_first() + l.to_left_count(); ++s)
            next[l.left_neighbour()][l.to_left_target(s)] = info[i][s];
          for (int s = l.to_right_first(); s < l.to_right_first() + l.to_right_count(); ++s)
            next[l.right_neighbour()][l.to_right_target(s)] = info[i][s];
        }
        info = next;
      }
      for (int i = 0; i < p; ++i)
        for (int s = 0; s < ls[i].slots(); ++s) EXPECT_EQ(info[i][s], ls[i].rank_at(s)) << p << " " << r;
    }
}
