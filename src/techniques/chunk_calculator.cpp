// ChunkCalculator: what every technique shares (min/max chunk, clipping to the
// remaining iterations, the step counter, feedback), and the simulator.
#include "lb4mpi/techniques/chunk_calculator.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <queue>
#include <string>
#include <utility>

#include "math.hpp"

namespace lb4mpi {

Index ChunkRule::closed(Index /*step*/) const {
  throw Error("this technique has no closed form (no chunk size from the step index alone)");
}

SharedInputs ChunkRule::share(const StepContext& /*ctx*/) {
  throw Error("this technique has a closed form; DCA computes its chunks from the step index");
}

Index ChunkRule::evaluate(const SharedInputs& /*in*/) const {
  throw Error("this technique has a closed form; DCA computes its chunks from the step index");
}

ChunkCalculator::ChunkCalculator(Technique t, LoopShape shape, TechniqueParams params)
    : technique_(t), shape_(shape), params_(std::move(params)) {
  params_.validate(t, shape_.n, shape_.p);
  rule_ = make_rule(t, shape_, params_);
  perf_ = PerfTable(shape_.p);
  unbounded_ = !lb4mpi::needs_assignment(t);
  plan_capped_closed_form();
}

// The closed form under a maximum chunk M (see closed_size and
// docs/TECHNIQUES.md). peak(L) is the largest size of the technique's closed
// form over a loop of L iterations; it grows with L. s* is the smallest s with
// s M >= N or peak(N - s M) <= M: the first step at which the technique,
// restarted on what is left, is no longer cut by the cap. Binary search over
// [0, ceil(N/M)]; every probe builds the rule for a smaller loop (O(1) for
// all shrinking techniques but FAC, whose replay is O(batches)).
void ChunkCalculator::plan_capped_closed_form() {
  const Index cap = params_.max_chunk;
  if (cap <= 0 || !info(technique_).has_closed_form) return;
  if (rule_->closed_peak() <= cap) return;  // 0: not a shrinking technique
  const Index n = shape_.n;
  if (n <= 0) return;
  const auto left_after = [&](Index steps) {
    const Index covered = detail::mul_sat(steps, cap);
    return covered >= n ? Index{0} : n - covered;
  };
  const auto uncut = [&](Index steps) {
    const Index left = left_after(steps);
    return left == 0 || make_rule(technique_, {left, shape_.p}, params_)->closed_peak() <= cap;
  };
  Index lo = 0;                          // uncut(lo) is false
  Index hi = detail::ceil_div(n, cap);   // uncut(hi) is true
  while (hi - lo > 1) {
    const Index mid = lo + (hi - lo) / 2;
    (uncut(mid) ? hi : lo) = mid;
  }
  Index steps = hi;
  // Batched techniques: the technique's own batches start on a multiple of P.
  if (info(technique_).batched) steps = detail::ceil_div(steps, shape_.p) * shape_.p;
  capped_steps_ = steps;
  const Index left = left_after(steps);
  if (left > 0) tail_rule_ = make_rule(technique_, {left, shape_.p}, params_);
  // TSS and TFSS depend on the step only (Eq. 6 / 8): their recursive form is
  // the closed sequence, and stays so under the cap.
  capped_recursive_ = rule_->step_only();
}

// The raw closed-form size of `step`, with the capped prefix when planned.
Index ChunkCalculator::closed_raw(Index step) const {
  if (capped_steps_ == 0) return rule_->closed(step);
  if (step < capped_steps_ || !tail_rule_) return params_.max_chunk;
  return tail_rule_->closed(step - capped_steps_);
}

std::optional<Chunk> ChunkCalculator::next(int rank) {
  const Index left = remaining();
  if (left <= 0) return std::nullopt;
  if (rank < 0 || rank >= shape_.p) {
    throw Error("rank " + std::to_string(rank) + " is outside [0, " + std::to_string(shape_.p) +
                ")");
  }
  const StepContext ctx{step_, left, rank, &perf_};
  const Index raw = capped_recursive_ ? closed_raw(step_) : rule_->next(ctx);
  const Index size = std::min(bound(raw), left);
  const Chunk chunk{scheduled_, size};
  scheduled_ += size;
  ++step_;
  return chunk;
}

std::optional<ChunkCalculator::Grant> ChunkCalculator::grant(int rank) {
  const Index left = remaining();
  if (left <= 0) return std::nullopt;
  if (rank < 0 || rank >= shape_.p) {
    throw Error("rank " + std::to_string(rank) + " is outside [0, " + std::to_string(shape_.p) + ")");
  }
  Grant g;
  g.step = step_;
  g.start = scheduled_;
  g.rank = rank;
  g.inputs = rule_->share(StepContext{step_, left, rank, &perf_});
  g.inputs.remaining = left;
  return g;
}

Chunk ChunkCalculator::evaluate(const Grant& g) const {
  return Chunk{g.start, std::min(bound(rule_->evaluate(g.inputs)), g.inputs.remaining)};
}

void ChunkCalculator::commit(const Grant& g, Index size) {
  if (g.step != step_ || g.start != scheduled_ || size <= 0 || size > remaining()) {
    throw Error("lb4mpi: internal error: commit of step " + std::to_string(g.step) + " does not match step " +
                std::to_string(step_));
  }
  // The rule books the raw size, as next() does (ChunkRule::commit), not the
  // size the rank took: under a max_chunk that is cut, and WF's batch, booked
  // the cut size, lasted longer than in the recursive form. The inputs give
  // the raw size again in O(1).
  rule_->commit(StepContext{g.step, g.inputs.remaining, g.rank, &perf_}, g.inputs, rule_->evaluate(g.inputs));
  scheduled_ += size;
  ++step_;
}

// Indices go in exactly (detail::index_head / index_rest): a double rounds
// a start index above 2^53, and a replica that loaded a rounded one handed
// out chunks overlapping those before. The step and the start come first
// as plain numbers, their rests after them.
void ChunkCalculator::save_state(std::vector<double>& out) const {
  out.clear();
  out.insert(out.end(), {detail::index_head(step_), detail::index_head(scheduled_),
                         detail::index_rest(step_), detail::index_rest(scheduled_)});
  perf_.save(out);
  rule_->save(out);
}

void ChunkCalculator::load_state(const std::vector<double>& in) {
  const double* at = in.data();
  step_ = detail::index_of(at[0], at[2]);
  scheduled_ = detail::index_of(at[1], at[3]);
  at += 4;
  perf_.load(at);
  rule_->load(at);
}

Index ChunkCalculator::closed_size(Index step) const {
  if (!info(technique_).has_closed_form) {
    throw Error(std::string(name(technique_)) +
                " has no closed form (its chunk sizes depend on run-time measurements or on which "
                "rank asks); "
                "use the recursive form");
  }
  if (step < 0) throw Error("step must be >= 0, got " + std::to_string(step));
  return bound(closed_raw(step));
}

std::optional<Chunk> ChunkCalculator::closed_chunk(Index step, Index scheduled) const {
  const Index size = closed_size(step);
  if (scheduled < 0 || scheduled >= shape_.n) return std::nullopt;
  return Chunk{scheduled, std::min(size, shape_.n - scheduled)};
}

void ChunkCalculator::record(const ChunkTiming& timing) {
  switch (rule_->feedback()) {
    case ChunkFeedback::MeanAndSigma:
      perf_.record_unweighted(timing);
      break;
    case ChunkFeedback::ElapsedTime:
      perf_.record(timing, /*use_elapsed=*/true);
      break;
    case ChunkFeedback::WorkTime:
      perf_.record(timing, /*use_elapsed=*/false);
      break;
  }
}

// Only AWF learns from whole time steps; the other adaptive techniques learn
// from chunks, and a time-step measurement would distort their history.
void ChunkCalculator::record_time_step(int rank, Index iterations, double work_time) {
  if (rank < 0 || rank >= shape_.p) {
    throw Error("rank " + std::to_string(rank) + " is outside [0, " + std::to_string(shape_.p) +
                ")");
  }
  if (rule_->learns_from_time_steps()) perf_.record_time_step(rank, iterations, work_time);
}

void ChunkCalculator::restart(Index n) {
  if (n != shape_.n) {
    params_.validate(technique_, n, shape_.p);
    shape_.n = n;
    // Per-rank learning lives in perf_; a rule keeps only what it derives
    // from it (AWF reloads its weights at restart), so a new rule loses nothing.
    rule_ = make_rule(technique_, shape_, params_);
    capped_steps_ = 0;
    tail_rule_.reset();
    capped_recursive_ = false;
    plan_capped_closed_form();
  }
  restart();
}

void ChunkCalculator::restart() {
  if (rule_->learns_from_time_steps()) {
    for (int r = 0; r < shape_.p; ++r) {
      const RankStats& s = perf_.rank(r);
      if (!s.time_step_recorded && s.iterations > 0)
        perf_.record_time_step(r, s.iterations, s.work_time);
    }
  }
  perf_.start_new_execution();
  rule_->restart();
  step_ = 0;
  scheduled_ = 0;
}

Index ChunkCalculator::closed_start(Index step) const {
  if (rule_->constant_size() && capped_steps_ == 0) return detail::mul_sat(step, closed_size(0));
  return rule_->closed_start(step);
}

Index ChunkCalculator::estimated_chunks() const {
  const Index n = shape_.n;
  const Index p = shape_.p;
  if (n <= 0) return 0;
  const Index most = detail::ceil_div(n, std::max<Index>(1, params_.min_chunk));  // no more chunks than this
  if (unbounded_) return std::min(p, n);
  double total = 0.0;
  if (rule_->constant_size() || !info(technique_).has_closed_form) {
    // A fixed size: N over it; rules without a closed form: as FAC2 (below).
    total = rule_->constant_size() ? static_cast<double>(detail::ceil_div(n, closed_size(0))) : 0.0;
  }
  if (total == 0.0) {
    // Decreasing and adaptive chunk sizes: about P chunks per halving of the
    // remaining work (FAC2, WF, AWF*: P log2(N/P) + P; GSS, TAP, AF fewer;
    // TSS, TFSS, FISS, VISS, RND far fewer), with a margin.
    const double np = static_cast<double>(n);
    const double pp = static_cast<double>(p);
    total = pp * (1.25 * std::log2(np / pp + 1.0) + 4.0);
  }
  if (params_.max_chunk > 0) total = std::max(total, std::ceil(static_cast<double>(n) / static_cast<double>(params_.max_chunk)));
  if (!(total < static_cast<double>(most))) return most;
  return std::max<Index>(1, static_cast<Index>(total));
}

std::optional<Chunk> ClosedSequence::chunk(Index step) {
  const Index n = calc_->shape().n;
  Index start = calc_->closed_start(step);
  if (start < 0) {
    while (step_ < step && start_ < n) {
      start_ += calc_->closed_size(step_);
      ++step_;
    }
    if (step_ < step) return std::nullopt;  // the loop ended before this step
    start = start_;
  }
  if (start >= n) return std::nullopt;
  const Index size = calc_->closed_size(step);
  if (size <= 0) return std::nullopt;
  return Chunk{start, std::min(size, n - start)};
}

// ---- simulation ---------------------------------------------------------------

void for_each_simulated_chunk(Technique t, LoopShape shape, const TechniqueParams& params,
                              Form form, const SimulationSetup& setup,
                              const std::function<void(const Chunk& chunk, int rank)>& sink) {
  ChunkCalculator calc(t, shape, params);
  if (form == Form::Closed && !info(t).has_closed_form) {
    throw Error(std::string(name(t)) + " has no closed form; simulate its recursive form");
  }
  if (!setup.slowdown.empty() && setup.slowdown.size() != static_cast<std::size_t>(shape.p)) {
    throw Error("the simulation needs " + std::to_string(shape.p) +
                " slowdown factors (one per rank), got " + std::to_string(setup.slowdown.size()));
  }
  for (const double f : setup.slowdown) {
    if (!(std::isfinite(f) && f > 0.0)) throw Error("slowdown factors must be positive and finite");
  }
  const auto per_iteration = [&](int r) {
    return setup.iteration_time *
           (setup.slowdown.empty() ? 1.0 : setup.slowdown[static_cast<std::size_t>(r)]);
  };

  // Ranks by the time they become free; ties by the lowest rank.
  using Event = std::pair<double, int>;
  std::priority_queue<Event, std::vector<Event>, std::greater<>> free_at;
  std::vector<Chunk> running(static_cast<std::size_t>(shape.p));
  for (int r = 0; r < shape.p; ++r) free_at.emplace(0.0, r);
  Index step = 0;
  Index scheduled = 0;
  while (!free_at.empty()) {
    const auto [now, r] = free_at.top();
    free_at.pop();
    Chunk& mine = running[static_cast<std::size_t>(r)];
    if (mine.size > 0) {
      const double time = static_cast<double>(mine.size) * per_iteration(r);
      calc.record(ChunkTiming{r, mine.size, time, time});
      mine.size = 0;
    }
    const std::optional<Chunk> chunk =
        form == Form::Recursive ? calc.next(r) : calc.closed_chunk(step, scheduled);
    if (!chunk) continue;  // nothing left: this rank is done
    if (form == Form::Closed) {
      ++step;
      scheduled += chunk->size;
    }
    sink(*chunk, r);
    mine = *chunk;
    free_at.emplace(now + static_cast<double>(chunk->size) * per_iteration(r), r);
  }
}

std::vector<Chunk> simulate_chunks(Technique t, LoopShape shape, const TechniqueParams& params,
                                   Form form, double iteration_time) {
  std::vector<Chunk> chunks;
  SimulationSetup setup;
  setup.iteration_time = iteration_time;
  for_each_simulated_chunk(t, shape, params, form, setup,
                           [&chunks](const Chunk& c, int /*rank*/) { chunks.push_back(c); });
  return chunks;
}

}  // namespace lb4mpi
