// Hashing and counter-based random numbers shared by the apps' kernels.
// Header-only, no MPI. Everything here is a pure function of its inputs, so
// every rank computes the same values without communicating.
#pragma once
#include <cstdint>

namespace lb4mpi::apps {

/// The 64-bit finalizer of SplitMix64: a bijective, well-avalanching mix.
constexpr std::uint64_t fmix64(std::uint64_t z) {
  z = (z ^ (z >> 30U)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27U)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31U);
}

/// Mix of an iteration index and its result: the term a rank adds to the
/// checksum for iteration i. Sums of these (mod 2^64) do not depend on the
/// order in which iterations ran nor on which rank ran them.
constexpr std::uint64_t mix_result(std::uint64_t i, std::uint64_t result) {
  return fmix64(fmix64(i ^ 0x5851f42d4c957f2dULL) + result * 0x9e3779b97f4a7c15ULL +
                0x632be59bd9b4e019ULL);
}

/// SplitMix64 generator. Seeded with stream(seed, i) it gives the random
/// numbers of iteration i, independent of every other iteration.
class SplitMix64 {
 public:
  constexpr explicit SplitMix64(std::uint64_t state) : state_(state) {}
  /// Generator of item `index` of the sequence numbered `seed`.
  static constexpr SplitMix64 stream(std::uint64_t seed, std::uint64_t index) {
    return SplitMix64(
        fmix64(fmix64(seed + 0x2545f4914f6cdd1dULL) ^ (index * 0xd1b54a32d192ed03ULL)));
  }
  constexpr std::uint64_t next() {
    state_ += 0x9e3779b97f4a7c15ULL;
    return fmix64(state_);
  }
  /// Uniform in the open interval (0, 1): never 0, never 1.
  constexpr double uniform01() { return (static_cast<double>(next() >> 11U) + 0.5) * 0x1.0p-53; }
  /// Uniform in [lo, hi).
  constexpr double uniform(double lo, double hi) { return lo + (hi - lo) * uniform01(); }

 private:
  std::uint64_t state_;
};

}  // namespace lb4mpi::apps
