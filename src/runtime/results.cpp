#include "runtime/results.hpp"

#include <cstring>
#include <string>

namespace lb4mpi::rt {

namespace {

// take()'s layout: the number of pieces, then (begin, size, bytes) of each
// as int64, then every piece's bytes in order.
void put(std::vector<std::byte>& out, std::int64_t v) {
  // resize + memcpy, not insert of a range: g++ 12 at -O3 warns (wrongly)
  // that the range insert overflows (-Wstringop-overflow, -Warray-bounds),
  // which a Release build (scripts/demo.sh) showed every new user.
  const std::size_t at = out.size();
  out.resize(at + sizeof v);
  std::memcpy(out.data() + at, &v, sizeof v);
}
std::int64_t get(const std::byte* at) {
  std::int64_t v = 0;
  std::memcpy(&v, at, sizeof v);
  return v;
}

}  // namespace

std::pair<std::size_t, std::size_t> ResultStore::find(std::int64_t id) const {
  // Mostly the front (reports go oldest first) or the back (the
  // coordinator's own chunk, just ended).
  std::size_t first = head_;
  while (first < pieces_.size() && pieces_[first].id != id) ++first;
  std::size_t end = first;
  while (end < pieces_.size() && pieces_[end].id == id) ++end;
  return {first, end};
}

void ResultStore::retire(std::size_t first, std::size_t end) {
  for (std::size_t i = first; i < end; ++i) pieces_[i].id = kGone;
  while (head_ < pieces_.size() && pieces_[head_].id == kGone) ++head_;
  if (head_ == pieces_.size()) {  // all gone: the storage is reused from the start
    pieces_.clear();
    data_.clear();
    head_ = 0;
    current_ = -1;
    return;
  }
  // A long gone prefix (results kept for a late report) is moved out once
  // it is half the records: amortized constant time per record.
  if (head_ < 64 || 2 * head_ < pieces_.size()) return;
  const std::size_t shift = pieces_[head_].offset;
  data_.erase(data_.begin(), data_.begin() + static_cast<std::ptrdiff_t>(shift));
  pieces_.erase(pieces_.begin(), pieces_.begin() + static_cast<std::ptrdiff_t>(head_));
  for (Piece& p : pieces_) p.offset -= shift;
  if (current_ >= 0) current_ -= static_cast<std::ptrdiff_t>(head_);
  head_ = 0;
}

void ResultStore::open_entry() {
  pieces_.push_back(Piece{piece_id_, piece_.begin, piece_.size, 0, data_.size()});
  current_ = static_cast<std::ptrdiff_t>(pieces_.size() - 1);
}

void ResultStore::attach(const void* data, std::size_t bytes) {
  if (!piece_open_) throw Error("lb4mpi: a result was attached outside a chunk (attach it before the next next())");
  if (current_ < 0) open_entry();
  // The open piece's record is the newest, so its bytes go at the end.
  const auto* b = static_cast<const std::byte*>(data);
  data_.insert(data_.end(), b, b + bytes);
  pieces_[static_cast<std::size_t>(current_)].bytes += static_cast<std::int64_t>(bytes);
}

bool ResultStore::take(std::int64_t id, std::vector<std::byte>& out) {
  out.clear();
  const auto [first, end] = find(id);
  if (first == end) return false;
  std::size_t total = 0;
  for (std::size_t i = first; i < end; ++i) total += static_cast<std::size_t>(pieces_[i].bytes);
  bool any = false;
  for (std::size_t i = first; i < end; ++i) any = any || pieces_[i].bytes > 0;
  if (any) {
    out.reserve(sizeof(std::int64_t) * (1 + 3 * (end - first)) + total);
    put(out, static_cast<std::int64_t>(end - first));
    for (std::size_t i = first; i < end; ++i) {
      put(out, pieces_[i].begin);
      put(out, pieces_[i].size);
      put(out, pieces_[i].bytes);
    }
    const auto from = data_.begin() + static_cast<std::ptrdiff_t>(pieces_[first].offset);
    out.insert(out.end(), from, from + static_cast<std::ptrdiff_t>(total));
  }
  retire(first, end);
  return any;
}

void ResultStore::drop(std::int64_t id) {
  const auto [first, end] = find(id);
  if (first != end) retire(first, end);
}

void ResultStore::commit_own(std::int64_t id) {
  if (head_ == pieces_.size()) return;  // no results (the common case without a commit function)
  const auto [first, end] = find(id);
  if (first == end) return;
  if (commit_) {
    for (std::size_t i = first; i < end; ++i) {
      const Piece& p = pieces_[i];
      commit_(Chunk{first_ + p.begin, p.size}, data_.data() + p.offset, static_cast<std::size_t>(p.bytes));
    }
  }
  retire(first, end);
}

std::size_t ResultStore::commit(const std::byte* data, std::size_t bytes, bool apply) const {
  const auto bad = [] { return Error("lb4mpi: internal error: malformed chunk results received"); };
  if (bytes < sizeof(std::int64_t)) throw bad();
  const std::int64_t count = get(data);
  const std::size_t table = sizeof(std::int64_t) * (1 + 3 * static_cast<std::size_t>(count));
  if (count < 0 || table > bytes) throw bad();
  std::size_t offset = table;
  for (std::int64_t k = 0; k < count; ++k) {
    const std::byte* row = data + sizeof(std::int64_t) * (1 + 3 * static_cast<std::size_t>(k));
    const Index begin = get(row);
    const Index size = get(row + sizeof(std::int64_t));
    const auto n = static_cast<std::size_t>(get(row + 2 * sizeof(std::int64_t)));
    if (n > bytes - offset) throw bad();
    if (apply && commit_) commit_(Chunk{first_ + begin, size}, data + offset, n);
    offset += n;
  }
  return offset;
}

void ResultStore::frame(std::vector<std::byte>& out, std::int32_t part, const std::vector<std::byte>& taken) {
  put(out, part);
  out.insert(out.end(), taken.begin(), taken.end());
}

void ResultStore::commit_frames(const std::byte* data, std::size_t bytes,
                                const std::function<bool(std::int32_t)>& first) const {
  std::size_t at = 0;
  while (at < bytes) {
    if (bytes - at < sizeof(std::int64_t)) throw Error("lb4mpi: internal error: malformed chunk results received");
    const auto part = static_cast<std::int32_t>(get(data + at));
    at += sizeof(std::int64_t);
    at += commit(data + at, bytes - at, first(part));
  }
}

}  // namespace lb4mpi::rt
