// What a fuzz check does when something that must hold does not: print what
// and abort, which libFuzzer reports as a crash (saving the input) and the
// replay driver as a failed test.
#pragma once
#include <cstdio>
#include <cstdlib>
#include <string>

namespace lb4mpi::fuzz {

[[noreturn]] inline void fail(const std::string& what) {
  std::fprintf(stderr, "fuzz check failed: %s\n", what.c_str());
  std::fflush(stderr);
  std::abort();
}

/// `what` is built only on failure: pass a callable returning the message.
template <class Describe>
void expect(bool ok, Describe&& describe) {
  if (!ok) fail(describe());
}

}  // namespace lb4mpi::fuzz
