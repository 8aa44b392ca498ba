// libFuzzer entry of target (a), option and environment parsing (check_options.hpp).
#include <cstddef>
#include <cstdint>

#include "check_options.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  lb4mpi::fuzz::check_options(data, size);
  return 0;
}
