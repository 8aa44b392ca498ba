// The data descriptions of owned loops (<lb4mpi/stealing.hpp>): what a body
// sees of its items (View) and how they travel between ranks (mover()):
// ArrayData<T> (trivially copyable items), CubeData<T> (x-slices of a 3-D
// cube, MPI sub-array datatypes), ObjectData<T> (objects through the
// serializer<T> customization point), NoData; the DataDescription concept
// that owned_for checks. docs/STEALING.md, "The data description API".
#pragma once
#include <mpi.h>

#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "lb4mpi/stealing/kinds.hpp"
#include "lb4mpi/stealing/mover.hpp"
#include "lb4mpi/types.hpp"

namespace lb4mpi {

// ---------------------------------------------------------------------------
// Serialization: the customization point of ObjectData<T>

/// Appends bytes (ObjectData's serialized items).
class ByteWriter {
 public:
  /// Appends to `out`.
  explicit ByteWriter(std::vector<std::byte>& out) : out_(&out) {}
  /// Appends `n` bytes from `data`.
  void put_bytes(const void* data, std::size_t n) {
    const auto* p = static_cast<const std::byte*>(data);
    out_->insert(out_->end(), p, p + n);
  }
  /// Appends the bytes of a trivially copyable value.
  template <class T>
    requires std::is_trivially_copyable_v<T>
  void put(const T& v) {
    put_bytes(&v, sizeof v);
  }
  /// Appends a string: its length, then its characters.
  void put(std::string_view s) {
    put(static_cast<std::uint64_t>(s.size()));
    put_bytes(s.data(), s.size());
  }
  /// Appends a vector of trivially copyable values: its length, then its bytes.
  template <class T>
    requires std::is_trivially_copyable_v<T>
  void put(const std::vector<T>& v) {
    put(static_cast<std::uint64_t>(v.size()));
    put_bytes(v.data(), v.size() * sizeof(T));
  }

 private:
  std::vector<std::byte>* out_;
};

/// Reads what a ByteWriter wrote; throws lb4mpi::Error past the end.
class ByteReader {
 public:
  /// Reads the `n` bytes at `data`.
  ByteReader(const std::byte* data, std::size_t n) : p_(data), end_(data + n) {}
  /// Reads `n` bytes into `out`.
  void get_bytes(void* out, std::size_t n) {
    if (static_cast<std::size_t>(end_ - p_) < n) {
      throw Error("lb4mpi: a serialized item is shorter than its deserializer reads (" + std::to_string(n) +
                  " bytes wanted, " + std::to_string(end_ - p_) + " left)");
    }
    if (n > 0) std::memcpy(out, p_, n);
    p_ += n;
  }
  /// Reads a value ByteWriter::put wrote.
  template <class T>
    requires std::is_trivially_copyable_v<T>
  T get() {
    T v;
    get_bytes(&v, sizeof v);
    return v;
  }
  /// Reads a string ByteWriter::put wrote.
  std::string get_string() {
    std::string s(checked_size(1), '\0');
    get_bytes(s.data(), s.size());
    return s;
  }
  /// Reads a vector ByteWriter::put wrote.
  template <class T>
    requires std::is_trivially_copyable_v<T>
  std::vector<T> get_vector() {
    std::vector<T> v(checked_size(sizeof(T)));
    get_bytes(v.data(), v.size() * sizeof(T));
    return v;
  }
  /// The bytes not read yet.
  [[nodiscard]] std::size_t left() const { return static_cast<std::size_t>(end_ - p_); }

 private:
  std::size_t checked_size(std::size_t element) {
    const auto n = get<std::uint64_t>();
    if (n > left() / element) throw Error("lb4mpi: a serialized item's length " + std::to_string(n) + " exceeds its bytes");
    return static_cast<std::size_t>(n);
  }
  const std::byte* p_;
  const std::byte* end_;
};

/// How ObjectData<T> moves a T. Specialize it with
///   static void save(ByteWriter& w, const T& item);
///   static T load(ByteReader& r);
/// or give T the members `void save(ByteWriter&) const` and
/// `static T load(ByteReader&)`, which this default calls. A trivially
/// copyable T travels as its bytes.
template <class T>
struct serializer {
  /// Writes `item` (its save member, or its bytes).
  static void save(ByteWriter& w, const T& item) {
    if constexpr (requires { item.save(w); }) {
      item.save(w);
    } else {
      static_assert(std::is_trivially_copyable_v<T>,
                    "lb4mpi::serializer<T>: give T save(ByteWriter&) const and static load(ByteReader&), "
                    "or specialize lb4mpi::serializer<T>");
      w.put(item);
    }
  }
  /// Reads an item save wrote (T::load, or its bytes).
  static T load(ByteReader& r) {
    if constexpr (requires { T::load(r); }) {
      return T::load(r);
    } else {
      static_assert(std::is_trivially_copyable_v<T>,
                    "lb4mpi::serializer<T>: give T save(ByteWriter&) const and static load(ByteReader&), "
                    "or specialize lb4mpi::serializer<T>");
      return r.get<T>();
    }
  }
};

// ---------------------------------------------------------------------------
// Data descriptions: what a body sees (View) and how items travel (mover())

/// The MPI datatype of an arithmetic T (MPI_DOUBLE for double, ...), or
/// MPI_DATATYPE_NULL for other types (which then travel as bytes).
template <class T>
MPI_Datatype mpi_type_of() {
  if constexpr (std::is_same_v<T, double>) return MPI_DOUBLE;
  else if constexpr (std::is_same_v<T, float>) return MPI_FLOAT;
  else if constexpr (std::is_same_v<T, long double>) return MPI_LONG_DOUBLE;
  else if constexpr (std::is_same_v<T, char>) return MPI_CHAR;
  else if constexpr (std::is_same_v<T, signed char>) return MPI_SIGNED_CHAR;
  else if constexpr (std::is_same_v<T, unsigned char>) return MPI_UNSIGNED_CHAR;
  else if constexpr (std::is_same_v<T, short>) return MPI_SHORT;
  else if constexpr (std::is_same_v<T, unsigned short>) return MPI_UNSIGNED_SHORT;
  else if constexpr (std::is_same_v<T, int>) return MPI_INT;
  else if constexpr (std::is_same_v<T, unsigned>) return MPI_UNSIGNED;
  else if constexpr (std::is_same_v<T, long>) return MPI_LONG;
  else if constexpr (std::is_same_v<T, unsigned long>) return MPI_UNSIGNED_LONG;
  else if constexpr (std::is_same_v<T, long long>) return MPI_LONG_LONG;
  else if constexpr (std::is_same_v<T, unsigned long long>) return MPI_UNSIGNED_LONG_LONG;
  else return MPI_DATATYPE_NULL;
}

/// A contiguous array of trivially copyable T, `per_item` elements per
/// iteration: the body sees std::span<T> of k * per_item elements.
template <class T>
  requires std::is_trivially_copyable_v<T>
class ArrayData {
 public:
  /// What the body sees of a chunk\'s items.
  using View = std::span<T>;
  /// `items` iterations' data at `data`, per_item elements each.
  ArrayData(T* data, Index items, int per_item = 1)
      : data_(data),
        per_item_(per_item),
        mover_(std::make_unique<ArrayMover>(data, items, element(), per_item > 0 ? per_item * kElements : per_item)) {}
  /// A vector or span whose size is the owned iterations times per_item.
  explicit ArrayData(std::span<T> data, int per_item = 1)
      : ArrayData(data.data(), per_item > 0 ? static_cast<Index>(data.size()) / per_item : -1, per_item) {
    if (per_item > 0 && data.size() % static_cast<std::size_t>(per_item) != 0) odd_size_ = true;
  }
  /// A vector whose size is the owned iterations times per_item.
  explicit ArrayData(std::vector<T>& data, int per_item = 1) : ArrayData(std::span<T>(data), per_item) {}

  /// The mover that sends and receives the items.
  Mover& mover() { return *mover_; }
  /// "" when the description is valid, else what is wrong.
  [[nodiscard]] std::string check() const {
    if (odd_size_) return "the array's size is not a multiple of per_item (" + std::to_string(per_item_) + ")";
    return mover_->check();
  }
  /// The body\'s view of `k` items at place `p`.
  View view(const Place& p, Index k) const {
    T* first = (p.buffer != nullptr ? static_cast<T*>(p.buffer) : data_) + p.at * per_item_;
    return View(first, static_cast<std::size_t>(k * per_item_));
  }

 private:
  // An arithmetic T travels as its MPI datatype, any other as sizeof(T) bytes.
  static constexpr int kElements = std::is_arithmetic_v<T> ? 1 : static_cast<int>(sizeof(T));
  static MPI_Datatype element() { return std::is_arithmetic_v<T> ? mpi_type_of<T>() : MPI_BYTE; }
  T* data_;
  int per_item_;
  bool odd_size_ = false;
  std::unique_ptr<ArrayMover> mover_;
};

/// k x-slices of a cube, as the body sees them: element (x, y, z) with x in
/// [0, nx), y in [0, ny), z in [0, nz), relative to the chunk's first slice
/// and the box's corner. On the owner it points into the cube; on a thief
/// into a buffer of the slices.
template <class T>
struct CubeView {
  T* origin = nullptr;  ///< element (0, 0, 0)
  Index nx = 0;         ///< x-slices (the chunk's iterations)
  int ny = 0;           ///< elements along y
  int nz = 0;           ///< elements along z
  std::ptrdiff_t x_stride = 0;  ///< elements from one x-slice to the next
  std::ptrdiff_t y_stride = 0;  ///< elements from one row to the next
  /// Element (x, y, z).
  T& operator()(Index x, int y, int z) const { return origin[x * x_stride + y * y_stride + z]; }
};

/// A 3-D array in C order of dims[0] x dims[1] x dims[2] elements T, of
/// which the box [lo, lo + size) is this rank's: iteration first + i is the
/// x-slice lo[0] + i of the box (size[0] = the owned iterations). Stolen
/// slices travel as an MPI sub-array (cells outside the box, such as halos,
/// stay). The body sees a CubeView<T> of its chunk's slices.
template <class T>
  requires std::is_trivially_copyable_v<T>
class CubeData {
 public:
  /// What the body sees of a chunk\'s items.
  using View = CubeView<T>;
  /// An arithmetic T (its MPI datatype).
  CubeData(T* data, std::array<int, 3> dims, std::array<int, 3> lo, std::array<int, 3> size)
    requires std::is_arithmetic_v<T>
      : CubeData(data, dims, lo, size, mpi_type_of<T>()) {}
  /// The whole cube of an arithmetic T: every x-slice is an iteration.
  CubeData(T* data, std::array<int, 3> dims)
    requires std::is_arithmetic_v<T>
      : CubeData(data, dims, {0, 0, 0}, dims) {}
  /// Any trivially copyable T: `element` is an MPI datatype of one T (its extent sizeof(T)).
  CubeData(T* data, std::array<int, 3> dims, std::array<int, 3> lo, std::array<int, 3> size, MPI_Datatype element)
      : data_(data), dims_(dims), lo_(lo), size_(size),
        mover_(std::make_unique<CubeMover>(data, dims, lo, size, element)) {}

  /// The mover that sends and receives the items.
  Mover& mover() { return *mover_; }
  /// "" when the description is valid, else what is wrong.
  [[nodiscard]] std::string check() const { return mover_->check(); }
  /// The body\'s view of `k` items at place `p`.
  View view(const Place& p, Index k) const {
    View v;
    v.nx = k;
    v.ny = size_[1];
    v.nz = size_[2];
    if (p.buffer != nullptr) {
      v.y_stride = size_[2];
      v.x_stride = static_cast<std::ptrdiff_t>(size_[1]) * size_[2];
      v.origin = static_cast<T*>(p.buffer) + p.at * v.x_stride;
    } else {
      v.y_stride = dims_[2];
      v.x_stride = static_cast<std::ptrdiff_t>(dims_[1]) * dims_[2];
      v.origin = data_ + (lo_[0] + p.at) * v.x_stride + static_cast<std::ptrdiff_t>(lo_[1]) * v.y_stride + lo_[2];
    }
    return v;
  }

 private:
  T* data_;
  std::array<int, 3> dims_, lo_, size_;
  std::unique_ptr<CubeMover> mover_;
};

/// Objects of any type T, one per iteration, that travel serialized with
/// lb4mpi::serializer<T> (`000` §4.1.6): the body sees std::span<T>; on a
/// thief the objects are deserialized copies.
template <class T>
class ObjectData {
 public:
  /// What the body sees of a chunk\'s items.
  using View = std::span<T>;
  /// `items` objects at `data`, one per iteration.
  ObjectData(T* data, Index items) : mover_(std::make_unique<Objects>(data, items)) {}
  /// A vector of the owned iterations' objects.
  explicit ObjectData(std::vector<T>& data) : ObjectData(data.data(), static_cast<Index>(data.size())) {}

  /// The mover that sends and receives the items.
  Mover& mover() { return *mover_; }
  /// "" when the description is valid, else what is wrong.
  [[nodiscard]] std::string check() const { return mover_->check(); }
  /// The body\'s view of `k` items at place `p`.
  View view(const Place& p, Index k) const {
    T* first = p.buffer != nullptr ? static_cast<std::vector<T>*>(p.buffer)->data() : mover_->data;
    return View(first + p.at, static_cast<std::size_t>(k));
  }

 private:
  struct Objects final : SerialMover {
    Objects(T* d, Index count) : data(d), n(count) {}
    T* data;
    Index n;
    [[nodiscard]] Index items() const override { return n; }
    [[nodiscard]] std::string check() const override {
      if (n < 0) return "an object array of " + std::to_string(n) + " items";
      if (n > 0 && data == nullptr) return "an object array of " + std::to_string(n) + " items at a null pointer";
      return {};
    }
    [[nodiscard]] std::uint64_t fingerprint() const override { return Fingerprint().add(std::string_view("objects")).value(); }
    [[nodiscard]] std::string describe() const override { return "serialized objects"; }
    void* make_buffer(Index k) override { return new std::vector<T>(static_cast<std::size_t>(k)); }
    void free_buffer(void* b) noexcept override { delete static_cast<std::vector<T>*>(b); }
    T* first(const Place& p) const {
      return p.buffer != nullptr ? static_cast<std::vector<T>*>(p.buffer)->data() + p.at : data + p.at;
    }
    void serialize(const Place& from, Index k, std::vector<std::byte>& out) override {
      ByteWriter w(out);
      const T* f = first(from);
      for (Index i = 0; i < k; ++i) serializer<T>::save(w, f[i]);
    }
    void deserialize(const Place& to, Index k, const std::byte* bytes, std::size_t size) override {
      ByteReader r(bytes, size);
      T* f = first(to);
      for (Index i = 0; i < k; ++i) f[i] = serializer<T>::load(r);
      if (r.left() != 0) throw Error("lb4mpi: serialized items have " + std::to_string(r.left()) + " bytes left over");
    }
  };
  std::unique_ptr<Objects> mover_;
};

/// No data (input) or no results (output): the body's view is NoView.
struct NoView {};
/// The description of no data (input) or no results (output).
struct NoData {
  /// What the body sees of a chunk\'s items.
  using View = NoView;
  /// None: nothing moves.
  Mover* mover() { return nullptr; }
  /// "" when the description is valid, else what is wrong.
  [[nodiscard]] std::string check() const { return {}; }
  /// The body\'s view of `k` items at place `p`.
  View view(const Place& /*p*/, Index /*k*/) const { return {}; }
};

/// What owned_for accepts as a description of input items or results.
template <class D>
concept DataDescription = requires(D& d, const D& cd, const Place& p, Index k) {
  typename D::View;
  { cd.view(p, k) } -> std::same_as<typename D::View>;
  { cd.check() } -> std::convertible_to<std::string>;
  d.mover();
};

}  // namespace lb4mpi
