// The C interface's numbers for techniques and modes (lb4mpi.h), mapped to
// lb4mpi's types. The technique ids come from the technique layer's table:
// `000` Table 4.1's id where a technique has one, else 100, 101, ... for the
// others in canonical order (LB4MPI_TAP = 100 ... LB4MPI_PLS = 106), then
// LB4MPI_AUTO = 107 for automatic selection.
#pragma once
#include "lb4mpi/options.hpp"

namespace lb4mpi::capi {

/// Throws lb4mpi::Error naming the valid ids.
Technique technique_of(int method);
Mode mode_of(int c_mode);
int c_mode_of(Mode m);

}  // namespace lb4mpi::capi
