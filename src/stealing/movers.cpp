// The data movers: contiguous arrays of an MPI datatype, x-slices of a cube
// as MPI sub-arrays, serialized items (`000` §4.1.5-4.1.6).
#include <climits>
#include <new>
#include <string>
#include <utility>

#include "lb4mpi/stealing/mover.hpp"
#include "runtime/mpi.hpp"

namespace lb4mpi {

using rt::check_mpi;

// ---- Packet

Packet::~Packet() {
  if (owns_type_ && type != MPI_DATATYPE_NULL) MPI_Type_free(&type);
}

// Moving `bytes` keeps its storage, so `base` stays valid when it points into them.
Packet::Packet(Packet&& o) noexcept
    : base(o.base), count(o.count), type(o.type), bytes(std::move(o.bytes)), owns_type_(o.owns_type_) {
  o.owns_type_ = false;
  o.type = MPI_DATATYPE_NULL;
}

Packet& Packet::operator=(Packet&& o) noexcept {
  if (this != &o) {
    if (owns_type_ && type != MPI_DATATYPE_NULL) MPI_Type_free(&type);
    bytes = std::move(o.bytes);
    base = o.base;
    count = o.count;
    type = o.type;
    owns_type_ = o.owns_type_;
    o.owns_type_ = false;
    o.type = MPI_DATATYPE_NULL;
  }
  return *this;
}

void Packet::own_type(MPI_Datatype t) {
  type = t;
  owns_type_ = true;
}

void Packet::use_bytes() {
  if (bytes.size() > static_cast<std::size_t>(INT_MAX)) {
    throw Error("lb4mpi: serialized items of " + std::to_string(bytes.size()) +
                " bytes exceed one message (2^31 - 1 bytes); steal fewer items at once");
  }
  base = bytes.data();
  count = static_cast<int>(bytes.size());
  type = MPI_BYTE;
}

namespace {

void* allocate(std::size_t bytes) { return ::operator new(bytes > 0 ? bytes : 1); }

int as_count(Index k, const char* what) {
  if (k < 0 || k > INT_MAX) {
    throw Error(std::string("lb4mpi: ") + what + " of " + std::to_string(k) +
                " elements exceed one message (2^31 - 1); steal fewer items at once");
  }
  return static_cast<int>(k);
}

}  // namespace

// ---- ArrayMover

ArrayMover::ArrayMover(void* base, Index items, MPI_Datatype element, int per_item)
    : base_(static_cast<char*>(base)), items_(items), element_(element), per_item_(per_item) {
  if (element_ != MPI_DATATYPE_NULL && per_item_ >= 1) {
    MPI_Aint lb = 0, extent = 0;
    check_mpi(MPI_Type_get_extent(element_, &lb, &extent), "MPI_Type_get_extent");
    stride_ = static_cast<std::ptrdiff_t>(extent) * per_item_;
  }
}

ArrayMover::~ArrayMover() {
  if (item_ != MPI_DATATYPE_NULL) MPI_Type_free(&item_);
}

std::string ArrayMover::check() const {
  if (element_ == MPI_DATATYPE_NULL) return "an array of items without an MPI datatype (MPI_DATATYPE_NULL)";
  if (per_item_ < 1) return "an array with " + std::to_string(per_item_) + " elements per item (must be >= 1)";
  if (items_ < 0) return "an array of " + std::to_string(items_) + " items";
  if (stride_ <= 0) return "an array whose element datatype has extent " + std::to_string(stride_ / per_item_);
  if (items_ > 0 && base_ == nullptr) return "an array of " + std::to_string(items_) + " items at a null pointer";
  return {};
}

std::uint64_t ArrayMover::fingerprint() const {
  int size = 0;
  if (element_ != MPI_DATATYPE_NULL) MPI_Type_size(element_, &size);
  return Fingerprint().add(std::string_view("array")).add(stride_).add(static_cast<std::int64_t>(size) * per_item_).value();
}

std::string ArrayMover::describe() const {
  return "array of " + std::to_string(stride_) + "-byte items (" + std::to_string(per_item_) + " elements each)";
}

void* ArrayMover::make_buffer(Index k) { return allocate(static_cast<std::size_t>(k * stride_)); }
void ArrayMover::free_buffer(void* buffer) noexcept { ::operator delete(buffer); }

char* ArrayMover::at(const Place& p) const {
  char* first = p.buffer != nullptr ? static_cast<char*>(p.buffer) : base_;
  return first + p.at * stride_;
}

void ArrayMover::describe_items(char* first, Index k, Packet& p) const {
  if (per_item_ == 1) {
    p.base = first;
    p.type = element_;
    p.count = as_count(k, "array items");
    return;
  }
  if (item_ == MPI_DATATYPE_NULL) {
    auto* self = const_cast<ArrayMover*>(this);  // the item datatype, made once on first use
    check_mpi(MPI_Type_contiguous(per_item_, element_, &self->item_), "MPI_Type_contiguous");
    check_mpi(MPI_Type_commit(&self->item_), "MPI_Type_commit");
  }
  p.base = first;
  p.type = item_;
  p.count = as_count(k, "array items");
}

void ArrayMover::outgoing(const Place& from, Index k, Packet& out) { describe_items(at(from), k, out); }

void ArrayMover::incoming(const Place& to, Index k, std::int64_t /*bytes*/, Packet& in) {
  describe_items(at(to), k, in);
}

// ---- CubeMover

CubeMover::CubeMover(void* base, std::array<int, 3> dims, std::array<int, 3> lo, std::array<int, 3> size,
                     MPI_Datatype element)
    : base_(base), dims_(dims), lo_(lo), size_(size), element_(element) {
  if (element_ != MPI_DATATYPE_NULL) {
    MPI_Aint lb = 0, extent = 0;
    check_mpi(MPI_Type_get_extent(element_, &lb, &extent), "MPI_Type_get_extent");
    element_extent_ = static_cast<std::ptrdiff_t>(extent);
  }
}

std::string CubeMover::check() const {
  auto triple = [](const std::array<int, 3>& a) {
    return "(" + std::to_string(a[0]) + ", " + std::to_string(a[1]) + ", " + std::to_string(a[2]) + ")";
  };
  if (element_ == MPI_DATATYPE_NULL) return "a cube without an MPI datatype (MPI_DATATYPE_NULL)";
  if (element_extent_ <= 0) return "a cube whose element datatype has extent " + std::to_string(element_extent_);
  for (int d = 0; d < 3; ++d) {
    const std::size_t i = static_cast<std::size_t>(d);
    if (dims_[i] < 1) return "a cube of dims " + triple(dims_) + " (each must be >= 1)";
    if (lo_[i] < 0 || size_[i] < 0 || lo_[i] > dims_[i] - size_[i]) {
      return "a box at " + triple(lo_) + " of size " + triple(size_) + " that does not fit its cube of dims " +
             triple(dims_);
    }
  }
  if (size_[1] < 1 || size_[2] < 1) return "a box of size " + triple(size_) + " (its y and z sizes must be >= 1)";
  if (size_[0] > 0 && base_ == nullptr) return "a cube at a null pointer";
  return {};
}

std::uint64_t CubeMover::fingerprint() const {
  int size = 0;
  if (element_ != MPI_DATATYPE_NULL) MPI_Type_size(element_, &size);
  return Fingerprint().add(std::string_view("cube")).add(size_[1]).add(size_[2]).add(size).add(element_extent_).value();
}

std::string CubeMover::describe() const {
  return "cube x-slices of " + std::to_string(size_[1]) + " x " + std::to_string(size_[2]) + " elements of " +
         std::to_string(element_extent_) + " bytes";
}

void* CubeMover::make_buffer(Index k) {
  return allocate(static_cast<std::size_t>(k) * static_cast<std::size_t>(size_[1]) *
                  static_cast<std::size_t>(size_[2]) * static_cast<std::size_t>(element_extent_));
}
void CubeMover::free_buffer(void* buffer) noexcept { ::operator delete(buffer); }

void CubeMover::describe_slices(const Place& p, Index k, Packet& packet) const {
  const int slices = as_count(k, "cube slices");
  if (p.buffer == nullptr) {
    // The owner's storage: slices lo[0] + at .. of the box, as a sub-array of the whole cube.
    const int sizes[3] = {dims_[0], dims_[1], dims_[2]};
    const int subsizes[3] = {slices, size_[1], size_[2]};
    const int starts[3] = {lo_[0] + static_cast<int>(p.at), lo_[1], lo_[2]};
    MPI_Datatype t = MPI_DATATYPE_NULL;
    check_mpi(MPI_Type_create_subarray(3, sizes, subsizes, starts, MPI_ORDER_C, element_, &t),
              "MPI_Type_create_subarray");
    check_mpi(MPI_Type_commit(&t), "MPI_Type_commit");
    packet.own_type(t);
    packet.base = base_;
    packet.count = 1;
    return;
  }
  // A buffer: k slices of size[1] x size[2] elements, contiguous.
  const Index slice = static_cast<Index>(size_[1]) * size_[2];
  packet.base = static_cast<char*>(p.buffer) + p.at * slice * element_extent_;
  MPI_Datatype t = MPI_DATATYPE_NULL;
  check_mpi(MPI_Type_contiguous(as_count(slice, "a cube slice"), element_, &t), "MPI_Type_contiguous");
  check_mpi(MPI_Type_commit(&t), "MPI_Type_commit");
  packet.own_type(t);
  packet.count = slices;
}

void CubeMover::outgoing(const Place& from, Index k, Packet& out) { describe_slices(from, k, out); }

void CubeMover::incoming(const Place& to, Index k, std::int64_t /*bytes*/, Packet& in) {
  describe_slices(to, k, in);
}

// ---- SerialMover

void SerialMover::outgoing(const Place& from, Index k, Packet& out) {
  out.bytes.clear();
  serialize(from, k, out.bytes);
  out.use_bytes();
}

void SerialMover::incoming(const Place& /*to*/, Index /*k*/, std::int64_t bytes, Packet& in) {
  if (bytes < 0) throw Error("lb4mpi: internal error: serialized items arrived without their size");
  in.bytes.resize(static_cast<std::size_t>(bytes));
  in.use_bytes();
}

void SerialMover::arrived(const Place& to, Index k, Packet& in) { deserialize(to, k, in.bytes.data(), in.bytes.size()); }

}  // namespace lb4mpi
