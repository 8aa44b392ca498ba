// Basic vocabulary types shared by every layer of lb4mpi.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>

namespace lb4mpi {

/// Iteration indices and counts are 64-bit everywhere.
using Index = std::int64_t;

/// A contiguous range of iterations [begin, begin + size).
struct Chunk {
  Index begin = 0;
  Index size = 0;
  [[nodiscard]] Index end() const { return begin + size; }
};

/// Every error lb4mpi reports to its user: bad configuration, bad input,
/// a failed MPI call. The message names what is wrong and the valid choices.
class Error : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

}  // namespace lb4mpi
