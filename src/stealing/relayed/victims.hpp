// Victim selection of relayed stealing (`000` §4.1.3): the coordinator picks
// the rank a thief's request goes to. Pure C++, no MPI.
#pragma once
#include <cstdint>
#include <vector>

#include "lb4mpi/stealing/kinds.hpp"

namespace lb4mpi::st {

/// The candidates of naive locality-aware selection (`000` §4.1.3.3) for
/// `thief` among `size` ranks: the size/2 ranks after the thief in rank
/// order, continued below the thief when the top is reached (size 24, thief
/// 14: 15, ..., 23, 13, 12, 11 — the paper's Figure 4.2 example).
std::vector<int> naive_neighbours(int thief, int size);

class VictimSelector {
 public:
  /// `nodes`: the node of every rank (Victim::Locality; may be empty otherwise).
  VictimSelector(Victim rule, int size, std::vector<int> nodes, std::uint64_t seed);
  /// A victim for `thief` among the ranks r != thief with has_work[r];
  /// -1 when there is none. Random among the rule's candidates; locality
  /// and naive locality fall back to any rank with work when none of their
  /// candidates has any.
  int pick(int thief, const std::vector<char>& has_work);

 private:
  int draw(const std::vector<int>& among);
  Victim rule_;
  int size_;
  std::vector<int> nodes_;
  std::uint64_t state_;
  std::vector<int> scratch_;
};

}  // namespace lb4mpi::st
