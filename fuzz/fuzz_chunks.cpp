// libFuzzer entry of target (b), the chunk calculators (check_chunks.hpp).
#include <cstddef>
#include <cstdint>

#include "check_chunks.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  lb4mpi::fuzz::check_chunks(data, size);
  return 0;
}
