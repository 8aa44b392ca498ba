#include "relay.hpp"

#include <utility>

namespace lb4mpi::st {

Relay::Relay(VictimSelector selector, std::vector<char> has_work)
    : selector_(std::move(selector)),
      has_work_(std::move(has_work)),
      state_(has_work_.size(), State::Busy),
      attempts_(has_work_.size(), 0) {}

void Relay::request(int thief, std::vector<Order>& out) {
  const auto t = static_cast<std::size_t>(thief);
  has_work_[t] = 0;  // a rank asks only when nothing unstarted is left to it
  attempts_[t] = 0;
  if (state_[t] != State::Waiting) ++waiting_;
  state_[t] = State::Waiting;
  dispatch(thief, out);
}

void Relay::reject(int victim, int thief, std::vector<Order>& out) {
  has_work_[static_cast<std::size_t>(victim)] = 0;
  const auto t = static_cast<std::size_t>(thief);
  if (state_[t] != State::Asked) return;  // not this rank's current request (cannot happen)
  state_[t] = State::Waiting;
  ++waiting_;
  dispatch(thief, out);
}

void Relay::got(int thief) {
  const auto t = static_cast<std::size_t>(thief);
  if (state_[t] == State::Asked) state_[t] = State::Busy;
  has_work_[t] = 1;
}

void Relay::dispatch(int thief, std::vector<Order>& out) {
  if (ended_) return;
  const int victim = selector_.pick(thief, has_work_);
  const auto t = static_cast<std::size_t>(thief);
  if (victim >= 0) {
    state_[t] = State::Asked;
    --waiting_;
    out.push_back(Order{Order::Kind::ToVictim, victim, thief, ++attempts_[t]});
    return;
  }
  // No victim for this thief: it waits for the end, which comes when every
  // rank waits (no request is out at a victim, nobody executes).
  if (waiting_ == static_cast<int>(state_.size())) {
    ended_ = true;
    out.push_back(Order{});
  }
}

}  // namespace lb4mpi::st
