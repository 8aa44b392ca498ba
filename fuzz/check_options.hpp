// Fuzz target (a), options and environment parsing: technique names and ids
// (parse_technique), modes (parse_mode), and Options::from_env over random
// values of the LB4MPI_* variables (numbers, lists, booleans, names), with
// validate(), fingerprint() and unknown_variables() on the result.
#pragma once
#include <cstddef>
#include <cstdint>

namespace lb4mpi::fuzz {

/// Decodes `data` into a sequence of parse calls and environment changes
/// and checks each against a reading of docs/OPTIONS.md and TECHNIQUES.md:
/// every call returns the documented value, or throws lb4mpi::Error with a
/// message (naming the variable, for from_env). Aborts otherwise. Sets and
/// clears LB4MPI_* variables of this process.
void check_options(const std::uint8_t* data, std::size_t size);

}  // namespace lb4mpi::fuzz
