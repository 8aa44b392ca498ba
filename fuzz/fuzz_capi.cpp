// libFuzzer entry of target (c), the C API on one rank (check_capi.hpp).
#include <cstddef>
#include <cstdint>

#include "check_capi.hpp"

// Open MPI's start-up leaks memory that LeakSanitizer cannot even name
// (scripts/test.sh): no leak check in this binary.
extern "C" const char* __asan_default_options() { return "detect_leaks=0"; }

extern "C" int LLVMFuzzerInitialize(int* /*argc*/, char*** /*argv*/) {
  lb4mpi::fuzz::init_capi();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  lb4mpi::fuzz::check_capi(data, size);
  return 0;
}
