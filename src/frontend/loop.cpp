// The C++ front end of one loop: lb4mpi::Loop over the runtime's Execution.
#include "lb4mpi/lb4mpi.hpp"

#include "loop_access.hpp"
#include "run.hpp"
#include "runtime/agreement.hpp"
#include "runtime/progress.hpp"

namespace lb4mpi {
namespace detail {
namespace {

int rank_in(MPI_Comm comm) {
  if (comm == MPI_COMM_NULL) throw Error("lb4mpi: the communicator is MPI_COMM_NULL");
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  return rank;
}

}  // namespace

struct LoopState {
  LoopState(MPI_Comm comm, const Options& o)
      : options(o),
        recorder(make_recorder(o, comm)),
        exec(comm, 0, engine, exec_config(o, rank_in(comm)), recorder.get()),
        selection(make_selection(o, exec.size())) {}

  void begin(Index first, Index last) {
    current_is_options = false;
    current = start_selected(exec, options, selection.get(), first, last);
  }

  Options options;
  Options current;  // of the execution in flight: options, with the technique automatic selection picked
  bool current_is_options = false;  // current == options, set by a start alone (saves a copy per loop)
  rt::ProgressEngine engine;
  std::unique_ptr<trace::Recorder> recorder;
  rt::Execution exec;
  std::unique_ptr<AutoSelection> selection;  // Technique::Auto
  bool failed = false;  // the last execution lost ranks (robust mode)
};

bool LoopAccess::runs_alone(const Options& o) {
  return o.technique != Technique::Auto && rt::Execution::runs_alone(o.technique, o.mode, o.robust, trace::tracing(o));
}

std::unique_ptr<Loop> LoopAccess::unstarted(MPI_Comm comm, const Options& o) {
  return std::unique_ptr<Loop>(new Loop(std::make_unique<LoopState>(comm, o)));
}

std::string LoopAccess::start_alone(Loop& loop, Index first, Index last) {
  LoopState& s = *loop.state_;
  if (!s.exec.drained()) {
    return kRestartBeforeFinish;
  }
  std::string error = start_error(s.exec, s.options, first, last);
  if (error.empty()) error = s.exec.start_alone(first, last);
  if (error.empty() && !s.current_is_options) {
    s.current = s.options;
    s.current_is_options = true;
  }
  return error;
}

RankReport LoopAccess::finish_alone(Loop& loop, Index& dropped) {
  const rt::RankFigures f = loop.state_->exec.finish_alone();
  dropped = f.dropped;
  return rank_report(f);
}

}  // namespace detail

Loop::Loop(MPI_Comm comm, Index first, Index last, const Options& options)
    : state_(std::make_unique<detail::LoopState>(comm, options)) {
  state_->begin(first, last);
}
Loop::Loop(std::unique_ptr<detail::LoopState> state) : state_(std::move(state)) {}
Loop::~Loop() = default;
Loop::Loop(Loop&&) noexcept = default;
Loop& Loop::operator=(Loop&&) noexcept = default;

std::optional<Chunk> Loop::next() { return state_->exec.next(); }
void Loop::end_chunk() { state_->exec.end_piece(); }
void Loop::result(const void* data, std::size_t bytes) { state_->exec.attach(data, bytes); }
void Loop::on_commit(std::function<void(Chunk, const std::byte*, std::size_t)> commit) {
  state_->exec.set_commit(std::move(commit));
}
Report Loop::finish() {
  std::string output_error;
  Report report =
      detail::finish(state_->exec, state_->current, state_->recorder.get(), output_error, state_->selection.get());
  state_->failed = !report.failed_ranks.empty();
  if (!output_error.empty()) throw OutputError(output_error, {std::move(report)});
  return report;
}
void Loop::restart(Index first, Index last) {
  if (!state_->exec.drained()) {
    throw Error(detail::kRestartBeforeFinish);
  }
  if (state_->failed) {
    throw Error("lb4mpi: restart() after ranks failed: the next start is collective and a failed rank cannot "
                "take part; save the results and end the job (docs/ROBUST.md)");
  }
  state_->begin(first, last);
}
const Options& Loop::options() const { return state_->options; }

void agree(MPI_Comm comm, const std::string& error, std::uint64_t fingerprint, const std::string& mismatch) {
  rt::agree(comm, error, fingerprint, mismatch);
}

void agree(MPI_Comm comm, const std::string& error, std::uint64_t fingerprint,
           const std::function<std::vector<std::pair<std::string, std::string>>()>& describe,
           const std::string& subject) {
  rt::agree(comm, error, fingerprint, describe, subject);
}

}  // namespace lb4mpi
