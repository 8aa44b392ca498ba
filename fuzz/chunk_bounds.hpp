// The documented bound on the number of chunks one execution of a loop takes
// (docs/FUZZING.md, "How many chunks"): what the chunk fuzz target asserts,
// and how it knows that a loop it stopped enumerating could not have ended
// within the steps it ran. Header-only: the technique tests use it too.
//
// Every bound is min(universal, the technique's own); universal = ceil(N /
// min_chunk) holds for all but STATIC, since every chunk but the last has at
// least min_chunk iterations. The technique's own bounds follow from how
// fast its chunks eat the remaining iterations R (the derivations are in
// docs/FUZZING.md); they are generous by small constant factors, and tight
// enough that a form that falls short of N and hands out the rest one
// iteration at a time (the GSS closed form's old bug) breaks them.
#pragma once
#include <algorithm>
#include <cmath>
#include <limits>

#include "lb4mpi/techniques/chunk_calculator.hpp"

namespace lb4mpi::fuzz {

/// How the rule's adaptive inputs were fed while the chunks were taken.
enum class Feedback : std::uint8_t {
  None,     ///< no timing recorded (adaptive rules never learn)
  Uniform,  ///< every chunk recorded at once, time = size x the rank's fixed iteration time
  Random,   ///< arbitrary timings (NaN, negative, huge, ...)
};

struct BoundInput {
  Technique technique = Technique::SS;
  LoopShape shape;
  TechniqueParams params;
  Form form = Form::Recursive;
  Feedback feedback = Feedback::None;
  /// Smallest weight (normalized to sum P) the rule can use in this execution:
  /// WF and AWF, the weights it holds; AWF-B..E and AF under Uniform
  /// feedback, P (1/s_max) / sum_r (1/s_r) for the ranks' iteration times s_r.
  double min_weight = 1.0;
  /// SS, FSC, mFSC: the one (bounded) chunk size, ChunkCalculator::closed_size(0).
  Index fixed_size = 1;
};

/// The bound on the number of chunks of one execution (infinity: none known
/// beyond the universal one, which is then returned).
inline double chunk_bound(const BoundInput& b) {
  const double n = static_cast<double>(b.shape.n);
  const double p = static_cast<double>(b.shape.p);
  if (b.shape.n <= 0) return 0.0;
  if (b.technique == Technique::STATIC) return std::min(n, p);
  const TechniqueParams& q = b.params;
  const double m = static_cast<double>(q.min_chunk);
  // In integers: N and min_chunk near 2^62 round in double.
  const auto ceil_div = [](Index a, Index d) { return static_cast<double>(a / d + (a % d != 0 ? 1 : 0)); };
  const double universal = ceil_div(b.shape.n, std::max<Index>(1, q.min_chunk));
  // Steps at which max_chunk cuts a chunk: at most N / max_chunk of them.
  const double capped = q.max_chunk > 0 ? std::ceil(n / static_cast<double>(q.max_chunk)) + p : 0.0;
  const double ln_np = std::log(std::max(1.0, n / p));
  const double ln_n = std::log(std::max(2.0, n));
  const double log2_n = std::log2(std::max(2.0, n));
  // Closed forms evaluated in double: a relative error of a few ulps of N
  // in the sum of the sizes, handed out one by one at worst.
  const double fp_slack = std::ceil(std::ldexp(n, -48)) + 64.0;
  const double inf = std::numeric_limits<double>::infinity();
  // Learned weights: rounding of the measured times, a factor 2 of margin.
  const bool learned_uniform = b.feedback == Feedback::Uniform;
  const double w_learned = b.min_weight / 2.0;
  const double gss = p * ln_np + 2.0 * p + capped + fp_slack;

  double own = inf;
  switch (b.technique) {
    case Technique::STATIC:
    case Technique::Auto:  // never a chunk calculator's technique
      break;
    case Technique::SS:
    case Technique::FSC:
    case Technique::mFSC:
      own = ceil_div(b.shape.n, std::max<Index>(1, b.fixed_size));
      break;
    case Technique::GSS:
      // R shrinks by R/P a step: P ln(N/P) steps leave at most P iterations.
      own = gss;
      break;
    case Technique::PLS:
      own = p + gss;
      break;
    case Technique::TAP: {
      // K_TAP >= K_GSS - v sqrt(2 K_GSS) >= K_GSS / 2 while K_GSS >= 8 v^2.
      const double v = q.alpha * q.sigma / q.mu;
      own = 2.0 * gss + 8.0 * v * v * p;
      break;
    }
    case Technique::TSS:
      own = 4.0 * p + 4.0 + capped;  // S = ceil(2N / (K_0 + 1)) <= 4P steps
      break;
    case Technique::TFSS:
      own = 10.0 * p + 8.0 + capped;  // the TSS terms of 2S steps, batch means floored
      break;
    case Technique::FAC2:
      own = p * (std::ceil(std::log2(std::max(1.0, n / p))) + 4.0) + capped;
      break;
    case Technique::FAC: {
      // While b = P sigma / (2 mu sqrt(R)) <= 1 a batch takes at least R / 5.24;
      // below R = (P sigma / (2 mu))^2 every chunk still has at least 1 iteration.
      const double cv = q.sigma / q.mu;
      own = p * (std::ceil(5.0 * ln_n) + 2.0) + (p * cv / 2.0) * (p * cv / 2.0) + capped + fp_slack;
      break;
    }
    case Technique::FISS:
      // B batches cover N up to the floors (P B iterations), then as many again.
      own = 2.0 * p * (static_cast<double>(q.fiss_batches) + 2.0) + capped + fp_slack;
      break;
    case Technique::VISS: {
      // Every chunk but the last has at least K_0 = floor(N / (X P)) iterations.
      double k0 = std::floor(n / (q.viss_x * p));
      if (!(k0 >= 1.0)) k0 = 1.0;
      double smallest = std::max(m, k0 * (1.0 - 0x1p-50));
      if (q.max_chunk > 0) smallest = std::min(smallest, static_cast<double>(q.max_chunk));
      own = std::ceil(n / smallest) + 1.0;
      break;
    }
    case Technique::RND: {
      // Every draw is at least lo (1, or N / (100 P) for Paper004).
      double lo = 1.0;
      if (q.rnd_bounds == RndBounds::Paper004) lo = std::max(1.0, std::floor(n / (100.0 * p)));
      double smallest = std::max(m, lo);
      if (q.max_chunk > 0) smallest = std::min(smallest, static_cast<double>(q.max_chunk));
      own = std::ceil(n / smallest) + 1.0;
      break;
    }
    case Technique::WF:
    case Technique::AWF:
      // FAC2 batches: each holds >= R/2 and is used up by at most 2P/w_min + 1 chunks.
      own = (log2_n + 2.0 + capped) * (2.0 * p / b.min_weight + 1.0);
      break;
    case Technique::AWF_B:
    case Technique::AWF_D:
      if (learned_uniform) own = p + (log2_n + 2.0 + capped) * (2.0 * p / w_learned + 1.0);
      break;
    case Technique::AWF_C:
    case Technique::AWF_E:
      // floor(w ceil(R / 2P) + 0.55) >= 0.55 w R / 2P: R shrinks by that a step.
      if (learned_uniform) own = p + (4.0 * p / w_learned) * (ln_n + 1.0) + capped;
      break;
    case Technique::AF:
      // Without variance Eq. 11 is R w_r / P (capped at N / 2P): GSS with weights.
      if (learned_uniform) own = 3.0 * p + (2.0 * p / w_learned) * (ln_n + 1.0) + capped;
      break;
  }
  if (!(own >= 0.0)) own = inf;  // NaN from extreme parameters: no own bound
  return std::min(universal, own);
}

}  // namespace lb4mpi::fuzz
