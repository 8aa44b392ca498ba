// The C interface of owned loops (lb4mpi/stealing.h): C descriptions of
// items over the layer's movers, the body called with C views, options
// from the environment, errors returned instead of thrown.
#include "lb4mpi/stealing.h"

#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include "lb4mpi/stealing.hpp"

namespace {

using lb4mpi::Index;
using lb4mpi::Place;

thread_local std::string g_error;

// Objects of a fixed C size, moved with the user's callbacks. A buffer of
// stolen objects is a Held: the objects deserialize returned.
class CSerialMover final : public lb4mpi::SerialMover {
 public:
  struct Held {
    void* objects = nullptr;
    Index count = 0;
  };
  CSerialMover(void* base, Index items, std::size_t item_size, LB4MPI_Serializer s)
      : base_(static_cast<char*>(base)), items_(items), size_(item_size), s_(s) {}

  [[nodiscard]] Index items() const override { return items_; }
  [[nodiscard]] std::string check() const override {
    if (s_.serialize == nullptr || s_.deserialize == nullptr || s_.release == nullptr) {
      return "serialized items without their serialize, deserialize and release callbacks";
    }
    if (size_ == 0) return "serialized items of size 0";
    if (items_ < 0) return "serialized items: " + std::to_string(items_) + " items";
    if (items_ > 0 && base_ == nullptr) return "serialized items at a null pointer";
    return {};
  }
  [[nodiscard]] std::uint64_t fingerprint() const override {
    return lb4mpi::Fingerprint().add(std::string_view("c objects")).add(size_).value();
  }
  [[nodiscard]] std::string describe() const override {
    return "serialized objects of " + std::to_string(size_) + " bytes";
  }
  void* make_buffer(Index /*k*/) override { return new Held; }
  void free_buffer(void* buffer) noexcept override {
    auto* h = static_cast<Held*>(buffer);
    if (h->objects != nullptr) s_.release(s_.state, h->objects, h->count);
    delete h;
  }
  [[nodiscard]] char* first(const Place& p) const {
    char* at = p.buffer != nullptr ? static_cast<char*>(static_cast<Held*>(p.buffer)->objects) : base_;
    return at + static_cast<std::size_t>(p.at) * size_;
  }
  void serialize(const Place& from, Index k, std::vector<std::byte>& out) override {
    void* bytes = nullptr;
    std::int64_t n = 0;
    if (s_.serialize(s_.state, first(from), k, &bytes, &n) != 0 || n < 0 || (n > 0 && bytes == nullptr)) {
      std::free(bytes);
      throw lb4mpi::Error("lb4mpi: the serialize callback failed for " + std::to_string(k) + " items");
    }
    const auto* b = static_cast<const std::byte*>(bytes);
    out.insert(out.end(), b, b + n);
    std::free(bytes);
  }
  void deserialize(const Place& to, Index k, const std::byte* data, std::size_t bytes) override {
    auto* h = static_cast<Held*>(to.buffer);
    if (h == nullptr) throw lb4mpi::Error("lb4mpi: serialized items cannot be results (use an array or a cube)");
    h->objects = s_.deserialize(s_.state, data, static_cast<std::int64_t>(bytes), k);
    if (h->objects == nullptr) throw lb4mpi::Error("lb4mpi: the deserialize callback failed for " + std::to_string(k) + " items");
    h->count = k;
  }
  [[nodiscard]] std::size_t item_size() const { return size_; }

 private:
  char* base_;
  Index items_;
  std::size_t size_;
  LB4MPI_Serializer s_;
};

}  // namespace

struct LB4MPI_Items {
  enum class Kind { Array, Cube, Serialized } kind = Kind::Array;
  std::unique_ptr<lb4mpi::Mover> mover;
  char* base = nullptr;
  std::array<int, 3> dims{}, lo{}, size{};

  [[nodiscard]] LB4MPI_View view(const Place& p, Index k) const {
    LB4MPI_View v{};
    v.count = k;
    switch (kind) {
      case Kind::Array: {
        const auto* m = static_cast<const lb4mpi::ArrayMover*>(mover.get());
        char* first = p.buffer != nullptr ? static_cast<char*>(p.buffer) : base;
        v.x_stride = m->item_stride();
        v.element_size = m->item_stride();
        v.first = first + p.at * v.x_stride;
        break;
      }
      case Kind::Cube: {
        const auto e = static_cast<std::int64_t>(static_cast<const lb4mpi::CubeMover*>(mover.get())->element_size());
        v.element_size = e;
        v.ny = size[1];
        v.nz = size[2];
        if (p.buffer != nullptr) {
          v.y_stride = size[2] * e;
          v.x_stride = static_cast<std::int64_t>(size[1]) * v.y_stride;
          v.first = static_cast<char*>(p.buffer) + p.at * v.x_stride;
        } else {
          v.y_stride = dims[2] * e;
          v.x_stride = static_cast<std::int64_t>(dims[1]) * v.y_stride;
          v.first = base + (lo[0] + p.at) * v.x_stride + lo[1] * v.y_stride + lo[2] * e;
        }
        break;
      }
      case Kind::Serialized: {
        const auto* m = static_cast<const CSerialMover*>(mover.get());
        v.x_stride = static_cast<std::int64_t>(m->item_size());
        v.element_size = v.x_stride;
        v.first = m->first(p);
        break;
      }
    }
    if (k == 0) v.first = nullptr;
    return v;
  }
};

extern "C" {

LB4MPI_Items* LB4MPI_Items_array(void* base, int64_t items, MPI_Datatype element, int per_item) {
  auto* it = new LB4MPI_Items;
  it->kind = LB4MPI_Items::Kind::Array;
  it->base = static_cast<char*>(base);
  it->mover = std::make_unique<lb4mpi::ArrayMover>(base, items, element, per_item);
  return it;
}

LB4MPI_Items* LB4MPI_Items_cube(void* base, const int dims[3], const int lo[3], const int size[3],
                                MPI_Datatype element) {
  auto* it = new LB4MPI_Items;
  it->kind = LB4MPI_Items::Kind::Cube;
  it->base = static_cast<char*>(base);
  for (std::size_t d = 0; d < 3; ++d) {
    it->dims[d] = dims[d];
    it->lo[d] = lo[d];
    it->size[d] = size[d];
  }
  it->mover = std::make_unique<lb4mpi::CubeMover>(base, it->dims, it->lo, it->size, element);
  return it;
}

LB4MPI_Items* LB4MPI_Items_serialized(void* base, int64_t items, size_t item_size, LB4MPI_Serializer serializer) {
  auto* it = new LB4MPI_Items;
  it->kind = LB4MPI_Items::Kind::Serialized;
  it->base = static_cast<char*>(base);
  it->mover = std::make_unique<CSerialMover>(base, items, item_size, serializer);
  return it;
}

void LB4MPI_Items_free(LB4MPI_Items* items) { delete items; }

int LB4MPI_Owned_for(MPI_Comm comm, int64_t first, int64_t last, LB4MPI_Items* in, LB4MPI_Items* out,
                     LB4MPI_Body body, void* state, LB4MPI_StealSummary* summary) {
  struct Call {
    LB4MPI_Body body;
    void* state;
    const LB4MPI_Items* in;
    const LB4MPI_Items* out;
  } call{body, state, in, out};
  lb4mpi::OwnedLoopArgs args;
  args.comm = comm;
  args.first = first;
  args.last = last;
  args.in = in != nullptr ? in->mover.get() : nullptr;
  args.out = out != nullptr ? out->mover.get() : nullptr;
  args.in_error = in != nullptr ? in->mover->check() : "";
  args.out_error = out != nullptr ? out->mover->check() : "";
  if (args.out_error.empty() && out != nullptr && out->kind == LB4MPI_Items::Kind::Serialized) {
    args.out_error = "serialized objects cannot be results (use an array or a cube)";
  }
  if (body == nullptr) args.error = "lb4mpi: LB4MPI_Owned_for without a body";
  args.body_state = &call;
  args.body = [](void* s, lb4mpi::Chunk c, const Place& pin, const Place& pout) {
    const auto* k = static_cast<const Call*>(s);
    const LB4MPI_View vin = k->in != nullptr ? k->in->view(pin, c.size) : LB4MPI_View{};
    const LB4MPI_View vout = k->out != nullptr ? k->out->view(pout, c.size) : LB4MPI_View{};
    k->body(k->state, c.begin, c.size, &vin, &vout);
  };
  lb4mpi::StealOptions opt;
  try {
    opt = lb4mpi::StealOptions::from_env();
  } catch (const lb4mpi::Error& e) {
    if (args.error.empty()) args.error = std::string("lb4mpi: ") + e.what();  // agreed on below
  }
  try {
    const lb4mpi::StealReport r = lb4mpi::run_owned_loop(args, opt);
    g_error.clear();
    if (summary != nullptr) {
      summary->t_par = r.loop.t_par;
      summary->iterations = r.loop.iterations();
      summary->steal_attempts = r.steal_attempts();
      summary->successful_steals = r.successful_steals();
      summary->iterations_stolen = r.iterations_stolen();
      summary->cov_finish = r.time_cov();
      summary->send_time_per_steal = r.send_time_per_steal();
      summary->recv_time_per_steal = r.receive_time_per_steal();
    }
    return 0;
  } catch (const lb4mpi::Error& e) {
    g_error = e.what();
    return 2;
  }
}

const char* LB4MPI_Owned_error(void) { return g_error.c_str(); }

}  // extern "C"
