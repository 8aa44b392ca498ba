// Per-rank timing statistics and the cross-rank aggregates of the adaptive
// techniques (AF's D and E, AWF weights), maintained incrementally.
#include "lb4mpi/techniques/perf_stats.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "math.hpp"

namespace lb4mpi {

namespace {

double sane_time(double t) { return std::isfinite(t) && t > 0.0 ? t : 0.0; }

}  // namespace

double RankStats::mu() const {
  return iterations > 0 ? work_time / static_cast<double>(iterations) : 0.0;
}

// sigma^2 = sum_c n_c (m_c - mu)^2 / (k - 1) over the k chunks, m_c = t_c / n_c:
// each chunk mean has variance sigma^2 / n_c, so n_c (m_c - mu)^2 estimates sigma^2.
double RankStats::sigma() const {
  if (chunks < 2) return 0.0;
  return std::sqrt(std::max(0.0, m2) / static_cast<double>(chunks - 1));
}

double RankStats::weighted_performance() const {
  return weighted_size > 0.0 ? weighted_time / weighted_size : 0.0;
}

PerfTable::PerfTable(int p)
    : stats_(static_cast<std::size_t>(std::max(p, 1))),
      terms_(static_cast<std::size_t>(std::max(p, 1))) {}

RankStats& PerfTable::checked(int r) {
  if (r < 0 || r >= ranks()) {
    throw Error("rank " + std::to_string(r) + " is outside [0, " + std::to_string(ranks()) +
                ") of this loop's " + std::to_string(ranks()) + " ranks");
  }
  return stats_[static_cast<std::size_t>(r)];
}

// West's weighted incremental variance: the chunk mean m = t/n with weight n,
//   m2 += n (m - mean_before) (m - mean_after) = n (m - mean_before)^2 W_before / W_after
//       = (t - n mean_before)^2 W_before / (n W_after)
// (W the iterations; mean_after - mean_before = (m - mean_before) n / W_after).
// The mean before the chunk is read back from the rank's terms. The
// divisions (W_before / (n W_after), t / n, and those of update_af) depend
// only on the sizes and times, not on each other, so they overlap.
void PerfTable::add_chunk(int r, const ChunkTiming& t, double work_time) {
  RankStats& s = stats_[static_cast<std::size_t>(r)];
  const Terms& terms = terms_[static_cast<std::size_t>(r)];
  const double n = static_cast<double>(t.size);
  const double mean_before = terms.af.in ? terms.mean : 0.0;  // == s.mu() (0 without chunks)
  const double w_before = static_cast<double>(s.iterations);
  s.chunks += 1;
  s.iterations += t.size;
  s.work_time += work_time;
  const double w_after = static_cast<double>(s.iterations);
  const double e = work_time - n * mean_before;   // n (m - mean_before)
  s.m2 += e * e * (w_before / (n * w_after));
  update_af(r, s.work_time / w_after);  // == s.mu()
}

void PerfTable::record(const ChunkTiming& t, bool use_elapsed) {
  RankStats& s = checked(t.rank);
  if (t.size <= 0) return;
  const double work = sane_time(t.work_time);
  add_chunk(t.rank, t, work);
  // `003` Appendix B: measurement k of the rank weighs k.
  const double ordinal = static_cast<double>(++s.weighted_count);
  s.weighted_time += ordinal * (use_elapsed ? sane_time(t.elapsed_time) : work);
  s.weighted_size += ordinal * static_cast<double>(t.size);
  update_weighted(t.rank);
  note_update();
}

void PerfTable::record_unweighted(const ChunkTiming& t) {
  checked(t.rank);
  if (t.size <= 0) return;
  add_chunk(t.rank, t, sane_time(t.work_time));
  note_update();
}

void PerfTable::record_time_step(int rank, Index iterations, double time) {
  RankStats& s = checked(rank);
  s.time_step_recorded = true;
  if (iterations <= 0) return;
  const double ordinal = static_cast<double>(++s.weighted_count);
  s.weighted_time += ordinal * sane_time(time);
  s.weighted_size += ordinal * static_cast<double>(iterations);
  update_weighted(rank);
  note_update();
}

bool PerfTable::all_reported() const { return af_.count == ranks(); }

// ---- incremental aggregates ----------------------------------------------

void PerfTable::update_af(int r) { update_af(r, stats_[static_cast<std::size_t>(r)].mu()); }

// The terms are a function of the rank's stats alone (`mean` is s.mu()), so
// the incremental path and load() agree. Its divisions (1/mu as iterations /
// time, 1/(k - 1), and the mean itself, computed by the caller) do not
// depend on each other.
void PerfTable::update_af(int r, double mean) {
  const RankStats& s = stats_[static_cast<std::size_t>(r)];
  terms_[static_cast<std::size_t>(r)].mean = mean;
  const bool tiny = !(mean >= kMinIterationTime);
  const double inv_mu = tiny ? 1.0 / kMinIterationTime : static_cast<double>(s.iterations) / s.work_time;
  // sigma^2 / mu = m2 / (k - 1) / mu, as one product so that only a
  // multiplication waits for m2.
  const double inv_k1 = s.chunks < 2 ? 0.0 : 1.0 / static_cast<double>(s.chunks - 1);
  update(af_, &Terms::af, r, mean, inv_mu, std::max(0.0, s.m2) * (inv_k1 * inv_mu));
}

void PerfTable::update_weighted(int r) {
  const RankStats& s = stats_[static_cast<std::size_t>(r)];
  if (s.weighted_size <= 0.0) return;
  const double wap = s.weighted_time / s.weighted_size;  // == s.weighted_performance()
  const double inv = !(wap >= kMinIterationTime) ? 1.0 / kMinIterationTime : s.weighted_size / s.weighted_time;
  update(weighted_, &Terms::weighted, r, wap, inv, 0.0);
}

void PerfTable::update(Aggregate& a, Which which, int r, double value, double inv, double extra) {
  Term& t = terms_[static_cast<std::size_t>(r)].*which;
  if (t.in) {
    a.sum_a -= t.inv;
    a.sum_b -= t.extra;
  } else {
    t.in = true;
    ++a.count;
  }
  const double old_value = t.value;
  t.value = value >= kMinIterationTime ? value : kMinIterationTime;
  t.inv = inv;
  t.extra = extra;
  a.sum_a += t.inv;
  a.sum_b += t.extra;
  if (a.count == ranks()) return;  // nobody borrows the slowest rank's figures
  a.candidates.emplace_back(t.value, -r);
  std::push_heap(a.candidates.begin(), a.candidates.end());
  const int slow = a.slowest;
  if (slow == r) {
    if (t.value < old_value) a.slowest = slowest_candidate(a, which);  // the slowest got faster
  } else if (slow < 0 || t.value >= (terms_[static_cast<std::size_t>(slow)].*which).value) {
    a.slowest = r;
  }
}

int PerfTable::slowest_candidate(Aggregate& a, Which which) {
  auto& heap = a.candidates;
  while (!heap.empty()) {
    const auto [value, minus_rank] = heap.front();
    const Term& t = terms_[static_cast<std::size_t>(-minus_rank)].*which;
    if (t.in && t.value == value) return -minus_rank;
    std::pop_heap(heap.begin(), heap.end());
    heap.pop_back();
  }
  return -1;  // not reached while some rank is measured: its current value is in the heap
}

// Subtracting and adding terms drifts by rounding; an exact rebuild every
// max(P, 1024) updates keeps the sums honest at amortized O(1).
void PerfTable::note_update() {
  if (++updates_since_rebuild_ < std::max<Index>(ranks(), 1024)) return;
  rebuild(af_, &Terms::af);
  rebuild(weighted_, &Terms::weighted);
}

void PerfTable::rebuild(Aggregate& a, Which which) {
  a = Aggregate{};
  for (int r = 0; r < ranks(); ++r) {
    const Term& t = terms_[static_cast<std::size_t>(r)].*which;
    if (!t.in) continue;
    ++a.count;
    a.sum_a += t.inv;
    a.sum_b += t.extra;
    if (a.slowest < 0 || t.value > (terms_[static_cast<std::size_t>(a.slowest)].*which).value) a.slowest = r;
    a.candidates.emplace_back(t.value, -r);
  }
  if (a.count < ranks()) {
    std::make_heap(a.candidates.begin(), a.candidates.end());
  } else {
    a.candidates.clear();
  }
  updates_since_rebuild_ = 0;
}

// ---- derived figures (the O(1) ones are inline in the header) -------------

void PerfTable::weights_into(std::vector<double>& out) const {
  out.resize(stats_.size());
  for (int r = 0; r < ranks(); ++r) out[static_cast<std::size_t>(r)] = weight(r);
}

std::vector<double> PerfTable::weights() const {
  std::vector<double> w;
  weights_into(w);
  return w;
}

// ---- life cycle -------------------------------------------------------------

void PerfTable::start_new_execution() {
  for (RankStats& s : stats_) {
    s.chunks = 0;
    s.iterations = 0;
    s.work_time = 0.0;
    s.m2 = 0.0;
    s.time_step_recorded = false;
  }
  for (Terms& t : terms_) {
    t.af = Term{};
    t.mean = 0.0;
  }
  af_ = Aggregate{};
}

// The counts exactly (detail::put_index), so that a replica computes what
// the original would.
void PerfTable::save(std::vector<double>& out) const {
  out.reserve(out.size() + 11 * stats_.size());
  for (const RankStats& s : stats_) {
    detail::put_index(out, s.chunks);
    detail::put_index(out, s.iterations);
    detail::put_index(out, s.weighted_count);
    out.insert(out.end(), {s.work_time, s.m2, s.time_step_recorded ? 1.0 : 0.0,
                           s.weighted_time, s.weighted_size});
  }
}

void PerfTable::load(const double*& at) {
  std::fill(terms_.begin(), terms_.end(), Terms{});
  af_ = Aggregate{};
  weighted_ = Aggregate{};
  for (int r = 0; r < ranks(); ++r) {
    RankStats& s = stats_[static_cast<std::size_t>(r)];
    s.chunks = detail::take_index(at);
    s.iterations = detail::take_index(at);
    s.weighted_count = detail::take_index(at);
    s.work_time = at[0];
    s.m2 = at[1];
    s.time_step_recorded = at[2] != 0.0;
    s.weighted_time = at[3];
    s.weighted_size = at[4];
    at += 5;
    if (s.chunks > 0) update_af(r);
    update_weighted(r);
  }
  rebuild(af_, &Terms::af);
  rebuild(weighted_, &Terms::weighted);
}

void PerfTable::reset() {
  std::fill(stats_.begin(), stats_.end(), RankStats{});
  std::fill(terms_.begin(), terms_.end(), Terms{});
  af_ = Aggregate{};
  weighted_ = Aggregate{};
  updates_since_rebuild_ = 0;
}

}  // namespace lb4mpi
