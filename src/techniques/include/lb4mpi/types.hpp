// Basic vocabulary types shared by every layer of lb4mpi.
#pragma once
#include <cstddef>
#include "lb4mpi/export.h"
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>

namespace lb4mpi {

/// Iteration indices and counts are 64-bit everywhere.
using Index = std::int64_t;

/// A contiguous range of iterations [begin, begin + size).
struct Chunk {
  Index begin = 0;  ///< the first iteration
  Index size = 0;   ///< the number of iterations
  /// One past the last iteration: begin + size.
  [[nodiscard]] Index end() const { return begin + size; }
};

/// A hash (FNV-1a) of values that several ranks must pass alike: each
/// rank's fingerprint is compared in one collective (lb4mpi::agree).
class Fingerprint {
 public:
  /// A value's bytes (numbers, enums, plain structs).
  template <class T>
    requires std::is_trivially_copyable_v<T>
  Fingerprint& add(const T& v) {
    const auto* p = reinterpret_cast<const unsigned char*>(&v);
    for (std::size_t i = 0; i < sizeof(T); ++i) h_ = (h_ ^ p[i]) * 1099511628211ULL;
    return *this;
  }
  /// A text's length and characters (a std::string's object bytes would
  /// hash its address).
  Fingerprint& add(std::string_view s) {
    add(s.size());
    for (char c : s) add(c);
    return *this;
  }
  /// The hash of everything added so far.
  [[nodiscard]] std::uint64_t value() const { return h_; }

 private:
  std::uint64_t h_ = 1469598103934665603ULL;
};

/// Every error lb4mpi reports to its user: bad configuration, bad input,
/// a failed MPI call. The message names what is wrong and the valid choices.
class LB4MPI_API Error : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

}  // namespace lb4mpi
