// Private: chunk-size sequences that several techniques share.
//   - the GSS closed form (GSS, TAP, PLS),
//   - the TSS linear sequence (TSS, TFSS),
//   - FAC2 batching (FAC2, WF, AWF, AWF-B, AWF-D).
#pragma once
#include "lb4mpi/types.hpp"
#include "math.hpp"

namespace lb4mpi::detail {

/// GSS closed form, `001` Eq. 14: ceil(((P-1)/P)^i * N/P). For P = 1 the
/// first step is N (0^0 = 1) and every later one 0.
Index gss_closed(Index n, int p, Index step);

/// GSS recursive form, `001` Eq. 4: ceil(R_i / P).
inline Index gss_recursive(Index remaining, int p) { return ceil_div(remaining, p); }

/// FAC2's batch chunk, `001` Eq. 7: ceil(R / (2P)).
inline Index fac2_batch_chunk(Index remaining, int p) { return ceil_div(remaining, Index{2} * p); }

/// The linear TSS sequence of `001` Eq. 6 / Eq. 17:
///   K_0 = ceil(N / (2P)), K_{S-1} = 1, S = ceil(2N / (K_0 + K_{S-1})),
///   C = floor((K_0 - K_{S-1}) / (S - 1)) (0 when S = 1),
///   K_i = K_0 - i*C, never below K_{S-1}.
class TssSequence {
 public:
  TssSequence(Index n, int p);
  [[nodiscard]] Index first() const { return first_; }
  [[nodiscard]] Index last() const { return last_; }
  [[nodiscard]] Index steps() const { return steps_; }
  [[nodiscard]] Index delta() const { return delta_; }
  /// K_i.
  [[nodiscard]] Index at(Index i) const;
  /// K_from + ... + K_{from+count-1}, in O(1).
  [[nodiscard]] Index sum(Index from, Index count) const;

 private:
  Index first_ = 1;
  Index last_ = 1;
  Index steps_ = 1;
  Index delta_ = 0;
};

/// FAC2 batches as the weighted-factoring family uses them: a batch opens when
/// the previous one is used up; its chunk is c = max(min_chunk, ceil(R/(2P)))
/// and it holds min(P*c, R) iterations. Chunks handed out are subtracted from
/// the batch, saturating at 0 (a chunk is not clipped to its batch).
class Fac2Batch {
 public:
  /// Opens a new batch from the current R if the old one is used up; returns
  /// true when it did.
  bool open_if_used_up(Index remaining, int p, Index min_chunk);
  /// c of the current batch.
  [[nodiscard]] Index chunk() const { return chunk_; }
  [[nodiscard]] Index left() const { return left_; }
  void consume(Index k) { left_ = k >= left_ ? 0 : left_ - k; }
  void reset() { chunk_ = 0, left_ = 0; }
  void set(Index chunk, Index left) { chunk_ = chunk, left_ = left; }

 private:
  Index chunk_ = 0;
  Index left_ = 0;
};

}  // namespace lb4mpi::detail
