// Fuzz target (c), the C API on one rank: random sequences of DLS_* calls,
// in and out of order, with bad arguments and bad handles. See docs/FUZZING.md.
#pragma once
#include <cstddef>
#include <cstdint>

namespace lb4mpi::fuzz {

/// MPI_Init (once per process; MPI_Finalize at exit) and the C API's error
/// hook, which makes an error that would end the job throw instead.
void init_capi();

/// Decodes `data` into a sequence of C API calls and checks: a call either
/// succeeds or raises an error whose message starts with "lb4mpi"; chunks
/// handed out lie in their loop, never overlap, and cover the loop once
/// DLS_Terminated / DLS_MTerminated say it is done; DLS_EndLoop and
/// DLS_EndMLoops report every iteration. The first error ends the sequence
/// (the job would have ended); the C API's state is then reset. Aborts on a
/// violated check.
void check_capi(const std::uint8_t* data, std::size_t size);

}  // namespace lb4mpi::fuzz
