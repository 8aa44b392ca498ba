// Options from the environment for a front end that takes some of them
// from its own arguments (the C API: the method is DLS_StartLoop's).
#pragma once
#include <string_view>

#include "lb4mpi/options.hpp"

namespace lb4mpi::detail {

/// Options::from_env(base) without reading `ignored` (a variable name, e.g.
/// "LB4MPI_SCHEDULING"): a value there, even a bad one, changes nothing.
Options from_env_ignoring(Options base, std::string_view ignored);

}  // namespace lb4mpi::detail
