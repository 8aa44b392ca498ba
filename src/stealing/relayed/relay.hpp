// The coordinator of relayed stealing (`000` §4.1.3) as a state machine,
// without MPI: it learns of thieves (STL), of victims that had nothing left
// (REJ) and of thieves that got work (GOT: they may be victims again), and
// answers with orders — relay this thief's request to that victim, or end
// the loop (TRM to everyone). The loop ends when every rank waits for work
// and no request is out at a victim: a rank asks only when it has nothing
// unstarted left (neither its own iterations nor a stolen chunk), and work
// moves only from a rank that has it to one that asked, so then no rank has
// an unstarted iteration and none is executing.
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
  /// `thief`'s request succeeded: it executes a stolen chunk, whose
  /// unstarted part other thieves may take.
  void got(int thief);
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
