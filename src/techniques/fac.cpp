// FAC: probabilistic factoring of Flynn Hummel et al., `000` Eq. 2.2.
// Batches of P equal chunks; each batch takes a share of the remaining
// iterations that depends on P, R and the coefficient of variation sigma/mu.
#include <algorithm>
#include <cmath>
#include <mutex>
#include <string>
#include <vector>

#include "math.hpp"
#include "rules.hpp"

namespace lb4mpi::detail {
namespace {

class FacRule final : public ChunkRule {
 public:
  FacRule(LoopShape shape, const TechniqueParams& params)
      : p_(shape.p), cv_(params.sigma / params.mu) {
    replay(shape.n);
  }

  // Recursive form: at the start of batch j (i mod P = 0) the chunk is
  // computed from the iterations R_i that are really left.
  Index next(const StepContext& ctx) override {
    if (ctx.step % p_ == 0 || current_ == 0) current_ = batch_chunk(ctx.step / p_, ctx.remaining);
    return current_;
  }

  // No closed form in the papers: the batch recurrence R_{j+1} = R_j - P*K_j
  // is deterministic, so it is replayed once at construction (O(batches),
  // about log2 N of them) and looked up here.
  [[nodiscard]] Index closed(Index step) const override {
    const Index batch = step / p_;
    const auto known = static_cast<Index>(table_.size());
    if (batch < known) return table_[static_cast<std::size_t>(batch)];
    if (complete_) return 1;
    return replay_beyond_table(batch);
  }

  // Chunks never grow from batch to batch (see replay): batch 0 is the largest.
  [[nodiscard]] Index closed_peak() const override { return closed(0); }

  void restart() override { current_ = 0; }

 private:
  static constexpr std::size_t kTableLimit = 4096;

  // `000` Eq. 2.2: b_j = P / (2 sqrt(R_j)) * sigma/mu,
  //   x_0 = 1 + b^2 + b sqrt(b^2 + 2)   (first batch, Flynn Hummel's rule;
  //                                        `000` prints only j > 0),
  //   x_j = 2 + b^2 + b sqrt(b^2 + 4)   (j > 0),
  //   K_j = ceil(R_j / (x_j P)).
  [[nodiscard]] Index batch_chunk(Index batch, Index remaining) const {
    const double r = static_cast<double>(remaining);
    const double p = static_cast<double>(p_);
    const double b = p / (2.0 * std::sqrt(r)) * cv_;
    const double x = batch == 0 ? 1.0 + b * b + b * std::sqrt(b * b + 2.0)
                                : 2.0 + b * b + b * std::sqrt(b * b + 4.0);
    const Index k = ceil_to_index(r / (x * p));
    return k < 1 ? 1 : k;
  }

  // Only for extreme sigma/mu: up to about N/P batches of small chunks, too
  // many for a table. Replaying them one by one from the table's end made
  // every closed(step) O(step), so DCA's walk over the steps was quadratic
  // (10^5 steps took minutes) and one far step took as long as the loop.
  // Chunks never grow, and R shrinks by P K a batch while the chunk stays K,
  // so the batches come in runs of equal chunks: each run is found by a
  // galloping search (O(log length)). closed() goes on from the run it last
  // reached, or from the one before it (a walk that looks one step back, as
  // ClosedSequence after closed_chunk, stays O(1) a step); further back,
  // from the nearest of the runs kept every kRunsPerCheckpoint. The runs
  // start where the table ends whatever was asked before, so closed() stays
  // a pure function of the step. Behind a mutex: closed() is const and
  // thread-safe.
  static constexpr Index kRunsPerCheckpoint = 64;

  struct Run {
    Index index = -1;     ///< its ordinal among the runs after the table (-1: none)
    Index first = 0;      ///< its first batch
    Index length = 0;     ///< batches in it
    Index remaining = 0;  ///< R at its first batch
    Index chunk = 1;
    [[nodiscard]] Index remaining_after(Index p) const {
      const Index taken = mul_sat(mul_sat(length, p), chunk);
      return taken >= remaining ? 0 : remaining - taken;
    }
  };

  [[nodiscard]] Run run_from(Index index, Index first, Index remaining) const {
    Run run{index, first, 1, remaining, batch_chunk(first, remaining)};
    // Batch first + i - 1 (i >= 1) of the run still has the run's chunk.
    const auto same = [&](Index i) {
      const Index before = mul_sat(mul_sat(i - 1, p_), run.chunk);
      return before < remaining && batch_chunk(first + i - 1, remaining - before) == run.chunk;
    };
    // No run outlasts R: batch i of it starts after (i - 1) P K iterations.
    const Index most = ceil_div(remaining, mul_sat(p_, run.chunk));
    Index ok = 1;  // same(ok), and !same(bad)
    Index bad = 2;
    while (bad <= most && same(bad)) {
      ok = bad;
      bad = ok > most / 2 ? most + 1 : 2 * ok;
    }
    while (bad - ok > 1) {
      const Index mid = ok + (bad - ok) / 2;
      (same(mid) ? ok : bad) = mid;
    }
    run.length = ok;
    return run;
  }

  Index replay_beyond_table(Index batch) const {
    const std::lock_guard<std::mutex> lock(cursor_mutex_);
    if (checkpoints_.empty()) {
      checkpoints_.push_back(run_from(0, static_cast<Index>(table_.size()), table_end_remaining_));
      cursor_ = checkpoints_.front();
    }
    if (batch < cursor_.first) {
      if (previous_.index >= 0 && batch >= previous_.first) {
        cursor_ = previous_;  // one run back
      } else {  // the last checkpoint at or before the batch
        const auto after = std::upper_bound(checkpoints_.begin(), checkpoints_.end(), batch,
                                            [](Index b, const Run& r) { return b < r.first; });
        cursor_ = *std::prev(after);
      }
      previous_ = Run{};
    }
    while (batch >= cursor_.first + cursor_.length) {
      const Index left = cursor_.remaining_after(p_);
      if (left == 0) break;  // the loop ends in this run: later steps repeat its chunk
      previous_ = cursor_;
      cursor_ = run_from(cursor_.index + 1, cursor_.first + cursor_.length, left);
      const auto kept = static_cast<Index>(checkpoints_.size());
      if (cursor_.index == kept * kRunsPerCheckpoint) checkpoints_.push_back(cursor_);
    }
    return cursor_.chunk;
  }

  void replay(Index n) {
    Index remaining = n;
    Index chunk = 2;
    while (remaining > 0 && chunk > 1 && table_.size() < kTableLimit) {
      chunk = batch_chunk(static_cast<Index>(table_.size()), remaining);
      table_.push_back(chunk);
      remaining -= std::min(remaining, mul_sat(chunk, p_));
    }
    // Chunks never grow from one batch to the next (R shrinks, x grows), so
    // after a batch of 1s every later batch is 1s too.
    complete_ = remaining == 0 || chunk <= 1;
    table_end_remaining_ = remaining;
  }

  Index p_;
  double cv_;
  std::vector<Index> table_;
  Index table_end_remaining_ = 0;
  bool complete_ = true;
  // Beyond the table: the run closed() last reached, the one before it
  // (index -1: unknown), and every kRunsPerCheckpoint-th run from the first
  // (empty: none replayed yet).
  mutable Run cursor_;
  mutable Run previous_;
  mutable std::vector<Run> checkpoints_;
  mutable std::mutex cursor_mutex_;
  Index current_ = 0;
};

std::unique_ptr<ChunkRule> make_fac(LoopShape shape, const TechniqueParams& params) {
  return std::make_unique<FacRule>(shape, params);
}

void check_fac(Technique t, const TechniqueParams& params, int /*p*/) {
  check_positive(t, "mu", params.mu);
  check_positive(t, "sigma", params.sigma, true);
}

}  // namespace

extern const Descriptor kFacDescriptor{
    .info = {.technique = Technique::FAC,
             .name = "FAC",
             .has_closed_form = true,
             .batched = true,
             .equation = "000 Eq. 2.2 (recursive); closed: batch recurrence replayed locally (no "
                         "closed form in the papers)",
             .c_id = 101,
             .c_name = "LB4MPI_FAC_PROB"},
    .make = make_fac,
    .check = check_fac,
};

}  // namespace lb4mpi::detail
