#include "victims.hpp"

#include <algorithm>

namespace lb4mpi::st {

std::vector<int> naive_neighbours(int thief, int size) {
  const int want = std::min(size / 2, size - 1);
  std::vector<int> out;
  out.reserve(static_cast<std::size_t>(std::max(0, want)));
  for (int r = thief + 1; r < size && static_cast<int>(out.size()) < want; ++r) out.push_back(r);
  for (int r = thief - 1; r >= 0 && static_cast<int>(out.size()) < want; --r) out.push_back(r);
  return out;
}

VictimSelector::VictimSelector(Victim rule, int size, std::vector<int> nodes, std::uint64_t seed)
    : rule_(rule), size_(size), nodes_(std::move(nodes)), state_(seed * 0x9e3779b97f4a7c15ULL + 1) {}

int VictimSelector::draw(const std::vector<int>& among) {
  if (among.empty()) return -1;
  // SplitMix64 step.
  state_ += 0x9e3779b97f4a7c15ULL;
  std::uint64_t z = state_;
  z = (z ^ (z >> 30U)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27U)) * 0x94d049bb133111ebULL;
  z ^= z >> 31U;
  return among[static_cast<std::size_t>(z % among.size())];
}

int VictimSelector::pick(int thief, const std::vector<char>& has_work) {
  auto working = [&](int r) { return r != thief && has_work[static_cast<std::size_t>(r)] != 0; };
  scratch_.clear();
  if (rule_ == Victim::Locality && !nodes_.empty()) {
    const int node = nodes_[static_cast<std::size_t>(thief)];
    for (int r = 0; r < size_; ++r) {
      if (working(r) && nodes_[static_cast<std::size_t>(r)] == node) scratch_.push_back(r);
    }
  } else if (rule_ == Victim::NaiveLocality) {
    for (int r : naive_neighbours(thief, size_)) {
      if (working(r)) scratch_.push_back(r);
    }
  }
  if (scratch_.empty()) {  // random, or no candidate of the rule left
    for (int r = 0; r < size_; ++r) {
      if (working(r)) scratch_.push_back(r);
    }
  }
  return draw(scratch_);
}

}  // namespace lb4mpi::st
