// A2WS's information exchange (`002` §2.1): every rank's view of the ranks
// within radius R on the ring, kept up to date by MPI_Put into the
// neighbours' windows — the left part of a rank's vector written only by
// its left neighbour, the right part only by its right neighbour (disjoint
// regions, no lock) — and only entries that changed since they were last
// sent (`002` Table 1's flags). No collective after the start.
#pragma once
#include <mpi.h>

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "a2ws/ring_layout.hpp"
#include "a2ws/smart.hpp"
#include "a2ws/window.hpp"

namespace lb4mpi::a2ws {

class RingInfo {
 public:
  /// Collective over `comm`. `initial[s]`: what this rank assumes of the
  /// rank in slot s before it hears from it (A2WS: its static share).
  RingInfo(MPI_Comm comm, const RingLayout& layout, std::span<const PeerView> initial);
  /// Collective (MPI_Win_free): every rank must be past its last exchange.
  ~RingInfo() = default;
  RingInfo(const RingInfo&) = delete;
  RingInfo& operator=(const RingInfo&) = delete;

  [[nodiscard]] const RingLayout& layout() const { return layout_; }
  /// This rank's view of its subsystem, by slot.
  [[nodiscard]] std::span<const PeerView> view() const { return view_; }
  /// Sets this rank's own entry (sent at the next exchange if it changed).
  void set_self(const PeerView& v) { set(layout_.self_slot(), v); }
  /// What this rank learnt of another first hand (a steal's outcome,
  /// `002` Table 1): kept, and passed on, until news of that rank arrives.
  void set(int slot, const PeerView& v);
  /// Reads what the neighbours put since the last call (news replaces the
  /// view), then puts the entries that changed into the neighbours' windows
  /// (locally complete by the next call; remotely at the latest when the
  /// window goes). Returns the number of entries sent.
  int exchange();
  /// Entries put so far (for the figures).
  [[nodiscard]] std::int64_t sent() const { return sent_; }

 private:
  static constexpr int kWords = 4;  // tasks, task_time, left (as bits), check
  using Entry = std::array<std::uint64_t, kWords>;
  static Entry pack(const PeerView& v);
  static bool unpack(const Entry& e, PeerView& v);  // false: torn or never written
  void put(int target, int target_slot, int slot);
  void mark(int slot);

  RingLayout layout_;
  MPI_Comm comm_;
  Window window_;                  // slots() entries of kWords words
  MPI_Win win_;
  std::uint64_t* base_;
  std::vector<PeerView> view_;
  std::vector<Entry> heard_;       // the last valid entry read from the window, per slot
  std::vector<Entry> staged_;      // what a put sends, kept until its flush
  std::vector<int> unflushed_;     // neighbours with puts not yet locally complete
  std::vector<char> dirty_left_, dirty_right_;
  std::int64_t sent_ = 0;
};

}  // namespace lb4mpi::a2ws
