#include "pisolver_stream_kernel.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <string>

namespace lb4mpi::apps::pisolver_stream {

namespace {
constexpr double kFixedScale = 0x1.0p60;  // 2^60
}

void PiParams::validate() const {
  if (iterations < 1)
    throw Error("pisolver-stream: --pi-iterations must be >= 1, got " + std::to_string(iterations));
  if (substeps < 1)
    throw Error("pisolver-stream: --pi-substeps must be >= 1, got " + std::to_string(substeps));
  // x_k's index i M + k must stay exact in a double (2^53).
  if (static_cast<double>(iterations) * static_cast<double>(substeps) > 0x1.0p53)
    throw Error("pisolver-stream: --pi-iterations x --pi-substeps must be <= 2^53");
}

double pi_slice(const PiParams& p, Index i) {
  const double h = 1.0 / (static_cast<double>(p.iterations) * static_cast<double>(p.substeps));
  const double first = static_cast<double>(i) * static_cast<double>(p.substeps);
  double sum = 0.0;
  for (std::int64_t k = 0; k < p.substeps; ++k) {
    const double x = (first + static_cast<double>(k) + 0.5) * h;
    sum += 4.0 / (1.0 + x * x);
  }
  return sum * h;
}

std::int64_t to_fixed(double value) { return std::llround(value * kFixedScale); }

double from_fixed(std::int64_t sum) { return static_cast<double>(sum) / kFixedScale; }

void TriadParams::validate() const {
  if (elements < 1)
    throw Error("pisolver-stream: --triad-elements must be >= 1, got " + std::to_string(elements));
  if (block < 1)
    throw Error("pisolver-stream: --triad-block must be >= 1, got " + std::to_string(block));
  // Block sums stay exact while B * max|a| fits in 2^53 quarters (see triad_b).
  if (block > (Index{1} << 40))
    throw Error("pisolver-stream: --triad-block too large, got " + std::to_string(block));
  if (!std::isfinite(scalar)) throw Error("pisolver-stream: the Triad scalar must be finite");
}

double triad_b(Index j) { return 0.5 * static_cast<double>(j % 1021); }
double triad_c(Index j) { return 0.25 * static_cast<double>(j % 977); }

void triad_init(std::span<double> b, std::span<double> c) {
  for (std::size_t j = 0; j < b.size(); ++j) b[j] = triad_b(static_cast<Index>(j));
  for (std::size_t j = 0; j < c.size(); ++j) c[j] = triad_c(static_cast<Index>(j));
}

double triad_block(const TriadParams& p, Index i, std::span<double> a, std::span<const double> b,
                   std::span<const double> c) {
  const auto begin = static_cast<std::size_t>(i * p.block);
  const auto end = static_cast<std::size_t>(std::min((i + 1) * p.block, p.elements));
  const double s = p.scalar;
  double* __restrict pa = a.data();
  const double* __restrict pb = b.data();
  const double* __restrict pc = c.data();
  for (std::size_t j = begin; j < end; ++j) pa[j] = pb[j] + s * pc[j];
  // The block's result, summed in order after the store loop (which can
  // stream); the block is still in cache for this pass.
  double sum = 0.0;
  for (std::size_t j = begin; j < end; ++j) sum += pa[j];
  return sum;
}

std::uint64_t bits_of(double v) { return std::bit_cast<std::uint64_t>(v); }

}  // namespace lb4mpi::apps::pisolver_stream
