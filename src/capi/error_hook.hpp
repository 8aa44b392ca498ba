// Internal to the C API (not installed, not in include/): a seam through which
// a test program can keep the process alive when a DLS_* call fails.
//
// The C functions return void, so an error ends the job: the message goes to
// stderr and the process exits with status 2 (MPI_Abort for misuse one rank
// sees, MPI_Finalize + exit after a collective agreement; see capi.cpp). A
// libFuzzer target cannot survive that, and it runs thousands of call
// sequences in one process. With a hook set, the C API calls it with the
// message first; a hook that throws makes the failing call throw instead of
// ending the process (nothing is printed). Without a hook — the default and
// the only state a normal program sees — nothing changes.
#pragma once
#include <string>

namespace lb4mpi::capi {

/// Receives the message of an error that is about to end the job.
using ErrorHook = void (*)(const std::string& message);

/// Installs `hook` (nullptr: none). Not thread-safe; set it before any DLS_* call.
void set_error_hook(ErrorHook hook);
[[nodiscard]] ErrorHook error_hook();

/// Forgets everything the C API holds in this process, as if no DLS_* call
/// had been made: releases every handle that DLS_Parameters_Setup set up
/// (handles the caller still holds become unknown handles), and clears the
/// process-wide settings (Configure_Chunk_Calculation_Mode, DLS_NumLoops
/// before setup, an error kept for the next collective call). For a test
/// that runs many independent call sequences in one process, after an error
/// thrown by the hook: the process would have ended there.
void reset_for_testing();

}  // namespace lb4mpi::capi
