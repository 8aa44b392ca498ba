// lb4mpi owned loops: loops over distributed data, balanced by work stealing
// (`000`, `002`; docs/STEALING.md).
//
// Every rank owns a contiguous range of the loop's iterations and the data
// of those iterations (one *item* per iteration: an array slice, an x-slice
// of a cube, an object). Nobody else can read that data. The body receives a
// chunk of iterations with a view of its items, wherever it runs; when a
// balancer moves a chunk to another rank, its items travel with it and the
// results the body wrote travel back into the owner's result storage.
//
//   std::vector<long> work = my_part();              // items of [first, last)
//   std::vector<double> out(work.size());
//   lb4mpi::StealOptions opt = lb4mpi::StealOptions::from_env();
//   opt.balancer = lb4mpi::Balancer::Steal;          // none | steal | a2ws | lw | random-steal
//   lb4mpi::StealReport r = lb4mpi::owned_for(MPI_COMM_WORLD, first, last,
//       lb4mpi::ArrayData<long>(work), lb4mpi::ArrayData<double>(out), opt,
//       [](lb4mpi::Chunk c, std::span<long> in, std::span<double> res) {
//         for (std::size_t k = 0; k < in.size(); ++k) res[k] = compute(c.begin + k, in[k]);
//       });
//   // out holds the results of every iteration this rank owns, wherever it ran.
//
// Collective over `comm`: every rank calls it with its own range and data,
// and the same options. The ranges must not overlap (they need not be in
// rank order, and a rank may own nothing). Bad input (a description that
// does not match the range, ranks that disagree on the options or on the
// shape of the data, a balancer not built) throws the same lb4mpi::Error on
// every rank before any iteration runs.
//
// How a balancer plugs in: one engine per balancer behind one interface,
// st::Engine (src/stealing/internal/stealing/engine.hpp), chosen by
// StealOptions::balancer through the engine registry; docs/STEALING.md,
// "Engines".
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

#include "lb4mpi/report.hpp"
#include "lb4mpi/stealing/figures.hpp"
#include "lb4mpi/stealing/kinds.hpp"
#include "lb4mpi/stealing/mover.hpp"
#include "lb4mpi/techniques/params.hpp"
#include "lb4mpi/types.hpp"

namespace lb4mpi {

// ---------------------------------------------------------------------------
// Options

/// The options of an owned loop. Set them in code or read them from the
/// environment (from_env: the variables of `000` Table 4.2 and a few more,
/// docs/OPTIONS.md).
struct LB4MPI_API StealOptions {
  /// The balancer (LB4MPI_BALANCER): none, steal, a2ws, lw, random-steal, token.
  Balancer balancer = Balancer::Steal;
  /// What a thief takes: LB4MPI_STEAL_RATIO (percent, 0-100] or
  /// LB4MPI_WS_SCHEDULING (a technique name or `000` Table 4.1 id).
  StealAmount amount = StealAmount::of_ratio(0.5);
  /// Victim selection (LB4MPI_VICTIM, or `000`'s LB4MPI_LAWS=1 / LB4MPI_nLAWS=1).
  Victim victim = Victim::Random;
  /// How an owner cuts its own unstarted iterations into chunks
  /// (LB4MPI_SCHEDULING): a non-adaptive technique's recursive chunks over
  /// the iterations it owns, on P ranks. A chunk, once begun, is executed by
  /// its owner; only chunks not begun are stolen. Unset (the default): no
  /// chunks, every iteration not yet executed can be stolen, and the owner
  /// executes its iterations in pieces of about 20 microseconds.
  std::optional<Technique> chunking;
  /// Parameters of the techniques of `amount` and `chunking` (LB4MPI_MIN_CHUNK, ...).
  TechniqueParams params;
  /// The rank that relays steal requests (Balancer::Steal), or leads (LW).
  int coordinator = 0;
  /// Nodes for Victim::Locality: 0 (the default) asks MPI which ranks share
  /// memory (MPI_Comm_split_type(MPI_COMM_TYPE_SHARED)); k > 0 emulates
  /// nodes of k ranks each (ranks 0..k-1 on node 0, ...), e.g. to test
  /// locality on one machine (LB4MPI_RANKS_PER_NODE).
  int ranks_per_node = 0;
  /// Iterations an owner executes between two looks at its messages; < 0
  /// (default): automatic, about every 20 microseconds (LB4MPI_BREAK_AFTER).
  int break_after = -1;
  /// Seed of the random victim choices (LB4MPI_SEED).
  std::uint64_t seed = 1;
  /// Emulated heterogeneity (LB4MPI_SPEEDS, comma-separated, one positive
  /// factor per rank; empty = all equal): rank r runs its pieces
  /// max(speeds) / speeds[r] times as long (a busy wait after each piece).
  std::vector<double> speeds;
  /// `000` Table 4.2's per-rank iteration CSV (LB4MPI_ITERATIONS_INFO, 0/1):
  /// rank r writes <iterations_dir>/iterations_rank<r>.csv, one row per chunk
  /// it executed, its own and stolen ones (docs/TRACING.md).
  bool iterations_info = false;
  /// Its folder (LB4MPI_DIR_ID; "lb4mpi_iterations" when empty).
  std::string iterations_dir;
  /// Decentralized balancers (A2WS): radius R of the ring over which ranks
  /// share their progress (`002` §2.1; LB4MPI_A2WS_RADIUS, >= 1).
  int radius = 1;
  /// Decentralized balancers (A2WS): steal before running out, from the
  /// elapsed time (`002` §2.2.1; LB4MPI_A2WS_PREEMPTIVE, 0/1).
  bool preemptive = true;

  /// Where a field's value came from, by member name ("amount" ->
  /// "LB4MPI_STEAL_RATIO=120"); named in error messages.
  std::map<std::string, std::string> origin;

  /// The defaults with the environment's values on top. Throws
  /// lb4mpi::Error naming the variable and the valid values.
  static StealOptions from_env();
  static StealOptions from_env(StealOptions base);
  /// Throws lb4mpi::Error when these options cannot run on `ranks` ranks
  /// (a coordinator out of range, an adaptive technique, a balancer that
  /// is not built in this build, speeds of the wrong length, ...).
  void validate(int ranks) const;
  /// A hash of what all ranks must pass alike.
  [[nodiscard]] std::uint64_t fingerprint() const;
  /// The same fields as (name, value as text), for a "ranks disagree" error.
  [[nodiscard]] std::vector<std::pair<std::string, std::string>> agreed_fields() const;
  /// The LB4MPI_* variables from_env reads (docs/OPTIONS.md lists each).
  static std::vector<std::string> known_variables();
  /// The balancers whose engines this build has ("none, steal, ...").
  static std::vector<Balancer> built_balancers();
};

// ---------------------------------------------------------------------------
// Report

/// What an owned loop reports, on every rank.
struct LB4MPI_API StealReport {
  /// The loop's figures as any lb4mpi loop reports them: t_par, and per
  /// rank the iterations executed (its own and stolen ones), chunks (pieces
  /// handed to the body), work time, overhead (stealing, serving, waiting),
  /// finish time. report.technique is the steal amount's technique (or
  /// STATIC for a ratio); report.mode is meaningless here.
  Report loop;
  Balancer balancer = Balancer::Steal;
  StealAmount amount;
  Victim victim = Victim::Random;
  std::vector<RankSteals> ranks;  ///< one per rank

  [[nodiscard]] Index steal_attempts() const;
  [[nodiscard]] Index successful_steals() const;
  [[nodiscard]] Index iterations_stolen() const;
  /// Mean seconds per stolen chunk sending (victims) / receiving (thieves)
  /// its items; 0 without steals.
  [[nodiscard]] double send_time_per_steal() const;
  [[nodiscard]] double receive_time_per_steal() const;
  /// The c.o.v. of the ranks' finish times after balancing (= loop.finish_cov()).
  [[nodiscard]] double time_cov() const { return loop.finish_cov(); }
};

// ---------------------------------------------------------------------------
// Serialization: the customization point of ObjectData<T>

/// Appends bytes (ObjectData's serialized items).
class ByteWriter {
 public:
  explicit ByteWriter(std::vector<std::byte>& out) : out_(&out) {}
  void put_bytes(const void* data, std::size_t n) {
    const auto* p = static_cast<const std::byte*>(data);
    out_->insert(out_->end(), p, p + n);
  }
  template <class T>
    requires std::is_trivially_copyable_v<T>
  void put(const T& v) {
    put_bytes(&v, sizeof v);
  }
  void put(std::string_view s) {
    put(static_cast<std::uint64_t>(s.size()));
    put_bytes(s.data(), s.size());
  }
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
  ByteReader(const std::byte* data, std::size_t n) : p_(data), end_(data + n) {}
  void get_bytes(void* out, std::size_t n) {
    if (static_cast<std::size_t>(end_ - p_) < n) {
      throw Error("lb4mpi: a serialized item is shorter than its deserializer reads (" + std::to_string(n) +
                  " bytes wanted, " + std::to_string(end_ - p_) + " left)");
    }
    if (n > 0) std::memcpy(out, p_, n);
    p_ += n;
  }
  template <class T>
    requires std::is_trivially_copyable_v<T>
  T get() {
    T v;
    get_bytes(&v, sizeof v);
    return v;
  }
  std::string get_string() {
    std::string s(checked_size(1), '\0');
    get_bytes(s.data(), s.size());
    return s;
  }
  template <class T>
    requires std::is_trivially_copyable_v<T>
  std::vector<T> get_vector() {
    std::vector<T> v(checked_size(sizeof(T)));
    get_bytes(v.data(), v.size() * sizeof(T));
    return v;
  }
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
  explicit ArrayData(std::vector<T>& data, int per_item = 1) : ArrayData(std::span<T>(data), per_item) {}

  Mover& mover() { return *mover_; }
  [[nodiscard]] std::string check() const {
    if (odd_size_) return "the array's size is not a multiple of per_item (" + std::to_string(per_item_) + ")";
    return mover_->check();
  }
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
  T* origin = nullptr;
  Index nx = 0;
  int ny = 0;
  int nz = 0;
  std::ptrdiff_t x_stride = 0;  ///< elements from one x-slice to the next
  std::ptrdiff_t y_stride = 0;  ///< elements from one row to the next
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

  Mover& mover() { return *mover_; }
  [[nodiscard]] std::string check() const { return mover_->check(); }
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
  using View = std::span<T>;
  ObjectData(T* data, Index items) : mover_(std::make_unique<Objects>(data, items)) {}
  explicit ObjectData(std::vector<T>& data) : ObjectData(data.data(), static_cast<Index>(data.size())) {}

  Mover& mover() { return *mover_; }
  [[nodiscard]] std::string check() const { return mover_->check(); }
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
struct NoData {
  using View = NoView;
  Mover* mover() { return nullptr; }
  [[nodiscard]] std::string check() const { return {}; }
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

// ---------------------------------------------------------------------------
// The loop

/// The body behind its type: runs chunk `c` (global indices) with its input
/// items at `in` and its results at `out`.
using OwnedBodyFn = void (*)(void* body, Chunk c, const Place& in, const Place& out);
struct OwnedLoopArgs {
  MPI_Comm comm = MPI_COMM_NULL;
  Index first = 0;
  Index last = 0;
  Mover* in = nullptr;   ///< null: no input items
  Mover* out = nullptr;  ///< null: no results
  std::string in_error;  ///< the descriptions' check() ("" when fine)
  std::string out_error;
  std::string error;     ///< the front end's own check of this rank ("" when fine)
  OwnedBodyFn body = nullptr;
  void* body_state = nullptr;
};
/// Collective: runs the owned loop behind owned_for's types (and the C
/// interface's); owned_for is the form to use (docs/STEALING.md).
LB4MPI_API StealReport run_owned_loop(const OwnedLoopArgs& args, const StealOptions& options);

namespace detail {
template <class D>
Mover* mover_of(D& d) {
  if constexpr (std::is_pointer_v<decltype(d.mover())>) {
    return d.mover();
  } else {
    return &d.mover();
  }
}
}  // namespace detail

/// Runs the iterations [first, last) this rank owns, with their items
/// `in` (one per iteration) and result storage `out` (one per iteration, or
/// NoData), balanced across `comm` by options.balancer. Calls
/// body(Chunk, In::View, Out::View) for pieces of work, on whichever rank
/// runs them; Chunk holds global iteration indices. Collective; returns the
/// report on every rank. When it returns, `out` holds the results of every
/// iteration this rank owns.
template <class In, class Out, class Body>
  requires DataDescription<std::remove_cvref_t<In>> && DataDescription<std::remove_cvref_t<Out>>
StealReport owned_for(MPI_Comm comm, Index first, Index last, In&& in, Out&& out, const StealOptions& options,
                      Body&& body) {
  struct State {
    std::remove_reference_t<In>* in;
    std::remove_reference_t<Out>* out;
    std::remove_reference_t<Body>* body;
  } state{&in, &out, &body};
  OwnedLoopArgs args;
  args.comm = comm;
  args.first = first;
  args.last = last;
  args.in = detail::mover_of(in);
  args.out = detail::mover_of(out);
  args.in_error = in.check();
  args.out_error = out.check();
  args.body_state = &state;
  args.body = [](void* s, Chunk c, const Place& pin, const Place& pout) {
    auto* st = static_cast<State*>(s);
    (*st->body)(c, st->in->view(pin, c.size), st->out->view(pout, c.size));
  };
  return run_owned_loop(args, options);
}

/// The same without results: body(Chunk, In::View).
template <class In, class Body>
  requires DataDescription<std::remove_cvref_t<In>>
StealReport owned_for(MPI_Comm comm, Index first, Index last, In&& in, const StealOptions& options, Body&& body) {
  return owned_for(comm, first, last, std::forward<In>(in), NoData{}, options,
                   [&body](Chunk c, typename std::remove_cvref_t<In>::View v, NoView) { body(c, v); });
}

}  // namespace lb4mpi
