#include "runtime/results.hpp"

#include <cstring>
#include <string>

namespace lb4mpi::rt {

namespace {

// take()'s layout: the number of pieces, then (begin, size, bytes) of each
// as int64, then every piece's bytes in order.
void put(std::vector<std::byte>& out, std::int64_t v) {
  const auto* p = reinterpret_cast<const std::byte*>(&v);
  out.insert(out.end(), p, p + sizeof v);
}
std::int64_t get(const std::byte* at) {
  std::int64_t v = 0;
  std::memcpy(&v, at, sizeof v);
  return v;
}

}  // namespace

int ResultStore::index_of(std::int64_t id) {
  // A rank executes one chunk at a time, so the pieces of a chunk follow
  // one another: a piece is of the newest entry's chunk or of a new one
  // (a batch's parts pile up here until their report: no scan over them).
  if (!pending_.empty() && pending_.back().id == id) return static_cast<int>(pending_.size() - 1);
  pending_.push_back(Pending{id, {}, {}});
  return static_cast<int>(pending_.size() - 1);
}

void ResultStore::erase(std::size_t at) {
  pending_.erase(pending_.begin() + static_cast<std::ptrdiff_t>(at));
  current_ = -1;
}

void ResultStore::open_entry() {
  current_ = index_of(piece_id_);
  pending_[static_cast<std::size_t>(current_)].pieces.push_back(Piece{piece_.begin, piece_.size, 0});
}

void ResultStore::attach(const void* data, std::size_t bytes) {
  if (!piece_open_) throw Error("lb4mpi: a result was attached outside a chunk (attach it before the next next())");
  if (current_ < 0) open_entry();
  Pending& p = pending_[static_cast<std::size_t>(current_)];
  const auto* b = static_cast<const std::byte*>(data);
  p.data.insert(p.data.end(), b, b + bytes);
  p.pieces.back().bytes += static_cast<std::int64_t>(bytes);
}

bool ResultStore::take(std::int64_t id, std::vector<std::byte>& out) {
  out.clear();
  for (std::size_t i = 0; i < pending_.size(); ++i) {
    Pending& p = pending_[i];
    if (p.id != id) continue;
    bool any = false;
    for (const Piece& piece : p.pieces) any = any || piece.bytes > 0;
    if (any) {
      put(out, static_cast<std::int64_t>(p.pieces.size()));
      for (const Piece& piece : p.pieces) {
        put(out, piece.begin);
        put(out, piece.size);
        put(out, piece.bytes);
      }
      out.insert(out.end(), p.data.begin(), p.data.end());
    }
    erase(i);
    return any;
  }
  return false;
}

void ResultStore::drop(std::int64_t id) {
  for (std::size_t i = 0; i < pending_.size(); ++i) {
    if (pending_[i].id == id) {
      erase(i);
      return;
    }
  }
}

void ResultStore::commit_own(std::int64_t id) {
  if (pending_.empty()) return;  // no results (the common case without a commit function)
  for (std::size_t i = 0; i < pending_.size(); ++i) {
    Pending& p = pending_[i];
    if (p.id != id) continue;
    if (commit_) {
      std::size_t offset = 0;
      for (const Piece& piece : p.pieces) {
        const auto n = static_cast<std::size_t>(piece.bytes);
        commit_(Chunk{first_ + piece.begin, piece.size}, p.data.data() + offset, n);
        offset += n;
      }
    }
    erase(i);
    return;
  }
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
