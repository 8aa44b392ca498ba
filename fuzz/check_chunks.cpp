// Fuzz target (b): the chunk calculators. See check_chunks.hpp and
// docs/FUZZING.md for the input layout and what is asserted.
#include "check_chunks.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "byte_reader.hpp"
#include "check.hpp"
#include "chunk_bounds.hpp"
#include "lb4mpi/techniques/chunk_calculator.hpp"

namespace lb4mpi::fuzz {
namespace {

constexpr Index kMaxN = Index{1} << 62;
constexpr int kMaxP = 1 << 20;

/// How the chunks are taken: the three ways of the runtime, and the simulator.
enum class Drive : std::uint8_t {
  Recursive,  ///< ChunkCalculator::next (CCA); a clone from save/load_state midway (DCA-RMA)
  Split,      ///< grant / evaluate / commit (DCA without a closed form) beside next()
  Closed,     ///< closed_chunk and ClosedSequence (DCA), beside next() where both forms coincide
  Simulated,  ///< for_each_simulated_chunk, ranks of different speeds
};

struct Loop {
  int id = 0;  ///< technique index; kTechniqueCount and above are not techniques
  Technique technique = Technique::SS;
  LoopShape shape;
  TechniqueParams params;
};

struct Plan {
  Drive drive = Drive::Recursive;
  Feedback feedback = Feedback::None;
  bool ranks_from_input = false;  ///< else round robin
  Form simulated_form = Form::Recursive;
  std::vector<double> slowdown;  ///< per rank (empty: all 1), a repeated pattern
  double iteration_time = 1e-6;
  int executions = 1;
  Index clone_at = -1;  ///< Recursive drive: step at which a save/load clone takes over
  /// Chunks this input may take: kMaxChunkSteps >> 8, >> 4 or itself, so
  /// that most inputs run in a millisecond and the fuzzer still reaches
  /// loops of 65536 chunks.
  Index max_steps = kMaxChunkSteps >> 8;
};

std::string describe(const Loop& l) {
  return "technique " + std::to_string(l.id) + " (" +
         (l.id < static_cast<int>(kTechniqueCount) ? std::string(name(l.technique)) : "?") +
         "), N = " + std::to_string(l.shape.n) + ", P = " + std::to_string(l.shape.p) +
         ", min_chunk = " + std::to_string(l.params.min_chunk) +
         ", max_chunk = " + std::to_string(l.params.max_chunk);
}

// ---- decoding ---------------------------------------------------------------

Index take_n(ByteReader& in) {
  switch (in.take<std::uint8_t>() % 6) {
    case 0: return in.take_in<Index>(0, 64);
    case 1: return in.take_in<Index>(0, 100000);
    case 2: return in.take_in<Index>(0, Index{1} << 32);
    case 3: return in.take_in<Index>(0, kMaxN);
    case 4: return kMaxN - in.take_in<Index>(0, 1000);
    default: return in.take<Index>();  // mostly outside [0, 2^62]
  }
}

int take_p(ByteReader& in) {
  switch (in.take<std::uint8_t>() % 5) {
    case 0: return in.take_in(1, 8);
    case 1: return in.take_in(1, 300);
    case 2: return in.take_in(1, 5000);
    case 3: return in.take_in(1, kMaxP);
    // Invalid. (P above 2^20 is not fuzzed: the per-rank statistics of
    // P = 2^31 ranks need 300 GB, a cost of P, not a bug.)
    default: return in.take_in(std::numeric_limits<int>::min(), 0);
  }
}

Index take_min_chunk(ByteReader& in) {
  switch (in.take<std::uint8_t>() % 4) {
    case 0: return 1;
    case 1: return in.take_in<Index>(1, 64);
    case 2: return in.take_in<Index>(1, kMaxN);
    default: return in.take<Index>();
  }
}

Index take_max_chunk(ByteReader& in, Index min_chunk) {
  switch (in.take<std::uint8_t>() % 4) {
    case 0: return 0;
    case 1: return min_chunk + in.take_in<Index>(0, 1000);
    case 2: return in.take_in<Index>(1, kMaxN);
    default: return in.take<Index>();
  }
}

/// A real parameter: the default, an everyday value, any double, or an extreme power of two.
double take_real(ByteReader& in, double fallback) {
  switch (in.take<std::uint8_t>() % 4) {
    case 0: return fallback;
    case 1: return static_cast<double>(in.take_in<std::int32_t>(-1000, 1000000)) / 1000.0;
    case 2: return in.take_raw_double();
    default: return std::ldexp(1.0, in.take_in(-1074, 1023));
  }
}

/// P values from a pattern of up to 4, so that P = 2^20 costs a few bytes.
std::vector<double> take_per_rank(ByteReader& in, int p, bool raw) {
  const int k = 1 + in.take<std::uint8_t>() % 4;
  std::vector<double> pattern;
  for (int i = 0; i < k; ++i) {
    pattern.push_back(raw ? in.take_raw_double()
                          : static_cast<double>(in.take_in<std::uint32_t>(1, 100000)) / 1000.0);
  }
  std::vector<double> out(static_cast<std::size_t>(std::max(p, 0)));
  for (std::size_t r = 0; r < out.size(); ++r) out[r] = pattern[r % pattern.size()];
  return out;
}

std::vector<double> take_weights(ByteReader& in, int p) {
  switch (in.take<std::uint8_t>() % 4) {
    case 0: return {};
    case 1: return take_per_rank(in, p, false);
    case 2: return take_per_rank(in, p, true);
    default: return std::vector<double>(in.take_in<std::size_t>(0, 9), 1.0);  // count mostly wrong
  }
}

Loop take_loop(ByteReader& in) {
  Loop l;
  l.id = static_cast<int>(in.take<std::uint8_t>() % (kTechniqueCount + 3));
  l.technique = static_cast<Technique>(l.id);
  l.shape.n = take_n(in);
  l.shape.p = take_p(in);
  TechniqueParams& q = l.params;
  q.min_chunk = take_min_chunk(in);
  q.max_chunk = take_max_chunk(in, q.min_chunk);
  q.h = take_real(in, q.h);
  q.sigma = take_real(in, q.sigma);
  q.mu = take_real(in, q.mu);
  q.alpha = take_real(in, q.alpha);
  q.viss_x = take_real(in, q.viss_x);
  q.pls_swr = take_real(in, q.pls_swr);
  switch (in.take<std::uint8_t>() % 3) {
    case 0: break;
    case 1: q.fiss_batches = in.take_in(-2, 64); break;
    default: q.fiss_batches = in.take<int>(); break;
  }
  q.rnd_bounds = static_cast<RndBounds>(in.take<std::uint8_t>() % 3);  // 2 is no RndBounds
  q.seed = in.take<std::uint64_t>();
  q.weights = take_weights(in, std::min(l.shape.p, kMaxP));
  return l;
}

Plan take_plan(ByteReader& in, int p) {
  Plan plan;
  plan.drive = static_cast<Drive>(in.take<std::uint8_t>() % 4);
  plan.feedback = static_cast<Feedback>(in.take<std::uint8_t>() % 3);
  plan.ranks_from_input = in.take_bool();
  plan.simulated_form = in.take_bool() ? Form::Closed : Form::Recursive;
  switch (in.take<std::uint8_t>() % 4) {
    case 0: break;
    case 1: plan.slowdown = take_per_rank(in, p, false); break;
    case 2: plan.slowdown = take_per_rank(in, p, true); break;
    default: plan.slowdown.assign(in.take_in<std::size_t>(0, 9), 1.0); break;
  }
  if (in.take_bool()) plan.iteration_time = take_real(in, 1e-6);
  plan.executions = 1 + in.take<std::uint8_t>() % 3;
  const auto clone = in.take<std::uint16_t>();
  plan.clone_at = clone == 0 ? -1 : clone - 1;
  plan.max_steps = kMaxChunkSteps >> (8 - 4 * (in.take<std::uint8_t>() % 3));
  return plan;
}

// ---- what the docs say is valid ----------------------------------------------

bool finite_positive(double x) { return std::isfinite(x) && x > 0.0; }
bool finite_nonnegative(double x) { return std::isfinite(x) && x >= 0.0; }

// TECHNIQUES.md, "Validation", read independently of params.cpp (reals
// must also be finite where the technique uses them).
std::optional<std::string> documented_error(const Loop& l) {
  const TechniqueParams& q = l.params;
  if (l.id >= static_cast<int>(kTechniqueCount)) return "not a technique";
  if (l.shape.n < 0 || l.shape.n > kMaxN) return "N outside [0, 2^62]";
  if (l.shape.p < 1) return "P < 1";
  if (q.min_chunk < 1) return "min_chunk < 1";
  if (q.max_chunk != 0 && q.max_chunk < q.min_chunk) return "max_chunk neither 0 nor >= min_chunk";
  switch (l.technique) {
    case Technique::FSC:
      if (!finite_positive(q.h) || !finite_positive(q.sigma)) return "FSC: h or sigma not > 0";
      break;
    case Technique::TAP:
      if (!finite_nonnegative(q.alpha)) return "TAP: alpha not >= 0";
      [[fallthrough]];
    case Technique::FAC:
      if (!finite_positive(q.mu) || !finite_nonnegative(q.sigma)) return "mu not > 0 or sigma not >= 0";
      break;
    case Technique::FISS:
      if (q.fiss_batches < 2) return "FISS: B < 2";
      break;
    case Technique::VISS:
      if (!finite_positive(q.viss_x)) return "VISS: X not > 0";
      break;
    case Technique::PLS:
      if (!(q.pls_swr >= 0.0 && q.pls_swr <= 1.0)) return "PLS: SWR outside [0, 1]";
      break;
    case Technique::RND:
      if (q.rnd_bounds != RndBounds::Unit && q.rnd_bounds != RndBounds::Paper004) return "RND: bounds";
      break;
    case Technique::WF:
    case Technique::AWF:
      if (q.weights.empty()) break;
      if (q.weights.size() != static_cast<std::size_t>(l.shape.p)) return "weights: not P of them";
      for (const double w : q.weights) {
        if (!finite_positive(w)) return "weights: not all positive";
      }
      break;
    default:
      break;
  }
  return std::nullopt;
}

void expect_message(const Error& e, const std::string& context) {
  expect(e.what() != nullptr && e.what()[0] != '\0', [&] { return context + ": an Error without a message"; });
}

// ---- one execution, checked ----------------------------------------------------

/// The chunks of one execution so far: contiguous from 0, each >= 1, >=
/// min_chunk but the last, <= max_chunk (STATIC: neither), none past N.
class Tracker {
 public:
  Tracker(const Loop& loop, Index n, Index start = 0, Index count = 0)
      : loop_(&loop), n_(n), next_(start), count_(count) {}

  void add(const Chunk& c, const char* where) {
    const TechniqueParams& q = loop_->params;
    const bool bounded = loop_->technique != Technique::STATIC;
    const auto what = [&](const char* problem) {
      return std::string(where) + ": chunk " + std::to_string(count_) + " [" + std::to_string(c.begin) +
             ", +" + std::to_string(c.size) + ") " + problem + " (next expected at " +
             std::to_string(next_) + "); " + describe(*loop_) + ", N of this execution " +
             std::to_string(n_);
    };
    expect(c.size >= 1, [&] { return what("is empty"); });
    expect(c.begin == next_, [&] { return what("is not contiguous with the chunks before"); });
    expect(c.size <= n_ - c.begin, [&] { return what("ends past N"); });
    expect(!bounded || q.max_chunk == 0 || c.size <= q.max_chunk, [&] { return what("exceeds max_chunk"); });
    expect(!bounded || c.size >= q.min_chunk || c.end() == n_,
           [&] { return what("is below min_chunk and not the last"); });
    next_ = c.end();
    ++count_;
  }

  [[nodiscard]] Index count() const { return count_; }
  [[nodiscard]] Index covered() const { return next_; }

 private:
  const Loop* loop_;
  Index n_;
  Index next_;
  Index count_;
};

/// Shared state of one input: the loop, the plan, the bytes still to read,
/// and the chunks left to take.
struct Context {
  Loop loop;  ///< as it is now: restart(n) changes its N
  const Plan& plan;
  ByteReader& in;
  Index budget = 0;
  double min_weight = 1.0;  ///< WF / AWF: of the weights the rule holds now
};

struct OutOfSteps {};  // thrown by the simulator's sink when the budget is used up

/// The smallest normalized weight P (1/max) / sum(1/w) of positive values;
/// 0 when they are not all finite and positive.
double smallest_normalized(const std::vector<double>& inverse_speeds) {
  double total = 0.0;
  double largest = 0.0;
  for (const double s : inverse_speeds) {
    if (!finite_positive(s)) return 0.0;
    largest = std::max(largest, s);
    total += 1.0 / s;
  }
  const double w = static_cast<double>(inverse_speeds.size()) * (1.0 / largest) / total;
  return finite_positive(w) ? w : 0.0;
}

/// The ranks' iteration times in the manual drives and the simulator:
/// base x slowdown (empty slowdown: base for every rank).
double iteration_time(const Context& ctx, int rank, double base) {
  return ctx.plan.slowdown.size() == static_cast<std::size_t>(ctx.loop.shape.p)
             ? base * ctx.plan.slowdown[static_cast<std::size_t>(rank)]
             : base;
}

/// Whether the times of `base` x slowdown teach an adaptive rule weights
/// within a factor 2 of the slowdowns' (no overflow to infinity, no zero).
bool uniform_learnable(const Context& ctx, double base) {
  if (!finite_positive(base)) return false;
  double lo = base;
  double hi = base;
  for (const double s : ctx.plan.slowdown) {
    if (!finite_positive(s)) return false;
    lo = std::min(lo, base * s);
    hi = std::max(hi, base * s);
  }
  return lo > 1e-290 && hi * static_cast<double>(ctx.loop.shape.n + 1) < 1e290;
}

BoundInput bound_input(const Context& ctx, const ChunkCalculator& calc, Form form, Feedback feedback,
                       double base_time) {
  BoundInput b;
  b.technique = ctx.loop.technique;
  b.shape = calc.shape();
  b.params = ctx.loop.params;
  b.form = form;
  b.feedback = feedback;
  b.min_weight = ctx.min_weight;
  const bool learned = info(b.technique).adaptive && b.technique != Technique::AWF;
  if (learned && feedback == Feedback::Uniform) {
    if (!uniform_learnable(ctx, base_time)) {
      b.feedback = Feedback::Random;
    } else {
      b.min_weight = ctx.plan.slowdown.size() == static_cast<std::size_t>(b.shape.p)
                         ? smallest_normalized(ctx.plan.slowdown)
                         : 1.0;
    }
  }
  if (b.technique == Technique::SS || b.technique == Technique::FSC || b.technique == Technique::mFSC) {
    b.fixed_size = calc.closed_size(0);
  }
  return b;
}

/// A finished execution: everything covered, within the bound; or, when the
/// chunks ran out first, a bound that allows more chunks than were taken.
void check_end(const Context& ctx, const Tracker& t, bool finished, const BoundInput& b, const char* where) {
  const double bound = chunk_bound(b);
  const auto what = [&](const std::string& problem) {
    return std::string(where) + ": " + problem + " after " + std::to_string(t.count()) +
           " chunks covering " + std::to_string(t.covered()) + " of " + std::to_string(b.shape.n) +
           ", documented bound " + std::to_string(bound) + "; " + describe(ctx.loop);
  };
  // Out of steps just as the loop was covered: it did end within them.
  finished = finished || t.covered() == b.shape.n;
  if (finished) {
    expect(t.covered() == b.shape.n, [&] { return what("the loop ended uncovered"); });
    expect(static_cast<double>(t.count()) <= bound, [&] { return what("more chunks than the bound"); });
  } else {
    expect(static_cast<double>(t.count()) < bound, [&] { return what("not covered within the bound"); });
  }
}

int next_rank(Context& ctx, Index step) {
  const int p = ctx.loop.shape.p;
  return ctx.plan.ranks_from_input ? ctx.in.take_in(0, p - 1) : static_cast<int>(step % p);
}

/// Feeds the timing of `c`, executed by `rank`, to `calc` and `twin` (when not null).
void feed(Context& ctx, ChunkCalculator* calc_one, ChunkCalculator* twin, int rank, const Chunk& c) {
  const std::array<ChunkCalculator*, 2> calcs{calc_one, twin};
  const int p = ctx.loop.shape.p;
  const auto uniform = [&] {
    const double t = static_cast<double>(c.size) * iteration_time(ctx, rank, 1e-6);
    for (ChunkCalculator* calc : calcs) {
      if (calc != nullptr) calc->record(ChunkTiming{rank, c.size, t, 1.25 * t});
    }
  };
  switch (ctx.plan.feedback) {
    case Feedback::None:
      return;
    case Feedback::Uniform:
      uniform();
      return;
    case Feedback::Random:
      break;
  }
  switch (ctx.in.take<std::uint8_t>() % 4) {
    case 0:
      uniform();
      return;
    case 1: {
      const double work = ctx.in.take_raw_double();
      const double elapsed = ctx.in.take_raw_double();
      for (ChunkCalculator* calc : calcs) {
        if (calc != nullptr) calc->record(ChunkTiming{rank, c.size, work, elapsed});
      }
      return;
    }
    case 2: {
      // Any rank, a size of the chunk, none or a negative one: an Error exactly for ranks outside [0, P).
      const int who = ctx.in.take<int>();
      const Index size = std::array<Index, 3>{c.size, 0, -c.size}[ctx.in.take<std::uint8_t>() % 3];
      const double work = ctx.in.take_raw_double();
      for (ChunkCalculator* calc : calcs) {
        if (calc == nullptr) continue;
        try {
          calc->record(ChunkTiming{who, size, work, 0.0});
          expect(who >= 0 && who < p, [&] { return "record() took rank " + std::to_string(who); });
        } catch (const Error& e) {
          expect_message(e, "record");
          expect(who < 0 || who >= p, [&] { return "record() refused rank " + std::to_string(who); });
        }
      }
      return;
    }
    default:
      return;
  }
}

constexpr const char* kClone = "clone from save_state/load_state";

/// The clone's timing: uniform feedback only (its own chunks; it is not
/// compared with the original, whose sums it may round differently).
void feed_clone(Context& ctx, ChunkCalculator& clone, int rank, const Chunk& c) {
  if (ctx.plan.feedback != Feedback::Uniform) return;
  const double time = static_cast<double>(c.size) * iteration_time(ctx, rank, 1e-6);
  clone.record(ChunkTiming{rank, c.size, time, 1.25 * time});
}

/// The clone's chunks after the original's loop ended, from `step` on.
bool finish_clone(Context& ctx, ChunkCalculator& clone, Tracker& t, const BoundInput& b, Index step) {
  for (;; ++step) {
    if (ctx.budget-- <= 0) {
      check_end(ctx, t, false, b, kClone);
      return false;
    }
    const int rank = next_rank(ctx, step);
    const std::optional<Chunk> c = clone.next(rank);
    if (!c) {
      check_end(ctx, t, true, b, kClone);
      return true;
    }
    t.add(*c, kClone);
    feed_clone(ctx, clone, rank, *c);
  }
}

// The recursive form (and its DCA split beside it, or a clone made from the
// saved state midway, as DCA-RMA replicates it). False when the chunks ran
// out before the loop ended.
// ---- an independent model of the simplest techniques ---------------------------
//
// The papers' formulas, written again here from the papers (never taken from
// the library): the size every chunk of SS, FSC and mFSC has, and GSS's
// recursive size, before the chunk bounds; nullopt for the other techniques.
//   SS    `001`: K = 1
//   FSC   `001` Eq. 3: K = ceil((sqrt(2) N h / (sigma P sqrt(ln P)))^(2/3)),
//         in [1, N]; P = 1: K = N (nothing to balance)
//   mFSC  `003` Appendix B: T = ceil(N / P), K = trunc(0.55 + T ln 2 / ln T), at
//         least 1; T <= 1: K = 1
//   GSS   `001` Eq. 4: K_i = ceil(R_i / P)
// Returned as a real interval [lo, hi] for the ceiling/truncation: a real
// formula evaluated in a different order may round the last ulp differently.
struct ModelSize {
  Index lo = 0;
  Index hi = 0;
};

std::optional<ModelSize> model_size(const Loop& l, Index remaining) {
  const Index n = l.shape.n;
  const Index p = l.shape.p;
  const auto clamp_n = [n](double x) -> Index {
    if (!(x < static_cast<double>(n))) return std::max<Index>(1, n);  // also inf and NaN
    return std::max<Index>(1, static_cast<Index>(x));
  };
  const auto around = [&](double x, bool ceil_it) {
    const double eps = 1e-9 * std::max(1.0, std::fabs(x));
    const auto round_one = [&](double y) { return clamp_n(ceil_it ? std::ceil(y) : std::trunc(y)); };
    return ModelSize{round_one(x - eps), round_one(x + eps)};
  };
  switch (l.technique) {
    case Technique::SS:
      return ModelSize{1, 1};
    case Technique::FSC: {
      if (p == 1) return ModelSize{std::max<Index>(1, n), std::max<Index>(1, n)};
      const double pd = static_cast<double>(p);
      const double inner = std::sqrt(2.0) * static_cast<double>(n) * l.params.h /
                           (l.params.sigma * pd * std::sqrt(std::log(pd)));
      return around(std::pow(inner, 2.0 / 3.0), true);
    }
    case Technique::mFSC: {
      const Index t = n / p + (n % p != 0 ? 1 : 0);
      if (t <= 1) return ModelSize{1, 1};
      const double td = static_cast<double>(t);
      return around(0.55 + td * std::log(2.0) / std::log(td), false);
    }
    case Technique::GSS: {
      const Index k = remaining / p + (remaining % p != 0 ? 1 : 0);
      return ModelSize{std::max<Index>(1, k), std::max<Index>(1, k)};
    }
    default:
      return std::nullopt;
  }
}

/// Checks a chunk's size against the model, with the chunk bounds of
/// OPTIONS.md applied (at least min_chunk, at most max_chunk when set, at
/// most what remains).
void check_model(const Loop& l, Index remaining, const Chunk& c, Index step, const char* where) {
  const std::optional<ModelSize> m = model_size(l, remaining);
  if (!m) return;
  const auto bound = [&](Index k) {
    k = std::max(k, l.params.min_chunk);
    if (l.params.max_chunk > 0) k = std::min(k, l.params.max_chunk);
    return std::min(k, remaining);
  };
  const Index lo = bound(m->lo);
  const Index hi = bound(m->hi);
  expect(c.size >= lo && c.size <= hi, [&] {
    return std::string(where) + ", step " + std::to_string(step) + ": chunk of " + std::to_string(c.size) +
           ", the papers' formula gives " + std::to_string(lo) + (hi != lo ? ".." + std::to_string(hi) : "") +
           " (" + std::to_string(remaining) + " remaining); " + describe(l);
  });
}

// AWF-B..E's weights (`003` Appendix B), written again here: a rank's
// weighted performance is pi_r = sum_k k t_k / sum_k k n_k over its chunks
// (k their ordinal; t the work time for B and C, the elapsed time for D and
// E) and its weight w_r = P (1 / pi_r) / sum_j (1 / pi_j). Under uniform
// feedback every chunk of rank r took size x s_r (elapsed 1.25 x that), so
// pi_r is s_r (1.25 s_r) whatever the chunks, and w_r = P (1/s_r) / sum_j
// (1/s_j). Checked once every rank has measured a chunk.
void check_awf_weights(const Context& ctx, const ChunkCalculator& calc) {
  const Technique t = ctx.loop.technique;
  if (t != Technique::AWF_B && t != Technique::AWF_C && t != Technique::AWF_D && t != Technique::AWF_E) return;
  if (ctx.plan.feedback != Feedback::Uniform || !uniform_learnable(ctx, 1e-6)) return;
  const int p = ctx.loop.shape.p;
  if (p > (1 << 16)) return;
  const PerfTable& perf = calc.perf();
  // pi_r is the work time (B, C) or the elapsed time (D, E) per iteration,
  // and the rules count one below PerfTable::kMinIterationTime as that
  // (perf_stats.hpp): at slowdowns 10^200 apart the fastest ranks' pi are
  // there.
  const double elapsed_factor = t == Technique::AWF_D || t == Technique::AWF_E ? 1.25 : 1.0;
  const auto inverse_pi = [&](int r) {
    return 1.0 / std::max(elapsed_factor * iteration_time(ctx, r, 1e-6), PerfTable::kMinIterationTime);
  };
  double sum_inverse = 0.0;
  for (int r = 0; r < p; ++r) {
    if (!perf.has_weighted_performance(r)) return;
    sum_inverse += inverse_pi(r);
  }
  for (int r = 0; r < p; ++r) {
    const double want = static_cast<double>(p) * inverse_pi(r) / sum_inverse;
    const double got = perf.weight(r);
    expect(std::fabs(got - want) <= 1e-6 * want, [&] {
      char buf[96];
      std::snprintf(buf, sizeof buf, "'s weight %.17g, `003` Appendix B gives %.17g; ", got, want);
      return "rank " + std::to_string(r) + buf + describe(ctx.loop);
    });
  }
}

bool run_recursive(Context& ctx, ChunkCalculator& calc, ChunkCalculator* split) {
  const Index n = calc.shape().n;
  Tracker t(ctx.loop, n);
  std::unique_ptr<ChunkCalculator> clone;
  std::optional<Tracker> clone_t;
  // What DCA-RMA replicates; the state holds 12 numbers per rank, so only
  // up to 2^16 ranks (at 2^20 one save and load took seconds at -O0).
  const bool clonable = !info(ctx.loop.technique).has_closed_form && ctx.loop.shape.p <= (1 << 16);
  const char* where = split != nullptr ? "recursive form beside its DCA split" : "recursive form";
  const BoundInput b = bound_input(ctx, calc, Form::Recursive, ctx.plan.feedback, 1e-6);
  for (Index step = 0;; ++step) {
    if (ctx.budget-- <= 0) {
      check_end(ctx, t, false, b, where);
      return false;
    }
    if (clonable && step == ctx.plan.clone_at && !clone) {
      std::vector<double> state;
      calc.save_state(state);
      clone = std::make_unique<ChunkCalculator>(ctx.loop.technique, calc.shape(), ctx.loop.params);
      clone->load_state(state);
      clone_t.emplace(ctx.loop, n, t.covered(), t.count());
    }
    const int rank = next_rank(ctx, step);
    const std::optional<Chunk> c = calc.next(rank);
    if (split != nullptr) {
      const std::optional<ChunkCalculator::Grant> g = split->grant(rank);
      expect(g.has_value() == c.has_value(), [&] { return "grant() and next() disagree on the end; " + describe(ctx.loop); });
      if (g) {
        const Chunk s = split->evaluate(*g);
        split->commit(*g, s.size);
        expect(s.begin == c->begin && s.size == c->size, [&] {
          return "step " + std::to_string(step) + ": next() gives [" + std::to_string(c->begin) + ", +" +
                 std::to_string(c->size) + "), grant/evaluate/commit [" + std::to_string(s.begin) + ", +" +
                 std::to_string(s.size) + "); " + describe(ctx.loop);
        });
      }
    }
    std::optional<Chunk> cc;
    if (clone) {
      cc = clone->next(rank);
      if (cc) {
        clone_t->add(*cc, kClone);
        feed_clone(ctx, *clone, rank, *cc);
      }
    }
    if (!c) {
      expect(!calc.next(0), [&] { return "next() gave a chunk after the end; " + describe(ctx.loop); });
      check_end(ctx, t, true, b, where);
      check_awf_weights(ctx, calc);
      if (!clone) return true;
      if (!cc) {
        check_end(ctx, *clone_t, true, b, kClone);
        return true;
      }
      return finish_clone(ctx, *clone, *clone_t, b, step + 1);
    }
    check_model(ctx.loop, n - t.covered(), *c, step, where);
    // The saved-and-loaded calculator (what DCA-RMA replicates) must go on as
    // the original does, as long as both learn the same (no random feedback).
    if (clone && ctx.plan.feedback != Feedback::Random) {
      expect(cc.has_value() && cc->begin == c->begin && cc->size == c->size, [&] {
        return "step " + std::to_string(step) + ": the original gives [" + std::to_string(c->begin) + ", +" +
               std::to_string(c->size) + "), its saved-and-loaded clone " +
               (cc ? "[" + std::to_string(cc->begin) + ", +" + std::to_string(cc->size) + ")" : std::string("nothing")) +
               "; " + describe(ctx.loop);
      });
    }
    t.add(*c, where);
    if (ctx.plan.feedback != Feedback::None) feed(ctx, &calc, split, rank, *c);
  }
}

// The techniques whose recursive form is their closed sequence (TECHNIQUES.md).
bool forms_coincide(Technique t) {
  switch (t) {
    case Technique::STATIC:
    case Technique::SS:
    case Technique::FSC:
    case Technique::mFSC:
    case Technique::TSS:
    case Technique::TFSS:
    case Technique::RND:
      return true;
    default:
      return false;
  }
}

// The closed form as DCA walks it: closed_chunk over the running sum, and
// ClosedSequence, and closed_start where it is known; next() beside it where
// both forms coincide.
bool run_closed(Context& ctx, ChunkCalculator& calc, ChunkCalculator& recursive) {
  const Index n = calc.shape().n;
  const Loop& loop = ctx.loop;
  if (!info(loop.technique).has_closed_form) {
    try {
      (void)calc.closed_size(0);
      fail("closed_size() of a technique without a closed form; " + describe(loop));
    } catch (const Error& e) {
      expect_message(e, "closed_size");
    }
    return run_recursive(ctx, calc, nullptr);
  }
  try {
    (void)calc.closed_size(-1);
    fail("closed_size(-1) did not throw; " + describe(loop));
  } catch (const Error& e) {
    expect_message(e, "closed_size(-1)");
  }
  // Any step's size is bounded, however far past the end. (FAC beyond its
  // table replays the batches up to the step, O(runs of equal chunks) for a
  // far one, so there a probe stays within the steps this input may walk.)
  for (int probe = 0; probe < 3; ++probe) {
    Index step = ctx.in.take<Index>() & std::numeric_limits<Index>::max();
    if (loop.technique == Technique::FAC) step %= ctx.plan.max_steps * loop.shape.p;
    const Index size = calc.closed_size(step);
    const bool bounded = loop.technique != Technique::STATIC;
    expect(size >= 1 && (!bounded || loop.params.max_chunk == 0 || size <= loop.params.max_chunk), [&] {
      return "closed_size(" + std::to_string(step) + ") = " + std::to_string(size) + "; " + describe(loop);
    });
  }
  Tracker t(loop, n);
  ClosedSequence seq(calc);
  const bool both = forms_coincide(loop.technique);
  const BoundInput b = bound_input(ctx, calc, Form::Closed, ctx.plan.feedback, 1e-6);
  Index scheduled = 0;
  for (Index step = 0;; ++step) {
    if (ctx.budget-- <= 0) {
      check_end(ctx, t, false, b, "closed form");
      return false;
    }
    const std::optional<Chunk> c = calc.closed_chunk(step, scheduled);
    const std::optional<Chunk> s = seq.chunk(step);
    const auto same = [](const std::optional<Chunk>& x, const std::optional<Chunk>& y) {
      return x.has_value() == y.has_value() && (!x || (x->begin == y->begin && x->size == y->size));
    };
    expect(same(c, s), [&] {
      return "step " + std::to_string(step) + ": closed_chunk and ClosedSequence differ; " + describe(loop);
    });
    const Index start = calc.closed_start(step);
    expect(start < 0 || start == scheduled || (scheduled >= n && start >= n), [&] {
      return "closed_start(" + std::to_string(step) + ") = " + std::to_string(start) + ", the sizes before sum to " +
             std::to_string(scheduled) + "; " + describe(loop);
    });
    if (both) {
      const std::optional<Chunk> r = recursive.next(static_cast<int>(step % loop.shape.p));
      expect(same(c, r), [&] {
        return "step " + std::to_string(step) + ": the closed and recursive forms differ; " + describe(loop);
      });
    }
    if (!c) {
      check_end(ctx, t, true, b, "closed form");
      return true;
    }
    if (loop.technique != Technique::GSS) check_model(loop, n - scheduled, *c, step, "closed form");
    t.add(*c, "closed form");
    scheduled += c->size;
  }
}

// for_each_simulated_chunk: its own calculator, ranks of the plan's speeds.
void run_simulated(Context& ctx) {
  const Loop& loop = ctx.loop;
  SimulationSetup setup;
  setup.iteration_time = ctx.plan.iteration_time;
  setup.slowdown = ctx.plan.slowdown;
  const Form form = ctx.plan.simulated_form;
  // What the simulator must refuse after the loop itself.
  bool bad_setup = form == Form::Closed && !info(loop.technique).has_closed_form;
  bad_setup = bad_setup || (!setup.slowdown.empty() && setup.slowdown.size() != static_cast<std::size_t>(loop.shape.p));
  for (const double f : setup.slowdown) bad_setup = bad_setup || !finite_positive(f);

  const ChunkCalculator probe(loop.technique, loop.shape, loop.params);  // valid: checked before
  Tracker t(loop, loop.shape.n);
  const BoundInput b = bound_input(ctx, probe, form, Feedback::Uniform, setup.iteration_time);
  bool finished = true;
  try {
    for_each_simulated_chunk(loop.technique, loop.shape, loop.params, form, setup, [&](const Chunk& c, int rank) {
      expect(rank >= 0 && rank < loop.shape.p, [&] { return "the simulator gave rank " + std::to_string(rank); });
      if (ctx.budget-- <= 0) throw OutOfSteps{};
      t.add(c, "simulator");
    });
    expect(!bad_setup, [&] { return "the simulator accepted a bad setup; " + describe(loop); });
  } catch (const OutOfSteps&) {
    finished = false;
  } catch (const Error& e) {
    expect_message(e, "simulator");
    expect(bad_setup, [&] { return std::string("the simulator refused a good setup: ") + e.what(); });
    return;
  }
  check_end(ctx, t, finished, b, "simulator");
}

// Between executions: restart() or restart(n), and, with random feedback,
// whole time steps of random ranks (AWF learns from them).
void between_executions(Context& ctx, std::vector<ChunkCalculator*> calcs) {
  const int p = ctx.loop.shape.p;
  if (ctx.plan.feedback == Feedback::Random) {
    for (int k = ctx.in.take<std::uint8_t>() % 4; k > 0; --k) {
      const int who = ctx.in.take_in(-1, p);
      const Index iterations = ctx.in.take<Index>() >> 2;
      const double time = ctx.in.take_raw_double();
      for (ChunkCalculator* calc : calcs) {
        try {
          calc->record_time_step(who, iterations, time);
          expect(who >= 0 && who < p, [&] { return "record_time_step() took rank " + std::to_string(who); });
        } catch (const Error& e) {
          expect_message(e, "record_time_step");
          expect(who < 0 || who >= p, [&] { return "record_time_step() refused rank " + std::to_string(who); });
        }
      }
    }
  }
  if (ctx.in.take_bool()) {
    const Index n = take_n(ctx.in);
    const bool valid = n >= 0 && n <= kMaxN;
    for (ChunkCalculator* calc : calcs) {
      try {
        calc->restart(n);
        expect(valid, [&] { return "restart(" + std::to_string(n) + ") accepted; " + describe(ctx.loop); });
        expect(calc->shape().n == n && calc->step() == 0 && calc->scheduled() == 0,
               [&] { return "restart(n) left the old loop; " + describe(ctx.loop); });
      } catch (const Error& e) {
        expect_message(e, "restart(n)");
        expect(!valid, [&] { return "restart(" + std::to_string(n) + ") refused: " + e.what(); });
        calc->restart();
      }
    }
    // The oracles (the papers' sizes, the bounds, the descriptions) read N
    // from the loop: it is now the restarted one's.
    if (valid) ctx.loop.shape.n = n;
  } else {
    for (ChunkCalculator* calc : calcs) calc->restart();
  }
  // AWF takes the weights learnt over the time steps (when any rank has one).
  if (ctx.loop.technique == Technique::AWF) {
    const PerfTable& perf = calcs.front()->perf();
    bool any = false;
    for (int r = 0; r < p && !any; ++r) any = perf.has_weighted_performance(r);
    if (any) {
      const std::vector<double> w = perf.weights();
      const double smallest = *std::min_element(w.begin(), w.end());
      ctx.min_weight = finite_positive(smallest) ? smallest : 0.0;
    }
  }
}

}  // namespace

void check_chunks(const std::uint8_t* data, std::size_t size) {
  ByteReader in(data, size);
  const Loop loop = take_loop(in);
  const Plan plan = take_plan(in, loop.shape.p);
  const std::optional<std::string> invalid = documented_error(loop);
  std::unique_ptr<ChunkCalculator> calc;
  try {
    calc = std::make_unique<ChunkCalculator>(loop.technique, loop.shape, loop.params);
  } catch (const Error& e) {
    expect_message(e, "construction");
    expect(invalid.has_value(), [&] { return std::string("a valid loop refused: ") + e.what() + "; " + describe(loop); });
    return;
  }
  expect(!invalid.has_value(), [&] { return "an invalid loop accepted (" + *invalid + "); " + describe(loop); });

  const Index estimate = calc->estimated_chunks();
  expect(loop.shape.n == 0 ? estimate == 0 : estimate >= 1,
         [&] { return "estimated_chunks() = " + std::to_string(estimate) + "; " + describe(loop); });
  if (loop.shape.n > 0) {
    try {
      (void)calc->next(loop.shape.p);
      fail("next() took rank P; " + describe(loop));
    } catch (const Error& e) {
      expect_message(e, "next(P)");
    }
  }

  Context ctx{loop, plan, in, plan.max_steps};
  if (!loop.params.weights.empty()) ctx.min_weight = smallest_normalized([&] {
    // Normalized weights w_r = P w_r / sum w: the smallest is smallest_normalized of 1/w.
    std::vector<double> inverse(loop.params.weights.size());
    for (std::size_t r = 0; r < inverse.size(); ++r) inverse[r] = 1.0 / loop.params.weights[r];
    return inverse;
  }());
  // The simulator keeps an event per rank, O(P log P) whatever the chunks:
  // seconds for P = 2^20 in the Debug build under the fuzzer. Larger P go
  // the recursive way.
  if (plan.drive == Drive::Simulated && loop.shape.p <= (1 << 16)) {
    run_simulated(ctx);
    return;
  }
  const bool has_closed = info(loop.technique).has_closed_form;
  std::unique_ptr<ChunkCalculator> twin;  // the split (Split) or the recursive form (Closed)
  if (plan.drive == Drive::Split && has_closed) {
    try {
      (void)calc->grant(0);
      expect(loop.shape.n == 0, [&] { return "grant() of a technique with a closed form; " + describe(loop); });
    } catch (const Error& e) {
      expect_message(e, "grant");
    }
  } else if (plan.drive == Drive::Split || plan.drive == Drive::Closed) {
    twin = std::make_unique<ChunkCalculator>(loop.technique, loop.shape, loop.params);
  }
  for (int e = 0; e < plan.executions; ++e) {
    if (e > 0) {
      std::vector<ChunkCalculator*> calcs{calc.get()};
      if (twin) calcs.push_back(twin.get());
      between_executions(ctx, calcs);
    }
    bool finished = false;
    switch (plan.drive) {
      case Drive::Recursive:
      case Drive::Simulated: finished = run_recursive(ctx, *calc, nullptr); break;
      case Drive::Split: finished = run_recursive(ctx, *calc, twin.get()); break;
      case Drive::Closed: finished = run_closed(ctx, *calc, *twin); break;
    }
    if (!finished) return;
  }
}

}  // namespace lb4mpi::fuzz
