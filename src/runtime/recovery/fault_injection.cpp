// The declarative failure injection of ExecConfig (runtime/fault.hpp): the
// victim stops at its k-th chunk (before executing it) or t seconds into an
// execution, checked when it begins a piece, when the loop ended on it
// (before the end-of-loop exchange), or in that exchange (a coordinator once
// one rank has the report, a worker once it has it); by SIGKILL or _exit(1).
#include <cstdio>

#include "platform/platform.hpp"
#include "runtime/clock.hpp"
#include "runtime/fault.hpp"

namespace lb4mpi::rt {
namespace {

class ConfiguredFault final : public FaultInjector {
 public:
  ConfiguredFault(const ExecConfig& c, int rank)
      : after_chunks_(c.fail_after_chunks),
        after_s_(c.fail_after_s),
        at_end_(c.fail_at_end),
        in_report_(c.fail_in_report),
        exit_(c.fail_exit),
        rank_(rank) {}

  void execution_starts(double t0) override {
    t0_ = t0;
    chunks_ = 0;
  }

  void piece_begins(bool new_chunk) override {
    if (new_chunk) ++chunks_;
    if (at_end_ || in_report_) return;
    bool now = false;
    if (after_chunks_ >= 1) {
      now = chunks_ >= after_chunks_;  // its k-th chunk arrived: it dies with it
    } else if (after_s_ >= 0.0) {
      now = clock_now() - t0_ >= after_s_;
    } else {
      now = true;  // at its first chunk
    }
    if (now) stop();
  }

  void loop_ends() override {
    if (at_end_) stop();
  }
  [[nodiscard]] bool stops_in_report() const override { return in_report_; }
  void in_report() override {
    if (in_report_) stop();
  }

 private:
  [[noreturn]] void stop() const {
    std::fprintf(stderr, "lb4mpi: failure injection: rank %d stops now (%s, LB4MPI_FAIL_RANKS)\n", rank_,
                 exit_ ? "exit" : "SIGKILL");
    std::fflush(stderr);
    std::fflush(stdout);
    platform::fail_stop(exit_);
  }

  int after_chunks_;
  double after_s_;
  bool at_end_;
  bool in_report_;
  bool exit_;
  int rank_;
  double t0_ = 0.0;
  Index chunks_ = 0;  // chunks started this execution
};

}  // namespace

std::unique_ptr<FaultInjector> make_fault_injector(const ExecConfig& config, int rank) {
  if (!config.fail_here) return nullptr;
  return std::make_unique<ConfiguredFault>(config, rank);
}

}  // namespace lb4mpi::rt
