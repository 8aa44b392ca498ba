// The coordinator of relayed stealing (`000` §4.1.3) as a state machine,
// without MPI: it learns of thieves (STL) and of victims that had nothing
// left (REJ), and answers with orders — relay this thief's request to that
// victim, or end the loop (TRM to everyone). The loop ends when every rank
// waits for work and no request is out at a victim: then no rank has an
// unstarted iteration left (a rank asks only when its own are gone, and
// stolen chunks are not stolen again) and none is executing.
#pragma once
#include <cstdint>
#include <vector>

#include "lb4mpi/types.hpp"
#include "victims.hpp"

namespace lb4mpi::st {

class Relay {
 public:
  struct Order {
    enum class Kind : std::uint8_t { ToVictim, End } kind = Kind::End;
    int victim = -1;
    int thief = -1;
    Index attempts = 0;  ///< ToVictim: victims tried for this request, this one included
  };

  /// `has_work[r]`: rank r owns iterations (it may be a victim).
  Relay(VictimSelector selector, std::vector<char> has_work);

  /// Rank `thief` ran out of work and asks for more.
  void request(int thief, std::vector<Order>& out);
  /// `victim` had nothing left for `thief`'s request.
  void reject(int victim, int thief, std::vector<Order>& out);
  /// Victims tried for `rank`'s current request (the end tells it).
  [[nodiscard]] Index attempts(int rank) const { return attempts_[static_cast<std::size_t>(rank)]; }
  [[nodiscard]] bool ended() const { return ended_; }

 private:
  enum class State : std::uint8_t { Busy, Waiting, Asked };
  void dispatch(int thief, std::vector<Order>& out);
  VictimSelector selector_;
  std::vector<char> has_work_;
  std::vector<State> state_;
  std::vector<Index> attempts_;
  int waiting_ = 0;  // ranks in State::Waiting
  bool ended_ = false;
};

}  // namespace lb4mpi::st
