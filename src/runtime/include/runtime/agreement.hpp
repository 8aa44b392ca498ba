// The collective agreement every loop starts with: all ranks valid, all
// with the same arguments, or the same error on every rank.
#pragma once
#include <mpi.h>

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "lb4mpi/types.hpp"

namespace lb4mpi::rt {

/// Collective over `comm`: every rank passes its local validation result
/// (`error` empty when fine) and a hash of the parameters that all ranks
/// must share. If any rank failed, or the hashes differ, every rank throws
/// the same lb4mpi::Error (the lowest failing rank's message, or `mismatch`
/// when the hashes differ; a default names the loop's arguments). Costs one
/// MPI_Allreduce when all is well.
void agree(MPI_Comm comm, const std::string& error, std::uint64_t hash, const std::string& mismatch = {});

/// What the ranks must pass alike, as (name, value as text) pairs.
using Fields = std::vector<std::pair<std::string, std::string>>;

/// agree(), and when the hashes differ, the error names the first rank that
/// differs from rank 0, the first field that differs and both values ("the
/// ranks disagree on <subject>: range [0, 1001) on rank 1, [0, 1000) on rank
/// 0"). `describe` is called on every rank only then (it costs more than
/// the hash).
void agree(MPI_Comm comm, const std::string& error, std::uint64_t hash, const std::function<Fields()>& describe,
           const std::string& subject = "the loop");

/// The hash agree() compares.
using Hasher = Fingerprint;

}  // namespace lb4mpi::rt
