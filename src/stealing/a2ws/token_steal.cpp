// Balancer::Token: cyclic token-based work stealing, the baseline `002`
// compares with (CTWS, Assis et al. 2019) in a simple form.
//
// One token circles the ranks in rank order (a message, passed on at a
// rank's next look at its messages). It carries every rank's number of
// tasks left as of the token's last visit, and whether that rank had run
// out of work. Only the holder may steal: when its deque holds at most one
// task it takes half of the deque of the rank that the token says has the
// most left (one atomic, one get; the same deques as A2WS), then passes the
// token on. No rank's speed enters. A rank without work waits for the
// token; when the token finds every rank out of work, it goes round once
// more to tell each rank that the loop is over, and stops.
#include <vector>

#include "a2ws/deque.hpp"
#include "a2ws/engines.hpp"
#include "a2ws/tasks.hpp"
#include "runtime/mpi.hpp"

namespace lb4mpi::a2ws {
namespace {

// The token's own tag on the stealing layer's communicator (the layer's are
// 42xx, src/stealing/internal/stealing/transfer.hpp).
constexpr int kTagToken = 4301;

class TokenStealing final : public st::Engine, rt::ProgressEngine::Handler {
 public:

  void run(st::Run& run) override {
    run_ = &run;
    const int p = run.size();
    const TaskSpace space = TaskSpace::of(run);
    // The token: [epoch, laps of the last round (-1: none yet), then per rank: left, idle].
    token_.assign(2 + 2 * static_cast<std::size_t>(p), 0.0);
    token_[0] = run.epoch();
    token_[1] = -1;
    for (int r = 0; r < p; ++r) token_[left_at(r)] = static_cast<double>(space.count_of(r));
    inbox_.resize(token_.size());
    have_token_ = run.rank() == 0;
    TaskRunner runner(run, space);
    rt::ProgressEngine& progress = run.progress();
    slot_ = progress.add(this);
    post();
    try {
      TaskDeque deque(run.comm(), space.deque_capacity(run.rank()), space.tasks_of(run.rank()));
      RankSteals& fig = run.steal_figures();
      bool idle = false;
      // The holder: steal if running out, note itself, pass the token on.
      const auto hold = [&] {
        if (!have_token_ || over_) return;
        have_token_ = false;
        if (deque.held() <= 1) {
          int victim = -1;
          double most = 0;
          for (int r = 0; r < p; ++r) {
            if (r != run.rank() && token_[left_at(r)] > most) {
              most = token_[left_at(r)];
              victim = r;
            }
          }
          if (victim >= 0 && most >= 1) {
            ++fig.steal_attempts;
            const TaskDeque::Stolen s = deque.steal(victim, static_cast<std::int64_t>(most + 1) / 2);
            token_[left_at(victim)] = static_cast<double>(s.left);
            if (!s.tasks.empty()) {
              ++fig.steals;
              runner.took_in(s.tasks);
              deque.push(s.tasks);
              idle = false;
            }
          }
        }
        token_[left_at(run.rank())] = static_cast<double>(deque.stealable());
        token_[left_at(run.rank()) + 1] = idle ? 1.0 : 0.0;
        bool all_idle = true;
        for (int r = 0; r < p && all_idle; ++r) all_idle = token_[left_at(r) + 1] != 0.0 && token_[left_at(r)] < 1;
        if (token_[1] < 0 && all_idle) token_[1] = p - 1;  // the last round begins here
        if (token_[1] >= 0) {
          over_ = true;
          if (token_[1] == 0) return;  // every rank has seen it: the token stops
          token_[1] -= 1;
        }
        pass(run.rank() + 1 == p ? 0 : run.rank() + 1);
      };
      runner.between = hold;
      while (!over_) {
        runner.poll();
        const std::int64_t id = deque.take();
        if (id >= 0) {
          runner.execute(id);
          continue;
        }
        idle = deque.held() == 0;
        const double t0 = st::Run::now();
        while (!over_ && !have_token_) runner.wait_one();
        hold();
        fig.steal_wait += st::Run::now() - t0;
      }
      runner.between = nullptr;
      rt::wait(sending_, MPI_STATUS_IGNORE, "MPI_Isend");
      runner.finish();
    } catch (...) {
      progress.abandon(slot_);
      throw;
    }
    progress.abandon(slot_);
  }

  void on_complete(int /*slot*/, const MPI_Status& /*status*/) override {
    if (static_cast<std::int32_t>(inbox_[0]) != run_->epoch()) {  // of an abandoned execution
      post();
      return;
    }
    token_ = inbox_;
    have_token_ = true;
    post();
  }

 private:
  static std::size_t left_at(int r) { return 2 + 2 * static_cast<std::size_t>(r); }

  void post() {
    rt::check_mpi(MPI_Irecv(inbox_.data(), static_cast<int>(inbox_.size()), MPI_DOUBLE, MPI_ANY_SOURCE, kTagToken,
                            run_->comm(), &run_->progress().request(slot_)),
                  "MPI_Irecv");
  }

  void pass(int next) {
    if (next == run_->rank()) {  // a ring of one
      have_token_ = true;
      return;
    }
    // The previous pass went round the ring since: long done.
    rt::wait(sending_, MPI_STATUS_IGNORE, "MPI_Isend");
    outgoing_ = token_;
    rt::check_mpi(MPI_Isend(outgoing_.data(), static_cast<int>(outgoing_.size()), MPI_DOUBLE, next, kTagToken,
                            run_->comm(), &sending_),
                  "MPI_Isend");
  }

  st::Run* run_ = nullptr;
  int slot_ = -1;
  std::vector<double> token_, inbox_, outgoing_;
  MPI_Request sending_ = MPI_REQUEST_NULL;
  bool have_token_ = false;
  bool over_ = false;
};

}  // namespace

std::unique_ptr<st::Engine> make_token_stealing(const st::Config& /*config*/) {
  return std::make_unique<TokenStealing>();
}

}  // namespace lb4mpi::a2ws
