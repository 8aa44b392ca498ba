// The stealing layer's parts without MPI: victim selection (`000`
// §4.1.3), the coordinator's state machine under random message orders,
// steal amounts, names, options from the environment and their docs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <deque>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "lb4mpi/options.hpp"
#include "lb4mpi/stealing.hpp"
#include "relay.hpp"
#include "stealing/variables.hpp"
#include "victims.hpp"

namespace lb4mpi::st {
namespace {

TEST(Victims, NaiveNeighboursFollowThePapersExample) {
  // `000` §4.1.3.3: 24 ranks, thief 14: 15..23, then 13, 12, 11.
  EXPECT_EQ(naive_neighbours(14, 24), (std::vector<int>{15, 16, 17, 18, 19, 20, 21, 22, 23, 13, 12, 11}));
  EXPECT_EQ(naive_neighbours(0, 24), (std::vector<int>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}));
  EXPECT_EQ(naive_neighbours(23, 24), (std::vector<int>{22, 21, 20, 19, 18, 17, 16, 15, 14, 13, 12, 11}));
  EXPECT_EQ(naive_neighbours(0, 2), (std::vector<int>{1}));
  EXPECT_TRUE(naive_neighbours(0, 1).empty());
}

TEST(Victims, RandomPicksOnlyOtherRanksWithWork) {
  VictimSelector s(Victim::Random, 5, {}, 7);
  const std::vector<char> work = {1, 0, 1, 1, 0};
  std::vector<int> seen(5, 0);
  for (int k = 0; k < 400; ++k) {
    const int v = s.pick(2, work);
    ASSERT_TRUE(v == 0 || v == 3) << v;
    ++seen[static_cast<std::size_t>(v)];
  }
  EXPECT_GT(seen[0], 100);  // both drawn, about evenly
  EXPECT_GT(seen[3], 100);
  EXPECT_EQ(s.pick(1, {0, 1, 0, 0, 0}), -1);  // only the thief itself has work
}

TEST(Victims, LocalityPrefersTheThiefsNodeThenAnyRank) {
  const std::vector<int> nodes = {0, 0, 2, 2};  // two nodes of two ranks
  VictimSelector s(Victim::Locality, 4, nodes, 3);
  for (int k = 0; k < 50; ++k) EXPECT_EQ(s.pick(1, {1, 0, 1, 1}), 0);
  for (int k = 0; k < 50; ++k) {
    const int v = s.pick(1, {0, 0, 1, 1});  // its node is done: another node
    EXPECT_TRUE(v == 2 || v == 3);
  }
  for (int k = 0; k < 50; ++k) EXPECT_EQ(s.pick(3, {1, 1, 1, 0}), 2);
}

TEST(Victims, NaiveLocalityPicksAmongTheNeighboursThenAnyRank) {
  VictimSelector s(Victim::NaiveLocality, 8, {}, 5);
  for (int k = 0; k < 50; ++k) {
    const int v = s.pick(0, {0, 0, 1, 0, 1, 1, 1, 1});
    EXPECT_TRUE(v == 2 || v == 4) << v;  // neighbours of 0: 1..4
  }
  for (int k = 0; k < 50; ++k) EXPECT_EQ(s.pick(0, {0, 0, 0, 0, 0, 0, 1, 0}), 6);  // fallback
}

// The coordinator's state machine against a simulation of the ranks with
// messages delivered in random order: it ends exactly once, only when no
// rank has unstarted work and none is executing, and never loses a thief.
// A thief's stolen work is its to execute and may be stolen again (GOT).
TEST(Relay, EndsOnceWhenAllWorkIsDoneUnderRandomOrders) {
  for (int p : {1, 2, 3, 5, 8}) {
    for (unsigned seed = 1; seed <= 40; ++seed) {
      std::mt19937 rng(seed * 31 + static_cast<unsigned>(p));
      std::vector<Index> unstarted(static_cast<std::size_t>(p));
      std::vector<char> has(static_cast<std::size_t>(p));
      Index total = 0;
      for (int r = 0; r < p; ++r) {
        unstarted[static_cast<std::size_t>(r)] = static_cast<Index>(rng() % 4 == 0 ? 0 : rng() % 30);
        has[static_cast<std::size_t>(r)] = unstarted[static_cast<std::size_t>(r)] > 0;
        total += unstarted[static_cast<std::size_t>(r)];
      }
      Relay relay(VictimSelector(Victim::Random, p, {}, seed), has);
      // In flight: a request (rank asks), a relay (victim, thief), a reject (victim, thief).
      struct Event {
        int kind;  // 0 ask, 1 relay at victim, 2 reject at coordinator, 3 stolen work done
        int a;
        int b;
        Index k;
      };
      std::vector<Event> events;
      std::vector<Index> busy(static_cast<std::size_t>(p), 0);  // iterations being executed
      for (int r = 0; r < p; ++r) busy[static_cast<std::size_t>(r)] = 0;
      Index done = 0;
      int ends = 0;
      std::vector<Relay::Order> orders;
      // Every rank works its own iterations in steps of 1..5; when none are left it asks.
      std::vector<char> asking(static_cast<std::size_t>(p), 0);
      auto apply = [&] {
        for (const Relay::Order& o : orders) {
          if (o.kind == Relay::Order::Kind::End) {
            ++ends;
            for (int r = 0; r < p; ++r) {
              EXPECT_EQ(unstarted[static_cast<std::size_t>(r)], 0);
              EXPECT_EQ(busy[static_cast<std::size_t>(r)], 0);
              EXPECT_TRUE(asking[static_cast<std::size_t>(r)]);
            }
          } else {
            EXPECT_NE(o.victim, o.thief);
            events.push_back({1, o.victim, o.thief, 0});
          }
        }
        orders.clear();
      };
      for (int guard = 0; guard < 100000 && ends == 0; ++guard) {
        // One step of a random rank that executes, or one event delivered.
        const int r = static_cast<int>(rng() % static_cast<unsigned>(p));
        const auto ru = static_cast<std::size_t>(r);
        if (rng() % 2 == 0 && !asking[ru]) {
          if (busy[ru] > 0) {
            done += busy[ru];
            busy[ru] = 0;
          } else if (unstarted[ru] > 0) {
            const Index k = std::min<Index>(unstarted[ru], 1 + static_cast<Index>(rng() % 5));
            unstarted[ru] -= k;
            done += k;
          } else {
            asking[ru] = 1;
            events.push_back({0, r, 0, 0});
          }
          continue;
        }
        if (events.empty()) continue;
        const std::size_t at = rng() % events.size();
        const Event e = events[at];
        events.erase(events.begin() + static_cast<std::ptrdiff_t>(at));
        if (e.kind == 0) {
          relay.request(e.a, orders);
        } else if (e.kind == 1) {  // the victim answers
          const auto v = static_cast<std::size_t>(e.a);
          if (unstarted[v] == 0) {
            events.push_back({2, e.a, e.b, 0});
          } else {
            const Index k = StealAmount::of_ratio(0.5).take(unstarted[v], p, e.b, TechniqueParams{});
            unstarted[v] -= k;
            // The thief executes it in steps (and may be stolen from), then asks again.
            unstarted[static_cast<std::size_t>(e.b)] = k;
            asking[static_cast<std::size_t>(e.b)] = 0;
            relay.got(e.b);
          }
        } else if (e.kind == 2) {
          relay.reject(e.a, e.b, orders);
        }
        apply();
      }
      EXPECT_EQ(ends, 1) << "p " << p << " seed " << seed;
      EXPECT_EQ(done, total) << "p " << p << " seed " << seed;
      EXPECT_TRUE(relay.ended());
    }
  }
}

TEST(StealAmount, RatioAndTechniqueShares) {
  const TechniqueParams params;
  EXPECT_EQ(StealAmount::of_ratio(0.5).take(10, 4, 1, params), 5);
  EXPECT_EQ(StealAmount::of_ratio(0.25).take(10, 4, 1, params), 3);  // ceil(2.5)
  EXPECT_EQ(StealAmount::of_ratio(0.35).take(1, 4, 1, params), 1);
  EXPECT_EQ(StealAmount::of_ratio(1.0).take(7, 4, 1, params), 7);
  EXPECT_EQ(StealAmount::of(Technique::GSS).take(100, 4, 1, params), 25);   // ceil(R/P)
  EXPECT_EQ(StealAmount::of(Technique::FAC2).take(100, 4, 1, params), 13);  // ceil(R/2P)
  EXPECT_EQ(StealAmount::of(Technique::SS).take(100, 4, 1, params), 1);
  EXPECT_EQ(StealAmount::of(Technique::STATIC).take(100, 4, 1, params), 25);
  EXPECT_EQ(StealAmount::of(Technique::GSS).take(0, 4, 1, params), 0);
  for (const TechniqueInfo& t : all_techniques()) {
    if (t.adaptive) {
      EXPECT_NE(StealAmount::of(t.technique).check(), "") << t.name;
      continue;
    }
    for (Index r : {1, 2, 7, 1000}) {
      const Index k = StealAmount::of(t.technique).take(r, 3, 2, params);
      EXPECT_GE(k, 1) << t.name;
      EXPECT_LE(k, r) << t.name;
    }
  }
  EXPECT_NE(StealAmount::of_ratio(0.0).check(), "");
  EXPECT_NE(StealAmount::of_ratio(1.2).check(), "");
}

TEST(Names, ParseAndNameRoundTrip) {
  for (Balancer b : {Balancer::None, Balancer::Steal, Balancer::A2WS, Balancer::LW, Balancer::RandomSteal,
                     Balancer::Token}) {
    EXPECT_EQ(parse_balancer(name(b)), b);
  }
  EXPECT_EQ(parse_balancer("Random_Steal"), Balancer::RandomSteal);
  for (Victim v : {Victim::Random, Victim::Locality, Victim::NaiveLocality}) EXPECT_EQ(parse_victim(name(v)), v);
  EXPECT_EQ(parse_victim("nLAWS"), Victim::NaiveLocality);
  EXPECT_EQ(parse_victim("laws"), Victim::Locality);
  try {
    (void)parse_balancer("greedy");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("none, steal, a2ws, lw, random-steal"), std::string::npos);
  }
  try {
    (void)parse_victim("closest");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("naive-locality"), std::string::npos);
  }
  EXPECT_EQ(parse_steal_amount("50%").ratio, 0.5);
  EXPECT_TRUE(parse_steal_amount("0.35").is_ratio);
  EXPECT_EQ(parse_steal_amount("gss").technique, Technique::GSS);
  EXPECT_EQ(parse_steal_amount("7").technique, Technique::FAC2);  // `000` Table 4.1 id
  EXPECT_EQ(parse_steal_amount("25%").text(), "25%");
  try {
    (void)parse_steal_amount("lots");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("25%"), std::string::npos);
  }
}

// Sets variables for one test and removes them after.
struct Env {
  std::vector<std::string> names;
  void set(const char* n, const char* v) {
    setenv(n, v, 1);
    names.emplace_back(n);
  }
  ~Env() {
    for (const std::string& n : names) unsetenv(n.c_str());
  }
};

TEST(StealOptionsEnv, Table42Variables) {
  {
    Env e;
    e.set("LB4MPI_STEAL_RATIO", "35");
    e.set("LB4MPI_LAWS", "1");
    e.set("LB4MPI_SCHEDULING", "1");  // SS: the owner's chunks
    e.set("LB4MPI_RANKS_PER_NODE", "2");
    const StealOptions o = StealOptions::from_env();
    EXPECT_TRUE(o.amount.is_ratio);
    EXPECT_DOUBLE_EQ(o.amount.ratio, 0.35);
    EXPECT_EQ(o.victim, Victim::Locality);
    ASSERT_TRUE(o.chunking.has_value());
    EXPECT_EQ(*o.chunking, Technique::SS);
    EXPECT_EQ(o.ranks_per_node, 2);
    o.validate(4);
  }
  {
    Env e;
    e.set("LB4MPI_WS_SCHEDULING", "4");
    e.set("LB4MPI_nLAWS", "1");
    e.set("LB4MPI_BALANCER", "none");
    const StealOptions o = StealOptions::from_env();
    EXPECT_FALSE(o.amount.is_ratio);
    EXPECT_EQ(o.amount.technique, Technique::GSS);
    EXPECT_EQ(o.victim, Victim::NaiveLocality);
    EXPECT_EQ(o.balancer, Balancer::None);
  }
  {
    Env e;  // STATIC with a ratio is `000`'s rws_static
    e.set("LB4MPI_WS_SCHEDULING", "0");
    e.set("LB4MPI_STEAL_RATIO", "50");
    EXPECT_DOUBLE_EQ(StealOptions::from_env().amount.ratio, 0.5);
  }
  {
    Env e;
    e.set("LB4MPI_WS_SCHEDULING", "GSS");
    e.set("LB4MPI_STEAL_RATIO", "50");
    EXPECT_THROW((void)StealOptions::from_env(), Error);
  }
  {
    Env e;
    e.set("LB4MPI_STEAL_RATIO", "120");
    const StealOptions o = StealOptions::from_env();
    try {
      o.validate(2);
      FAIL();
    } catch (const Error& x) {
      EXPECT_NE(std::string(x.what()).find("LB4MPI_STEAL_RATIO=120"), std::string::npos) << x.what();
    }
  }
  {
    Env e;  // the wait policy, as for the other loops (per rank: not agreed)
    e.set("LB4MPI_WAIT", "block");
    EXPECT_EQ(StealOptions::from_env().wait, Wait::Block);
    e.set("LB4MPI_WAIT", "nap");
    try {
      (void)StealOptions::from_env();
      FAIL() << "LB4MPI_WAIT=nap was accepted";
    } catch (const Error& x) {
      EXPECT_NE(std::string(x.what()).find("LB4MPI_WAIT: unknown wait policy 'nap'; valid: auto, spin, yield, block"),
                std::string::npos)
          << x.what();
    }
  }
  {
    Env e;
    e.set("LB4MPI_BALANCER", "a2ws");
    const StealOptions o = StealOptions::from_env();
    EXPECT_EQ(o.balancer, Balancer::A2WS);
    const auto built = StealOptions::built_balancers();
    if (std::find(built.begin(), built.end(), Balancer::A2WS) == built.end()) {
      try {
        o.validate(2);
        FAIL();
      } catch (const Error& x) {
        EXPECT_NE(std::string(x.what()).find("'a2ws' is not built in this build (built: none, steal"),
                  std::string::npos)
            << x.what();
      }
    }
  }
  {
    Env e;
    e.set("LB4MPI_VICTIM", "sideways");
    EXPECT_THROW((void)StealOptions::from_env(), Error);
  }
  {
    Env e;
    e.set("LB4MPI_SPEEDS", "1,2,x");
    EXPECT_THROW((void)StealOptions::from_env(), Error);
  }
  {
    Env e;
    e.set("LB4MPI_SPEEDS", "1,2");
    EXPECT_THROW(StealOptions::from_env().validate(3), Error);  // one per rank
  }
}

TEST(StealOptionsEnv, VariablesAreKnownAndDocumented) {
  const std::vector<std::string> known = Options::known_variables();
  std::ifstream f(std::string(LB4MPI_SOURCE_DIR) + "/docs/OPTIONS.md");
  std::stringstream doc;
  doc << f.rdbuf();
  std::ifstream g(std::string(LB4MPI_SOURCE_DIR) + "/docs/STEALING.md");
  std::stringstream stealing;
  stealing << g.rdbuf();
  for (const std::string& v : StealOptions::known_variables()) {
    EXPECT_NE(std::find(known.begin(), known.end(), v), known.end()) << v << " is not in Options::known_variables()";
    EXPECT_NE(doc.str().find("`" + v + "`"), std::string::npos) << v << " is not in docs/OPTIONS.md";
  }
  for (const std::string& v : variables()) {
    EXPECT_NE(stealing.str().find("`" + v + "`"), std::string::npos) << v << " is not in docs/STEALING.md";
  }
}

}  // namespace
}  // namespace lb4mpi::st
