// A2WS's information exchange on the ring: see a2ws/ring_info.hpp.
#include "a2ws/ring_info.hpp"

#include <algorithm>
#include <bit>
#include <cstring>

#include "runtime/mpi.hpp"

namespace lb4mpi::a2ws {

using rt::check_mpi;

namespace {

std::uint64_t mix(std::uint64_t h, std::uint64_t w) {
  h ^= w + 0x9E3779B97F4A7C15ULL + (h << 6) + (h >> 2);
  h *= 0xBF58476D1CE4E5B9ULL;
  return h ^ (h >> 31);
}

}  // namespace

RingInfo::Entry RingInfo::pack(const PeerView& v) {
  Entry e{std::bit_cast<std::uint64_t>(v.tasks), std::bit_cast<std::uint64_t>(v.task_time),
          std::bit_cast<std::uint64_t>(v.left), 0};
  e[3] = mix(mix(mix(0x5A2A5, e[0]), e[1]), e[2]);
  return e;
}

bool RingInfo::unpack(const Entry& e, PeerView& v) {
  // A torn read (a put in progress) or a slot never written fails the check.
  if (mix(mix(mix(0x5A2A5, e[0]), e[1]), e[2]) != e[3]) return false;
  v = PeerView{std::bit_cast<double>(e[0]), std::bit_cast<double>(e[1]), std::bit_cast<double>(e[2])};
  return true;
}

RingInfo::RingInfo(MPI_Comm comm, const RingLayout& layout, std::span<const PeerView> initial)
    : layout_(layout),
      comm_(comm),
      window_(comm, static_cast<std::size_t>(layout.slots()) * sizeof(Entry), sizeof(std::uint64_t)),
      win_(window_.win()),
      base_(static_cast<std::uint64_t*>(window_.base())),
      view_(initial.begin(), initial.end()) {
  const auto slots = static_cast<std::size_t>(layout_.slots());
  view_.resize(slots);
  heard_.assign(slots, Entry{});
  staged_.assign(slots, Entry{});
  dirty_left_.assign(slots, 0);
  dirty_right_.assign(slots, 0);
  rt::barrier(comm);  // zeroed before any put
  window_.lock_all();
  // The rank's own entry goes out at the first exchange.
  mark(layout_.self_slot());
}

void RingInfo::mark(int slot) {
  dirty_left_[static_cast<std::size_t>(slot)] = 1;
  dirty_right_[static_cast<std::size_t>(slot)] = 1;
}

void RingInfo::set(int slot, const PeerView& v) {
  PeerView& cur = view_[static_cast<std::size_t>(slot)];
  if (cur.tasks == v.tasks && cur.task_time == v.task_time && cur.left == v.left) return;
  cur = v;
  mark(slot);
}

int RingInfo::exchange() {
  if (layout_.ranks() == 1) return 0;
  // The puts of the last exchange are complete here (their staging buffers
  // are reused below). Locally: their arrival at the neighbour is MPI's
  // business, guaranteed at the latest when the window's epoch ends, and
  // in practice at once (Open MPI: a copy into shared memory) or at the
  // neighbour's next call into MPI (MPICH over UCX, below). MPI_Win_flush,
  // which waits for the arrival, spins inside MPICH until the neighbour's
  // MPI took the put: with more ranks than cores a scheduler time slice per
  // exchange (a2ws_p8's loops 1 s instead of 0.1-0.4 s).
  for (int target : unflushed_) check_mpi(MPI_Win_flush_local(target, win_), "MPI_Win_flush_local");
  unflushed_.clear();
  // What the neighbours put since the last look. Where puts are carried out
  // by the target's progress engine (MPICH over UCX), they land only while
  // this rank is inside MPI: one probe lets them in.
  int flag = 0;
  check_mpi(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm_, &flag, MPI_STATUS_IGNORE), "MPI_Iprobe");
  check_mpi(MPI_Win_sync(win_), "MPI_Win_sync");
  for (int s = 0; s < layout_.slots(); ++s) {
    if (s == layout_.self_slot()) continue;
    Entry e;
    std::memcpy(e.data(), base_ + static_cast<std::size_t>(s) * kWords, sizeof e);
    if (e == heard_[static_cast<std::size_t>(s)]) continue;
    PeerView v;
    if (!unpack(e, v)) continue;  // torn: read again next time
    heard_[static_cast<std::size_t>(s)] = e;
    set(s, v);
  }
  // What changed, to the neighbours that see it.
  int sent = 0;
  const auto send_side = [&](std::vector<char>& dirty, int first, int count, int target, auto target_slot) {
    int here = 0;
    for (int s = first; s < first + count; ++s) {
      if (dirty[static_cast<std::size_t>(s)] == 0) continue;
      dirty[static_cast<std::size_t>(s)] = 0;
      put(target, target_slot(s), s);
      ++here;
    }
    if (here > 0 && (unflushed_.empty() || unflushed_.back() != target)) unflushed_.push_back(target);
    sent += here;
  };
  send_side(dirty_left_, layout_.to_left_first(), layout_.to_left_count(), layout_.left_neighbour(),
            [this](int s) { return layout_.to_left_target(s); });
  send_side(dirty_right_, layout_.to_right_first(), layout_.to_right_count(), layout_.right_neighbour(),
            [this](int s) { return layout_.to_right_target(s); });
  // Slots no neighbour sees (outside both ranges) need no flag.
  std::fill(dirty_left_.begin(), dirty_left_.end(), 0);
  std::fill(dirty_right_.begin(), dirty_right_.end(), 0);
  sent_ += sent;
  return sent;
}

void RingInfo::put(int target, int target_slot, int slot) {
  Entry& e = staged_[static_cast<std::size_t>(slot)];
  e = pack(view_[static_cast<std::size_t>(slot)]);
  check_mpi(MPI_Put(e.data(), kWords, MPI_UINT64_T, target, static_cast<MPI_Aint>(target_slot) * kWords, kWords,
                    MPI_UINT64_T, win_),
            "MPI_Put");
}

}  // namespace lb4mpi::a2ws
