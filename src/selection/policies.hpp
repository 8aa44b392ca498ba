// The selection policies, one unit each (explore.cpp, bandit.cpp, rule.cpp).
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "lb4mpi/techniques/selection.hpp"

namespace lb4mpi::selection {

std::unique_ptr<Policy> make_explore(std::vector<Technique> candidates);
std::unique_ptr<Policy> make_bandit(std::vector<Technique> candidates, std::uint64_t seed);
std::unique_ptr<Policy> make_rule_policy(std::vector<Technique> candidates);

/// A cost per iteration as a person reads it: "12.5 us".
std::string fmt_us(double seconds);
/// A ratio as a person reads it: "2.4x".
std::string fmt_ratio(double ratio);

}  // namespace lb4mpi::selection
