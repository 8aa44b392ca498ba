// Shared chunk-size sequences (GSS closed form, TSS, FAC2 batches).
#include "sequences.hpp"

#include <algorithm>
#include <cmath>

namespace lb4mpi::detail {

// `001` Eq. 14: K'_i = ceil(((P-1)/P)^i * N/P).
// How the power is computed decides how many chunks the closed form makes at
// large N and P. The ratio (P-1)/P is a double: exact when P is a power of
// two, otherwise rounded by up to half an ulp, and pow() multiplies that
// error by i. At N = 2^62, P = 10^6 the sizes then fall short of the series'
// sum N by about 10^8 iterations, which the tail hands out one by one: 148 M
// chunks against 26.6 M. So: an exact ratio goes through pow() (correct to
// 0.52 ulp, so a power that is representable, e.g. 0.75^2, comes out exact and
// the ceil of an integral K'_i is not pushed up); any other ratio through
// exp(i * log1p(-1/P)), whose error does not grow with i.
Index gss_closed(Index n, int p, Index step) {
  const double share = static_cast<double>(n) / static_cast<double>(p);
  const bool exact_ratio = (p & (p - 1)) == 0;  // p >= 1: a power of two
  const double power =
      exact_ratio
          ? std::pow(static_cast<double>(p - 1) / static_cast<double>(p), static_cast<double>(step))
          : std::exp(static_cast<double>(step) * std::log1p(-1.0 / static_cast<double>(p)));
  return ceil_to_index(power * share);
}

// `001` Eq. 6: K_0 = ceil(N/(2P)), K_{S-1} = 1, S = ceil(2N/(K_0 + K_{S-1})),
// C = floor((K_0 - K_{S-1})/(S-1)). All integer, no truncated 2N/(K_0+K_{S-1})
// (the original LB4MPI's flaw, see docs/TECHNIQUES.md).
TssSequence::TssSequence(Index n, int p) {
  first_ = std::max<Index>(1, ceil_div(n, Index{2} * p));
  last_ = 1;
  const Int128 twice_n = Int128{2} * n;
  const Int128 pair = static_cast<Int128>(first_) + last_;
  steps_ = std::max<Index>(1, static_cast<Index>(twice_n / pair + (twice_n % pair != 0 ? 1 : 0)));
  delta_ = steps_ > 1 ? (first_ - last_) / (steps_ - 1) : 0;
}

// `001` Eq. 17: K_i = K_0 - i*C, kept at K_{S-1} or above.
Index TssSequence::at(Index i) const {
  if (delta_ == 0) return first_;
  if (i > (first_ - last_) / delta_) return last_;
  return first_ - i * delta_;  // i*C <= K_0 - K_{S-1}: no overflow
}

Index TssSequence::sum(Index from, Index count) const {
  if (count <= 0) return 0;
  const Index to = from + count - 1;  // inclusive
  Int128 total = 0;
  // Terms K_0 - j*C for j <= j_lin are at or above K_{S-1}; later ones are K_{S-1}.
  const Index j_lin = delta_ == 0 ? to : (first_ - last_) / delta_;
  if (from <= j_lin) {
    const Index hi = std::min(to, j_lin);
    const Int128 terms = static_cast<Int128>(hi) - from + 1;
    // sum_{j=from}^{hi} (K_0 - j*C) = terms*K_0 - C*(from + hi)*terms/2
    total +=
        terms * first_ - static_cast<Int128>(delta_) * (static_cast<Int128>(from) + hi) * terms / 2;
  }
  if (to > j_lin) {
    const Index lo = std::max(from, j_lin + 1);
    total += static_cast<Int128>(to - lo + 1) * last_;
  }
  return total > kMaxIterations ? kMaxIterations : static_cast<Index>(total);
}

bool Fac2Batch::open_if_used_up(Index remaining, int p, Index min_chunk) {
  if (left_ > 0) return false;
  chunk_ = std::max(min_chunk, fac2_batch_chunk(remaining, p));
  left_ = std::min(mul_sat(chunk_, p), remaining);
  return true;
}

}  // namespace lb4mpi::detail
