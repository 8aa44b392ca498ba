#include "auto_select.hpp"

#include <algorithm>
#include <vector>

namespace lb4mpi::detail {

AutoSelection::AutoSelection(const Options& o, int ranks) {
  try {
    o.validate(ranks);  // the selection's own options (policy, candidates) and everything else
  } catch (const Error& e) {
    error_ = std::string("lb4mpi: ") + e.what();
    return;
  }
  std::vector<Technique> allowed, refused;
  for (Technique t : o.auto_candidates.empty() ? selection::default_candidates() : o.auto_candidates) {
    Options one = o;
    one.technique = t;
    try {
      one.validate(ranks);  // what the mode and robust mode allow: the same checks as a fixed technique's
      allowed.push_back(t);
    } catch (const Error&) {
      refused.push_back(t);
    }
  }
  if (allowed.empty()) {
    std::string list;
    for (Technique t : refused) list += (list.empty() ? "" : ", ") + std::string(name(t));
    error_ = "lb4mpi: automatic selection has no candidate this mode allows (candidates: " + list +
             "); set LB4MPI_AUTO_CANDIDATES (auto_candidates) to techniques it allows";
    return;
  }
  try {
    policy_ = selection::make_policy(selection::parse_policy(o.auto_policy), allowed, o.params.seed);
  } catch (const Error& e) {
    error_ = std::string("lb4mpi: ") + e.what();
  }
}

Options AutoSelection::next(const Options& o) {
  Options run = o;
  if (!policy_) return run;
  const selection::Choice c = policy_->choose();
  run.technique = c.technique;
  reason_ = c.reason;
  return run;
}

void AutoSelection::learn(Report& r) {
  r.selection = reason_;
  // The first execution of a loop pays for warming up (first touches,
  // connections): 1.5x to 2x the next ones here. It teaches nothing, so the
  // policy's first choice runs again.
  if (!policy_ || executions_++ == 0) return;
  selection::Measurement m;
  m.technique = r.technique;
  m.iterations = r.last - r.first;
  m.t_par = r.t_par;
  for (const RankReport& rr : r.ranks) {
    m.rank_iterations.push_back(rr.iterations);
    m.rank_work.push_back(rr.work_time);
    m.rank_overhead.push_back(rr.overhead);
  }
  policy_->learn(m);
}

std::unique_ptr<AutoSelection> make_selection(const Options& o, int ranks) {
  if (o.technique != Technique::Auto) return nullptr;
  return std::make_unique<AutoSelection>(o, ranks);
}

}  // namespace lb4mpi::detail
