// The head and tail of an A2WS task deque packed into one 64-bit word
// (`002` §2.3), and the rules by which its owner and its thieves read the
// outcome of one atomic addition on it. Pure; the MPI window that holds the
// word and the task array is a2ws/deque.hpp.
//
// The deque is an array of `capacity` task slots. The word holds
//   head   (bits 38..62)  the owner's end: the next slot it takes
//   taken  (bits 0..37)   slots thieves took from the top: the tail is capacity - taken
// and the tasks in the deque are the slots [head, capacity - taken). Every
// operation is one MPI_Fetch_and_op(MPI_SUM) of a signed delta (a single
// accumulate operation on the word, as MPI's default
// accumulate_ops=same_op_no_op requires), which returns the word before it:
//   owner takes one      head += 1; it got slot `head` if head < tail
//   thief claims k       taken += k; it got [max(head, tail - k), tail)
//   owner pushes m       head -= m after writing the m tasks below head
// A thief whose view was stale (k more than were left) gets fewer tasks: it
// took everything that was left, and the word's tail now lies below the head
// (an empty deque; `002` §2.3's victim "verifying tail < head"). Nobody
// repairs that word at once: it only ever happens to an empty deque, whose
// owner knows it is empty from its next atomic, and folds the repair into
// its next push (a thief's repair racing with a push could expose slots
// twice). So a thief needs one atomic per steal, never a second one.
#pragma once
#include <algorithm>
#include <cstdint>

namespace lb4mpi::a2ws {

inline constexpr int kTakenBits = 38;
inline constexpr std::int64_t kHeadUnit = std::int64_t{1} << kTakenBits;
inline constexpr std::int64_t kTakenMask = kHeadUnit - 1;
/// The largest capacity the head field holds (25 bits).
inline constexpr std::int64_t kMaxCapacity = (std::int64_t{1} << (63 - kTakenBits)) - 1;

struct DequeWord {
  std::int64_t head = 0;
  std::int64_t taken = 0;
};

inline constexpr std::int64_t encode(DequeWord w) { return w.head * kHeadUnit + w.taken; }
inline constexpr DequeWord decode(std::int64_t v) { return {v >> kTakenBits, v & kTakenMask}; }
/// The delta that adds `dh` to the head and `dt` to `taken` (either may be negative).
inline constexpr std::int64_t delta(std::int64_t dh, std::int64_t dt) { return dh * kHeadUnit + dt; }

/// Slots [first, first + count).
struct Slots {
  std::int64_t first = 0;
  std::int64_t count = 0;
};

/// A thief's claim of `k` slots: what it got, given the word before its
/// atomic. count < k when its view was stale (it got all that was left).
inline Slots claim_outcome(DequeWord before, std::int64_t k, std::int64_t capacity) {
  const std::int64_t tail = capacity - before.taken;
  const std::int64_t lo = std::max(before.head, tail - k);
  if (tail <= lo) return {before.head, 0};
  return {lo, tail - lo};
}

/// Tasks in the deque described by `w`.
inline std::int64_t tasks_in(DequeWord w, std::int64_t capacity) {
  return std::max<std::int64_t>(0, capacity - w.taken - w.head);
}

/// The owner's side of its deque: it alone moves the head, so it knows the
/// head exactly; the tail it learns from the words its atomics return. Each
/// method gives the delta of the owner's next atomic or reads its outcome.
class OwnerEnd {
 public:
  OwnerEnd() = default;
  /// A deque of `capacity` slots holding `count` tasks in its top slots.
  OwnerEnd(std::int64_t capacity, std::int64_t count)
      : capacity_(capacity), head_(capacity - count), empty_(count == 0) {}

  /// The word the deque starts with.
  [[nodiscard]] std::int64_t initial_word() const { return encode({head_, 0}); }
  [[nodiscard]] std::int64_t capacity() const { return capacity_; }
  /// The true head: slots below it are the owner's to overwrite.
  [[nodiscard]] std::int64_t head() const { return head_; }
  /// The owner knows that its deque is empty (its last atomic said so, and
  /// only the owner adds tasks): taking needs no atomic.
  [[nodiscard]] bool known_empty() const { return empty_; }
  /// Tasks in the deque as of the owner's last atomic (thieves may have
  /// taken some since).
  [[nodiscard]] std::int64_t last_seen_tasks() const {
    return empty_ ? 0 : std::max<std::int64_t>(0, capacity_ - taken_ - head_);
  }

  /// Taking one task: the delta to add.
  [[nodiscard]] std::int64_t take_delta() const { return delta(1, 0); }
  /// The outcome of the take whose atomic returned `before`: the slot the
  /// owner got, or -1 (the deque is empty; the word's head is now one too
  /// high, which the next push repairs).
  std::int64_t took(std::int64_t before) {
    const DequeWord w = decode(before);
    taken_ = w.taken;
    if (w.head < capacity_ - w.taken) return head_++;
    fix_head_ = 1;
    empty_ = true;
    return -1;
  }

  /// Room for a push of m tasks below the head.
  [[nodiscard]] bool fits(std::int64_t m) const { return m <= head_; }
  /// Pushing m tasks (written to slots [head() - m, head()) first): the
  /// delta to add. It repairs the word of an empty deque: the head back to
  /// the true head, the tail up to it (never above: no slot reappears).
  [[nodiscard]] std::int64_t push_delta(std::int64_t m) const {
    const std::int64_t dt = empty_ ? std::min<std::int64_t>(0, (capacity_ - head_) - taken_) : 0;
    return delta(-m - fix_head_, dt);
  }
  /// The outcome of the push of `m` whose atomic (delta `d`) returned
  /// `before`: the pushed slots that thieves cannot reach (their tail had
  /// already passed below them), which stay the owner's to run; empty
  /// (count 0) in the common case.
  Slots pushed(std::int64_t m, std::int64_t d, std::int64_t before) {
    const DequeWord after = decode(before + d);
    const std::int64_t top = head_;
    head_ -= m;
    fix_head_ = 0;
    taken_ = after.taken;
    const std::int64_t tail = capacity_ - after.taken;
    empty_ = tail <= head_;
    if (tail >= top) return {top, 0};
    const std::int64_t lost_from = std::max(tail, head_);
    return {lost_from, top - lost_from};
  }

 private:
  std::int64_t capacity_ = 0;
  std::int64_t head_ = 0;
  std::int64_t fix_head_ = 0;  // the word's head minus the true head
  std::int64_t taken_ = 0;     // `taken` as of the owner's last atomic
  bool empty_ = true;
};

}  // namespace lb4mpi::a2ws
