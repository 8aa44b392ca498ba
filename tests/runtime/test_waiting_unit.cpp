// The wait policy (issue 32): what `auto` chooses from the ranks and cores of
// a node, and LB4MPI_WAIT's parsing (no MPI).
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "lb4mpi/options.hpp"
#include "runtime/waiting.hpp"

namespace lb4mpi {
namespace {

using rt::WaitPolicy;

TEST(WaitPolicy, AutoBlocksOnlyWhenRanksOutnumberCores) {
  EXPECT_EQ(rt::choose_wait(WaitPolicy::Auto, 4, 2), WaitPolicy::Block);
  EXPECT_EQ(rt::choose_wait(WaitPolicy::Auto, 3, 2), WaitPolicy::Block);
  EXPECT_EQ(rt::choose_wait(WaitPolicy::Auto, 2, 2), WaitPolicy::Yield);
  EXPECT_EQ(rt::choose_wait(WaitPolicy::Auto, 1, 8), WaitPolicy::Yield);
  // Unknown counts: no guess.
  EXPECT_EQ(rt::choose_wait(WaitPolicy::Auto, 4, 0), WaitPolicy::Yield);
  EXPECT_EQ(rt::choose_wait(WaitPolicy::Auto, 0, 2), WaitPolicy::Yield);
}

TEST(WaitPolicy, AnExplicitChoiceStands) {
  for (WaitPolicy w : {WaitPolicy::Spin, WaitPolicy::Yield, WaitPolicy::Block}) {
    EXPECT_EQ(rt::choose_wait(w, 4, 2), w);
    EXPECT_EQ(rt::choose_wait(w, 1, 2), w);
  }
}

TEST(WaitPolicy, CollectivesBlockUnderSpinAndUnderAutoWithACoreEach) {
  EXPECT_TRUE(rt::collectives_block(WaitPolicy::Spin, 4, 2));
  EXPECT_TRUE(rt::collectives_block(WaitPolicy::Auto, 2, 2));
  EXPECT_TRUE(rt::collectives_block(WaitPolicy::Auto, 1, 8));
  // Ranks outnumber the cores, or the counts are unknown: poll and pause.
  EXPECT_FALSE(rt::collectives_block(WaitPolicy::Auto, 3, 2));
  EXPECT_FALSE(rt::collectives_block(WaitPolicy::Auto, 2, 0));
  EXPECT_FALSE(rt::collectives_block(WaitPolicy::Auto, 0, 2));
  // A policy asked for by name that pauses keeps its pauses.
  EXPECT_FALSE(rt::collectives_block(WaitPolicy::Yield, 2, 2));
  EXPECT_FALSE(rt::collectives_block(WaitPolicy::Block, 1, 8));
}

TEST(WaitPolicy, FromTheEnvironment) {
  setenv("LB4MPI_WAIT", "Block", 1);
  EXPECT_EQ(Options::from_env().wait, Wait::Block);
  setenv("LB4MPI_WAIT", "spin", 1);
  EXPECT_EQ(Options::from_env().wait, Wait::Spin);
  setenv("LB4MPI_WAIT", "nap", 1);
  try {
    (void)Options::from_env();
    ADD_FAILURE() << "LB4MPI_WAIT=nap was accepted";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("LB4MPI_WAIT"), std::string::npos) << what;
    EXPECT_NE(what.find("auto, spin, yield, block"), std::string::npos) << what;
  }
  unsetenv("LB4MPI_WAIT");
  EXPECT_EQ(Options::from_env().wait, Wait::Auto);
  EXPECT_EQ(name(parse_wait("YIELD")), "yield");
}

}  // namespace
}  // namespace lb4mpi
