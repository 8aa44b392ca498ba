// The C++ front end of several loops in flight: LoopSet and run_loops over
// the runtime's LoopGroup.
#include "lb4mpi/loops.hpp"

#include <string>

#include "lb4mpi/lb4mpi.hpp"
#include "run.hpp"
#include "runtime/loop_group.hpp"

namespace lb4mpi {
namespace detail {

struct LoopSetState {
  LoopSetState(MPI_Comm comm, const std::vector<LoopSpec>& loops) : specs(loops) {
    if (comm == MPI_COMM_NULL) throw Error("lb4mpi: the communicator is MPI_COMM_NULL");
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    std::vector<rt::LoopGroup::Member> members;
    for (const LoopSpec& s : loops) {
      recorders.push_back(make_recorder(s.options, comm));
      members.push_back({exec_config(s.options, rank), recorders.back().get(), s.options.idle_probing});
    }
    group = std::make_unique<rt::LoopGroup>(comm, members);
    const std::string refuse = robust_mix(loops);
    for (int l = 0; l < group->size(); ++l) {
      const LoopSpec& s = specs[static_cast<std::size_t>(l)];
      // Through the start agreement, so that every rank stops alike.
      selections.push_back(make_selection(s.options, group->loop(l).size()));
      current.push_back(start_selected(group->loop(l), s.options, selections.back().get(), s.first, s.last, refuse));
    }
  }

  /// Robust mode is the set's, not one loop's: a failed rank is failed for
  /// every loop, and no loop of the set may end with a collective call that
  /// the failed rank would hold up. "" when every loop agrees.
  static std::string robust_mix(const std::vector<LoopSpec>& loops) {
    for (std::size_t l = 1; l < loops.size(); ++l) {
      if (loops[l].options.robust != loops.front().options.robust) {
        return "lb4mpi: a loop set is robust as a whole or not at all: loop 0 has robust = " +
               std::string(loops.front().options.robust ? "true" : "false") + ", loop " + std::to_string(l) +
               " robust = " + (loops[l].options.robust ? "true" : "false") +
               " (set Options::robust alike on every loop, docs/ROBUST.md)";
      }
    }
    return {};
  }

  std::vector<LoopSpec> specs;
  std::vector<std::unique_ptr<AutoSelection>> selections;  // per loop: null, or its automatic selection
  std::vector<Options> current;  // per loop: the options of its execution in flight (the technique picked)
  std::vector<std::unique_ptr<trace::Recorder>> recorders;
  std::unique_ptr<rt::LoopGroup> group;
  bool failed = false;  // the last execution lost ranks (robust mode)
};

}  // namespace detail

LoopSet::LoopSet(MPI_Comm comm, const std::vector<LoopSpec>& loops)
    : state_(std::make_unique<detail::LoopSetState>(comm, loops)) {}
LoopSet::~LoopSet() = default;
LoopSet::LoopSet(LoopSet&&) noexcept = default;
LoopSet& LoopSet::operator=(LoopSet&&) noexcept = default;

int LoopSet::size() const { return state_->group->size(); }
std::optional<Chunk> LoopSet::next(int l) { return state_->group->next(l); }
std::optional<LoopPiece> LoopSet::next() {
  int l = 0;
  Chunk c;
  if (!state_->group->next_any(l, c)) return std::nullopt;
  return LoopPiece{l, c};
}
void LoopSet::end_chunk() { state_->group->end_piece(); }
void LoopSet::result(const void* data, std::size_t bytes) { state_->group->attach(data, bytes); }
void LoopSet::on_commit(int l, std::function<void(Chunk, const std::byte*, std::size_t)> commit) {
  if (l < 0 || l >= size()) {
    throw Error("lb4mpi: on_commit: loop " + std::to_string(l) + " does not exist (valid: 0.." +
                std::to_string(size() - 1) + ")");
  }
  state_->group->loop(l).set_commit(std::move(commit));
}
bool LoopSet::done(int l) const { return state_->group->done(l); }
bool LoopSet::terminated() { return state_->group->terminated(); }

std::vector<Report> LoopSet::finish() {
  rt::LoopGroup& g = *state_->group;
  g.end_piece();
  std::vector<Report> out;
  out.reserve(static_cast<std::size_t>(g.size()));
  std::string output_errors;  // the same on every rank: each loop's is agreed
  for (int l = 0; l < g.size(); ++l) {
    const auto i = static_cast<std::size_t>(l);
    std::string error;
    out.push_back(detail::finish(g.loop(l), state_->current[i], state_->recorders[i].get(), error,
                                 state_->selections[i].get()));
    if (!out.back().failed_ranks.empty()) state_->failed = true;
    if (!error.empty()) output_errors += (output_errors.empty() ? "" : "; ") + error;
  }
  if (!output_errors.empty()) throw OutputError(output_errors, std::move(out));
  return out;
}

void LoopSet::restart(const std::vector<std::pair<Index, Index>>& ranges) {
  rt::LoopGroup& g = *state_->group;
  if (ranges.size() != static_cast<std::size_t>(g.size())) {
    throw Error("lb4mpi: restart needs " + std::to_string(g.size()) + " ranges, got " +
                std::to_string(ranges.size()));
  }
  if (state_->failed) {
    throw Error("lb4mpi: restart() after ranks failed: the next start is collective and a failed rank cannot "
                "take part; save the results and end the job (docs/ROBUST.md)");
  }
  for (int l = 0; l < g.size(); ++l) {
    const auto i = static_cast<std::size_t>(l);
    if (!g.loop(l).drained()) {
      throw Error(detail::kRestartBeforeFinish);
    }
    state_->current[i] = detail::start_selected(g.loop(l), state_->specs[i].options, state_->selections[i].get(),
                                                ranges[i].first, ranges[i].second);
    state_->specs[i].first = ranges[i].first;
    state_->specs[i].last = ranges[i].second;
  }
  g.reset();
}

std::vector<Report> run_loops(MPI_Comm comm, const std::vector<LoopSpec>& loops,
                              const std::vector<std::function<void(Chunk)>>& bodies, bool asynchronous) {
  if (bodies.size() != loops.size()) {
    throw Error("lb4mpi: run_loops needs one body per loop (" + std::to_string(loops.size()) + "), got " +
                std::to_string(bodies.size()));
  }
  std::vector<Report> reports;
  if (!asynchronous) {
    // One after the other; an output error of one loop (the same on every
    // rank) does not stop the others: it is thrown with all the reports.
    std::string output_errors;
    for (std::size_t l = 0; l < loops.size(); ++l) {
      try {
        reports.push_back(parallel_for(comm, loops[l].first, loops[l].last, loops[l].options, bodies[l]));
      } catch (const OutputError& e) {
        reports.push_back(e.reports().front());
        output_errors += (output_errors.empty() ? "" : "; ") + std::string(e.what());
      }
    }
    if (!output_errors.empty()) throw OutputError(output_errors, std::move(reports));
    return reports;
  }
  LoopSet set(comm, loops);
  while (auto p = set.next()) bodies[static_cast<std::size_t>(p->loop)](p->chunk);
  return set.finish();
}

}  // namespace lb4mpi
