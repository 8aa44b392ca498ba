// Data movers: how the data of an owned loop's iterations travels between
// ranks (`000` §4.1.5-4.1.6). An owned loop's data is a list of *items*, one
// per iteration a rank owns: a slice of an array, an x-slice of a cube, an
// object. A mover describes a rank's items to MPI: it sends items of its own
// storage to a thief, receives stolen items into a buffer it made, and sends
// results back from such a buffer into the owner's storage. The C++ data
// descriptions of <lb4mpi/stealing.hpp> (ArrayData, CubeData, ObjectData)
// are built on the movers here; a mover of your own plugs in the same way.
#pragma once
#include <mpi.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "lb4mpi/export.h"
#include "lb4mpi/types.hpp"

namespace lb4mpi {

/// Where items are: this rank's own storage (`buffer` null; `at` is a local
/// item index, 0 = the first item the rank owns) or a buffer the mover made
/// for stolen items (`at` counts from the buffer's first item).
struct Place {
  void* buffer = nullptr;  ///< null: this rank's own storage
  Index at = 0;            ///< the first item's index there
};

/// One message of items as MPI sees it: `count` elements of `type` at
/// `base`, or serialized bytes (then base/count/type describe `bytes`).
/// Move-only; frees a datatype it owns.
class LB4MPI_API Packet {
 public:
  Packet() = default;
  ~Packet();
  /// Takes over `other`'s datatype and bytes.
  Packet(Packet&& other) noexcept;
  /// Takes over `other`'s datatype and bytes.
  Packet& operator=(Packet&& other) noexcept;
  Packet(const Packet&) = delete;
  Packet& operator=(const Packet&) = delete;

  void* base = nullptr;                   ///< the message's first element
  int count = 0;                          ///< elements of `type`
  MPI_Datatype type = MPI_DATATYPE_NULL;  ///< the elements' datatype
  std::vector<std::byte> bytes;  ///< serialized movers: the message itself

  /// `t` (committed) is freed with the packet.
  void own_type(MPI_Datatype t);
  /// Points base/count/type at `bytes` (MPI_BYTE); throws lb4mpi::Error over 2^31-1 bytes.
  void use_bytes();

 private:
  bool owns_type_ = false;
};

/// How one kind of data travels. Every rank of an owned loop describes its
/// own items with a mover of the same kind and shape (fingerprint()).
class LB4MPI_API Mover {
 public:
  virtual ~Mover() = default;
  /// Items in this rank's storage: the iterations it owns.
  [[nodiscard]] virtual Index items() const = 0;
  /// "" when the description is usable, else what is wrong with it (a null
  /// pointer with items, a box outside its cube, ...): the owned loop
  /// refuses it on every rank with this message.
  [[nodiscard]] virtual std::string check() const { return {}; }
  /// A hash of what every rank's description must share (the kind, the
  /// element type's size, a cube slice's shape); compared when a loop starts.
  [[nodiscard]] virtual std::uint64_t fingerprint() const = 0;
  /// The same as text, for the message when ranks disagree ("array of 8-byte items").
  [[nodiscard]] virtual std::string describe() const = 0;

  /// A buffer for `k` items (stolen input, or results computed by a thief);
  /// released with free_buffer.
  virtual void* make_buffer(Index k) = 0;
  /// Releases a buffer of make_buffer.
  virtual void free_buffer(void* buffer) noexcept = 0;
  /// The packet that sends items [from.at, from.at + k) of `from`.
  virtual void outgoing(const Place& from, Index k, Packet& out) = 0;
  /// The packet that receives `k` items into `to` at to.at; `bytes` is the
  /// size of the sender's packet for serialized movers (the header of a
  /// transfer carries it), -1 otherwise.
  virtual void incoming(const Place& to, Index k, std::int64_t bytes, Packet& in) = 0;
  /// The receive of `in` completed: serialized movers deserialize here.
  virtual void arrived(const Place& /*to*/, Index /*k*/, Packet& /*in*/) {}
  /// Whether packets are bytes whose size only the sender knows.
  [[nodiscard]] virtual bool serialized() const { return false; }
};

/// Contiguous items of `per_item` elements of an MPI datatype each (`000`
/// §4.1.5.1: a C array of any MPI datatype; C++ trivially copyable T with
/// MPI_BYTE elements of sizeof(T)). The datatype's extent is the element's
/// stride. Buffers are contiguous too.
class LB4MPI_API ArrayMover final : public Mover {
 public:
  /// `items` iterations of `per_item` elements of `element` each, at `base`.
  ArrayMover(void* base, Index items, MPI_Datatype element, int per_item = 1);
  ~ArrayMover() override;
  ArrayMover(const ArrayMover&) = delete;
  ArrayMover& operator=(const ArrayMover&) = delete;

  [[nodiscard]] Index items() const override { return items_; }
  [[nodiscard]] std::string check() const override;
  [[nodiscard]] std::uint64_t fingerprint() const override;
  [[nodiscard]] std::string describe() const override;
  void* make_buffer(Index k) override;
  void free_buffer(void* buffer) noexcept override;
  void outgoing(const Place& from, Index k, Packet& out) override;
  void incoming(const Place& to, Index k, std::int64_t bytes, Packet& in) override;
  /// Bytes from one item to the next.
  [[nodiscard]] std::ptrdiff_t item_stride() const { return stride_; }

 private:
  [[nodiscard]] char* at(const Place& p) const;
  void describe_items(char* first, Index k, Packet& p) const;
  char* base_;
  Index items_;
  MPI_Datatype element_;
  int per_item_;
  std::ptrdiff_t stride_ = 0;  // bytes per item
  MPI_Datatype item_ = MPI_DATATYPE_NULL;  // per_item elements, made on first use
};

/// A 3-D array in C order, dims[0] x dims[1] x dims[2] elements of an MPI
/// datatype, of which the box lo .. lo + size holds a rank's items: item i
/// is the x-slice lo[0] + i of the box (`000` §4.1.5.2). A stolen slice
/// travels with an MPI sub-array datatype (MPI_Type_create_subarray), so a
/// box that leaves out halo cells in y and z moves only its own cells.
/// Buffers hold k slices of size[1] x size[2] elements, contiguous.
class LB4MPI_API CubeMover final : public Mover {
 public:
  /// The box [lo, lo + size) of the C-order cube of `dims` elements at `base`.
  CubeMover(void* base, std::array<int, 3> dims, std::array<int, 3> lo, std::array<int, 3> size,
            MPI_Datatype element);
  ~CubeMover() override = default;
  CubeMover(const CubeMover&) = delete;
  CubeMover& operator=(const CubeMover&) = delete;

  [[nodiscard]] Index items() const override { return size_[0]; }
  [[nodiscard]] std::string check() const override;
  [[nodiscard]] std::uint64_t fingerprint() const override;
  [[nodiscard]] std::string describe() const override;
  void* make_buffer(Index k) override;
  void free_buffer(void* buffer) noexcept override;
  void outgoing(const Place& from, Index k, Packet& out) override;
  void incoming(const Place& to, Index k, std::int64_t bytes, Packet& in) override;
  /// Bytes of one element (its datatype's extent).
  [[nodiscard]] std::ptrdiff_t element_size() const { return element_extent_; }

 private:
  void describe_slices(const Place& p, Index k, Packet& packet) const;
  void* base_;
  std::array<int, 3> dims_;
  std::array<int, 3> lo_;
  std::array<int, 3> size_;
  MPI_Datatype element_;
  std::ptrdiff_t element_extent_ = 0;
};

/// Items that travel as bytes: the subclass serializes items of a place
/// into bytes and deserializes bytes into a place (`000` §4.1.6). The C++
/// ObjectData<T> is one (serializer<T>); so is a mover of C callbacks.
class LB4MPI_API SerialMover : public Mover {
 public:
  /// Appends items [from.at, from.at + k) of `from` to `out`.
  virtual void serialize(const Place& from, Index k, std::vector<std::byte>& out) = 0;
  /// Reads `k` items from [data, data + bytes) into `to` at to.at; throws
  /// lb4mpi::Error when the bytes do not hold k items.
  virtual void deserialize(const Place& to, Index k, const std::byte* data, std::size_t bytes) = 0;

  void outgoing(const Place& from, Index k, Packet& out) final;
  void incoming(const Place& to, Index k, std::int64_t bytes, Packet& in) final;
  void arrived(const Place& to, Index k, Packet& in) final;
  [[nodiscard]] bool serialized() const final { return true; }
};

}  // namespace lb4mpi
