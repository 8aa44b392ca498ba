// The two kernels of lb4mpi-pisolver-stream (`003` §5.1): a compute-bound
// Pi-solver loop and the memory-bound STREAM Triad loop. Pure functions, no MPI.
//
// Pi-solver. The integral of 4 / (1 + x^2) over [0, 1] is pi. The loop has N
// iterations; iteration i integrates the slice [i/N, (i+1)/N) with the
// midpoint rule on M sub-steps of length h = 1 / (N M):
//   value_i = h * sum_{k<M} 4 / (1 + x_k^2),   x_k = (i M + k + 0.5) h.
// `003` Listing 5.1 is this with M = 1 (one term per iteration); M sub-steps
// per iteration make an iteration worth scheduling (M divisions, no memory
// traffic: compute-bound). Summing value_i over i gives pi.
//
// STREAM Triad. Three arrays a, b, c of E elements; one iteration is a block
// of B consecutive elements (the last block may be shorter):
//   a[j] = b[j] + s * c[j]   for j in [i B, min((i+1) B, E)).
// `003` Listing 5.2 is this with B = 1 (one element per iteration); blocks
// keep the scheduling overhead per byte moved small. Every element is read
// twice and written once per execution: memory-bound once the arrays are
// larger than the caches. b and c are pure functions of j (triad_b, triad_c),
// so every rank holds the same input and any rank can run any block.
#pragma once
#include <cstdint>
#include <span>

#include "lb4mpi/types.hpp"

namespace lb4mpi::apps::pisolver_stream {

struct PiParams {
  Index iterations = 20000;      ///< N, iterations of the Pi loop
  std::int64_t substeps = 2000;  ///< M, midpoint sub-steps per iteration
  void validate() const;         ///< throws lb4mpi::Error naming the bad parameter
};

/// value_i: the midpoint-rule integral of 4/(1+x^2) over slice i of [0, 1].
double pi_slice(const PiParams& p, Index i);

/// Fixed-point form of a slice value, so that sums over slices do not depend
/// on their order: round(value * 2^60). Every value is < 4 / N <= 4.
std::int64_t to_fixed(double value);
/// pi from a sum of to_fixed values.
double from_fixed(std::int64_t sum);

struct TriadParams {
  Index elements = 1 << 22;  ///< E, elements of each array
  Index block = 4096;        ///< B, elements per loop iteration
  double scalar = 3.0;       ///< s
  void validate() const;
  /// ceil(E / B), the iterations of the Triad loop.
  [[nodiscard]] Index iterations() const { return (elements + block - 1) / block; }
};

/// The initial contents of b and c: small multiples of 1/4, exact in double,
/// so a[j] and every block sum are exact too.
double triad_b(Index j);
double triad_c(Index j);

/// Fills b and c (each of E elements) with triad_b / triad_c.
void triad_init(std::span<double> b, std::span<double> c);

/// a[j] = b[j] + s c[j] over block i; returns the sum of the block's a[j] in
/// order of j (its result, the same on every rank: exact, see triad_b).
/// The spans are the whole arrays.
double triad_block(const TriadParams& p, Index i, std::span<double> a, std::span<const double> b,
                   std::span<const double> c);

/// The work model of an iteration in the simulation build
/// (apps/common/work.hpp, docs/EXPERIMENTS.md "Work models"): its time on
/// the machine the constants were measured on. bench/bench_kernels.cpp
/// measures them (a Triad element: arrays larger than the caches).
inline constexpr double kSecondsPerSubstep = 1.5e-9;  ///< one midpoint term of a Pi slice
inline constexpr double kSecondsPerElement = 2.4e-9;  ///< one Triad element
inline double pi_modelled_seconds(const PiParams& p) { return kSecondsPerSubstep * static_cast<double>(p.substeps); }
inline double triad_modelled_seconds(const TriadParams& p, Index i) {
  const Index end = (i + 1) * p.block < p.elements ? (i + 1) * p.block : p.elements;
  return kSecondsPerElement * static_cast<double>(end - i * p.block);
}

/// The bit pattern of a double: the "result" whose mix goes into the checksum.
std::uint64_t bits_of(double v);

}  // namespace lb4mpi::apps::pisolver_stream
