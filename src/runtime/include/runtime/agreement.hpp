// The collective agreement every loop starts with: all ranks valid, all
// with the same arguments, or the same error on every rank.
#pragma once
#include <mpi.h>

#include <cstdint>
#include <string>

#include "lb4mpi/types.hpp"

namespace lb4mpi::rt {

/// Collective over `comm`: every rank passes its local validation result
/// (`error` empty when fine) and a hash of the parameters that all ranks
/// must share. If any rank failed, or the hashes differ, every rank throws
/// the same lb4mpi::Error (the lowest failing rank's message, or `mismatch`
/// when the hashes differ; a default names the loop's arguments). Costs one
/// MPI_Allreduce when all is well.
void agree(MPI_Comm comm, const std::string& error, std::uint64_t hash, const std::string& mismatch = {});

/// The hash agree() compares.
using Hasher = Fingerprint;

}  // namespace lb4mpi::rt
