// Decoding a fuzzer's input bytes into typed values. Each check unit reads its
// input front to back with this; once the bytes run out every read returns
// zeros (so short inputs are valid inputs and the decoding never fails).
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>

namespace lb4mpi::fuzz {

class ByteReader {
 public:
  ByteReader(const std::uint8_t* data, std::size_t size) : at_(data), left_(size) {}

  [[nodiscard]] bool empty() const { return left_ == 0; }
  [[nodiscard]] std::size_t left() const { return left_; }

  /// The next sizeof(T) bytes as T (little end first), zeros past the end.
  template <class T>
    requires std::is_integral_v<T>
  T take() {
    using U = std::make_unsigned_t<T>;
    U v = 0;
    for (std::size_t i = 0; i < sizeof(T); ++i) v = static_cast<U>(v | (static_cast<U>(byte()) << (8 * i)));
    return static_cast<T>(v);
  }

  /// A value in [lo, hi] (lo <= hi): the next bytes modulo the width of the range.
  template <class T>
    requires std::is_integral_v<T>
  T take_in(T lo, T hi) {
    const auto span = static_cast<std::uint64_t>(hi) - static_cast<std::uint64_t>(lo);
    std::uint64_t raw = 0;
    // Only as many bytes as the range needs, so that small ranges cost one byte.
    for (std::uint64_t s = span; s != 0; s >>= 8U) raw = (raw << 8U) | byte();
    const std::uint64_t off = span == std::numeric_limits<std::uint64_t>::max() ? raw : raw % (span + 1);
    return static_cast<T>(static_cast<std::uint64_t>(lo) + off);
  }

  bool take_bool() { return (byte() & 1U) != 0; }

  /// Any double, NaN and infinities included: the next 8 bytes as its bits.
  double take_raw_double() {
    const auto bits = take<std::uint64_t>();
    double d = 0.0;
    std::memcpy(&d, &bits, sizeof d);
    return d;
  }

  /// A text of at most `max` bytes: a length byte, then the bytes (any values, NUL included).
  std::string take_string(std::size_t max) {
    std::size_t n = byte();
    if (n > max) n = max;
    if (n > left_) n = left_;
    std::string s(reinterpret_cast<const char*>(at_), n);
    at_ += n;
    left_ -= n;
    return s;
  }

 private:
  std::uint8_t byte() {
    if (left_ == 0) return 0;
    --left_;
    return *at_++;
  }

  const std::uint8_t* at_;
  std::size_t left_;
};

}  // namespace lb4mpi::fuzz
