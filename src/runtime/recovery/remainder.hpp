// What a successor coordinator schedules after a failover: the ranges of
// the loop that no survivor reported finished, handed out in chunks of
// ceil(R / 2P) iterations (R: what is left; FAC2's first batch, without
// its batches) that never cross a range's end. The coordinator computes
// every chunk (as in centralized mode), whatever the loop's mode was; the
// chunk ids start far above any step of the loop before the failover, so
// that a late message of the old generation is never taken for one.
#pragma once
#include <vector>

#include "assign.hpp"

namespace lb4mpi::rt {

class Remainder final : public Assignment {
 public:
  static constexpr std::int64_t kFirstId = std::int64_t{1} << 40;
  Remainder(int ranks, std::vector<Chunk> ranges) : ranks_(ranks), ranges_(std::move(ranges)) {}

  void start(Index /*n*/) override {
    next_id_ = kFirstId;
    at_ = 0;
    left_ = 0;
    for (const Chunk& c : ranges_) left_ += c.size;
  }
  Own own_next() override {
    Own own;
    if (cut(own.chunk)) {
      own.kind = Own::Kind::Chunk;
      own.id = next_id_++;
    }
    return own;
  }
  bool answer(int /*worker*/, Reply& reply) override {
    ChunkReply r;
    if (!cut(r.chunk)) {
      reply = Reply::of(kNone);
      return true;
    }
    r.id = next_id_++;
    reply = Reply::of(r);
    return true;
  }
  Got interpret(const Reply& reply) override { return carried_chunk(reply); }

 private:
  bool cut(Chunk& out) {
    while (at_ < ranges_.size() && ranges_[at_].size == 0) ++at_;
    if (at_ == ranges_.size()) return false;
    Chunk& r = ranges_[at_];
    const Index want = std::max<Index>(1, (left_ + 2 * ranks_ - 1) / (2 * ranks_));
    out = Chunk{r.begin, std::min(want, r.size)};
    r.begin += out.size;
    r.size -= out.size;
    left_ -= out.size;
    return true;
  }

  int ranks_;
  std::vector<Chunk> ranges_;
  std::size_t at_ = 0;
  Index left_ = 0;
  std::int64_t next_id_ = kFirstId;
};

}  // namespace lb4mpi::rt
