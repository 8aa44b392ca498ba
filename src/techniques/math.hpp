// Private arithmetic helpers of the technique layer: overflow-safe integer
// operations and conversions of real-valued chunk sizes to Index.
//
// Loops have at most kMaxIterations = 2^62 iterations. Every helper here keeps
// its results in [0, kMaxIterations], so sums of two chunk sizes and products
// with small factors never overflow a 64-bit Index.
#pragma once
#include <cmath>
#include <cstdint>
#include <vector>

#include "lb4mpi/types.hpp"

namespace lb4mpi::detail {

__extension__ using Int128 = __int128;
__extension__ using UInt128 = unsigned __int128;

/// Largest loop the technique layer accepts (TechniqueParams::validate).
inline constexpr Index kMaxIterations = Index{1} << 62;

/// ceil(a / b) for a >= 0, b > 0, without the overflow of (a + b - 1) / b.
constexpr Index ceil_div(Index a, Index b) { return a / b + (a % b != 0 ? 1 : 0); }

/// min(a * b, kMaxIterations) for a, b >= 0.
constexpr Index mul_sat(Index a, Index b) {
  const Int128 product = static_cast<Int128>(a) * b;
  return product > kMaxIterations ? kMaxIterations : static_cast<Index>(product);
}

/// min(a + b, kMaxIterations) for 0 <= a, b <= kMaxIterations.
constexpr Index add_sat(Index a, Index b) {
  const Index sum = a + b;
  return sum > kMaxIterations ? kMaxIterations : sum;
}

/// Truncates a real chunk size to an Index in [0, kMaxIterations]
/// (NaN and negative values give 0).
inline Index trunc_to_index(double x) {
  if (!(x > 0.0)) return 0;
  if (x >= static_cast<double>(kMaxIterations)) return kMaxIterations;
  return static_cast<Index>(x);
}
/// floor(x) as an Index in [0, kMaxIterations]: for x > 0 floor and
/// truncation agree, and trunc_to_index maps everything else to 0, so no
/// std::floor call is needed.
inline Index floor_to_index(double x) { return trunc_to_index(x); }
inline Index ceil_to_index(double x) { return trunc_to_index(std::ceil(x)); }

/// floor(x + 0.55): the rounding the original LB4MPI uses for AF and AWF-B..E.
inline Index round55_to_index(double x) { return floor_to_index(x + 0.55); }

/// An Index in the numbers of a saved state (ChunkCalculator::save_state),
/// exactly: a double holds integers only up to 2^53, and a loop's start
/// index reaches 2^62. So v goes in as its nearest double and the (small)
/// rest; for v <= 2^53 the rest is 0 and the first number is v itself.
/// For |v| <= 2^62.
inline double index_head(Index v) { return static_cast<double>(v); }
inline double index_rest(Index v) { return static_cast<double>(v - static_cast<Index>(static_cast<double>(v))); }
inline Index index_of(double head, double rest) { return static_cast<Index>(head) + static_cast<Index>(rest); }
/// Head and rest next to each other.
inline void put_index(std::vector<double>& out, Index v) {
  out.push_back(index_head(v));
  out.push_back(index_rest(v));
}
/// The Index put_index wrote at `at`; advances `at` past it.
inline Index take_index(const double*& at) {
  const Index v = index_of(at[0], at[1]);
  at += 2;
  return v;
}

/// splitmix64 finalizer: a bijective 64-bit mix with good avalanche.
constexpr std::uint64_t mix64(std::uint64_t z) {
  z += 0x9E3779B97F4A7C15ULL;
  z = (z ^ (z >> 30U)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27U)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31U);
}

}  // namespace lb4mpi::detail
