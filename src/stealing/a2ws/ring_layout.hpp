// Where A2WS keeps and sends its runtime information (`002` §2.1): each rank
// knows the ranks within radius R on a bidirectional ring, P_sub = 2R + 1 of
// them (Eq. 1), in one vector whose left part only the left neighbour writes
// and whose right part only the right neighbour writes (disjoint regions:
// MPI_Put needs no lock). Pure index arithmetic; the MPI window is
// a2ws/ring_info.hpp.
#pragma once
#include <stdexcept>

namespace lb4mpi::a2ws {

/// The subsystem of one rank. Offsets d run over [-left, right], d = 0 is
/// the rank itself; slot s = d + left indexes the information vector.
/// With 2R + 1 > P the ring would hold a rank twice: right = min(R, P / 2),
/// left = min(R, P - 1 - right), so every other rank appears once.
class RingLayout {
 public:
  RingLayout(int ranks, int rank, int radius) : p_(ranks), rank_(rank) {
    if (ranks < 1 || rank < 0 || rank >= ranks || radius < 1)
      throw std::invalid_argument("RingLayout: needs ranks >= 1, 0 <= rank < ranks, radius >= 1");
    right_ = radius < ranks / 2 ? radius : ranks / 2;
    const int rest = ranks - 1 - right_;
    left_ = radius < rest ? radius : rest;
  }

  [[nodiscard]] int ranks() const { return p_; }
  [[nodiscard]] int rank() const { return rank_; }
  [[nodiscard]] int left() const { return left_; }
  [[nodiscard]] int right() const { return right_; }
  /// P_sub of Eq. 1 (2R + 1 unless the ring is smaller).
  [[nodiscard]] int slots() const { return left_ + right_ + 1; }
  /// The slot of the rank itself.
  [[nodiscard]] int self_slot() const { return left_; }
  /// The rank whose information slot `s` holds.
  [[nodiscard]] int rank_at(int s) const { return wrap(rank_ + s - left_); }
  [[nodiscard]] int left_neighbour() const { return wrap(rank_ - 1); }
  [[nodiscard]] int right_neighbour() const { return wrap(rank_ + 1); }

  /// The slots this rank sends to its left neighbour: offsets 0 .. right-1
  /// (itself and the ranks to its right that the neighbour can see), which
  /// land in the neighbour's slots shifted by one: to_left_target(s).
  [[nodiscard]] int to_left_first() const { return left_; }
  [[nodiscard]] int to_left_count() const { return p_ > 1 ? right_ : 0; }
  [[nodiscard]] int to_left_target(int s) const { return s + 1; }
  /// The slots this rank sends to its right neighbour: offsets -(left-1) .. 0
  /// (itself and the ranks to its left that the neighbour can see).
  [[nodiscard]] int to_right_first() const { return left_ > 0 ? 1 : left_; }
  [[nodiscard]] int to_right_count() const { return left_; }
  [[nodiscard]] int to_right_target(int s) const { return s - 1; }

 private:
  [[nodiscard]] int wrap(int r) const { return ((r % p_) + p_) % p_; }
  int p_;
  int rank_;
  int left_ = 0;
  int right_ = 0;
};

}  // namespace lb4mpi::a2ws
