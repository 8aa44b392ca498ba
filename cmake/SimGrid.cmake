# The simulation build (-DLB4MPI_SIMGRID=ON): the library and the apps built
# against SimGrid's SMPI (Debian libsimgrid-dev), so that they run on a
# simulated cluster of hundreds of ranks under smpirun (docs/EXPERIMENTS.md).
# Included by the top-level CMakeLists.txt before anything looks for MPI.
#
# What differs from a native build, and only here:
#   - MPI is SMPI: its mpi.h (/usr/include/smpi) and libsimgrid. FindMPI is
#     told so (MPI_<LANG>_LIB_NAMES, ..._COMPILER_INCLUDE_DIRS), so every
#     find_package(MPI) of the tree finds it and MPI::MPI_C / MPI::MPI_CXX
#     carry it.
#   - Programs are shared objects (-shared, -fPIC): smpirun loads each into
#     every simulated rank (dlopen), and glibc does not dlopen an executable.
#   - Libraries are static (BUILD_SHARED_LIBS is forced OFF): smpirun gives
#     each simulated rank its own copy of the program's global variables
#     (smpi/privatization), but not of the shared libraries it loads; lb4mpi's
#     globals (the channel lists, counters) must be per rank.
#   - The platform layer is src/platform/simgrid (the simulated clock,
#     simulated computation, blocking waits): src/platform/CMakeLists.txt.
#   - Only the library, the apps and the simulation tests (tests/sim) are
#     built: the benchmarks, the fuzzers, the PMPI perturbation library and
#     the tests under mpiexec are native things.
#
# We compile with the ordinary compiler and SMPI's headers, not through
# smpicc/smpicxx: those force-include smpi_helpers.h, whose macros (exit,
# sleep, gettimeofday, malloc, ...) reach into every header after it (CLI11
# declares a member function exit), and lb4mpi needs none of them: its clock
# and its simulated work are explicit (src/platform/simgrid/platform/platform.hpp).
if(NOT LB4MPI_WITH_MPI)
  message(FATAL_ERROR "LB4MPI_SIMGRID=ON needs LB4MPI_WITH_MPI=ON: the simulation build is of the MPI runtime and the apps")
endif()
find_path(LB4MPI_SMPI_INCLUDE_DIR mpi.h PATHS /usr/include/smpi /usr/local/include/smpi NO_DEFAULT_PATH
          DOC "SimGrid's SMPI headers (mpi.h)")
find_library(LB4MPI_SIMGRID_LIBRARY simgrid DOC "libsimgrid (SMPI)")
find_program(LB4MPI_SMPIRUN smpirun DOC "SimGrid's smpirun")
if(NOT LB4MPI_SMPI_INCLUDE_DIR OR NOT LB4MPI_SIMGRID_LIBRARY OR NOT LB4MPI_SMPIRUN)
  message(FATAL_ERROR "LB4MPI_SIMGRID=ON needs SimGrid's SMPI (smpirun, smpi/mpi.h, libsimgrid); on Debian: "
                      "apt-get install --no-install-recommends libsimgrid-dev "
                      "(found: headers '${LB4MPI_SMPI_INCLUDE_DIR}', library '${LB4MPI_SIMGRID_LIBRARY}', "
                      "smpirun '${LB4MPI_SMPIRUN}')")
endif()
cmake_path(GET LB4MPI_SMPI_INCLUDE_DIR PARENT_PATH _lb4mpi_simgrid_include_root)  # simgrid/*.h, xbt/*.h
foreach(lang C CXX)
  set(MPI_${lang}_LIB_NAMES "simgrid" CACHE STRING "" FORCE)
  set(MPI_${lang}_COMPILER_INCLUDE_DIRS "${LB4MPI_SMPI_INCLUDE_DIR};${_lb4mpi_simgrid_include_root}" CACHE STRING "" FORCE)
endforeach()
set(MPI_simgrid_LIBRARY "${LB4MPI_SIMGRID_LIBRARY}" CACHE FILEPATH "" FORCE)
set(MPI_CXX_SKIP_MPICXX ON CACHE BOOL "" FORCE)
set(MPIEXEC_EXECUTABLE "${LB4MPI_SMPIRUN}" CACHE FILEPATH "" FORCE)
set(MPIEXEC_NUMPROC_FLAG "-np" CACHE STRING "" FORCE)

set(BUILD_SHARED_LIBS OFF CACHE BOOL "Build liblb4mpi and liblb4mpi_techniques as shared libraries" FORCE)
add_compile_options(-fPIC)  # position-independent code everywhere, programs too (not -fPIE: they are shared objects)
add_link_options("$<$<STREQUAL:$<TARGET_PROPERTY:TYPE>,EXECUTABLE>:-shared>")
set(LB4MPI_BUILD_BENCH OFF CACHE BOOL "" FORCE)
set(LB4MPI_FUZZ OFF CACHE BOOL "" FORCE)
if(LB4MPI_SANITIZE)
  message(FATAL_ERROR "LB4MPI_SIMGRID=ON and LB4MPI_SANITIZE=ON do not go together: SimGrid switches "
                      "between its simulated processes' stacks, which AddressSanitizer does not follow")
endif()
message(STATUS "Simulation build: SMPI from ${LB4MPI_SMPI_INCLUDE_DIR}, ${LB4MPI_SIMGRID_LIBRARY}, ${LB4MPI_SMPIRUN}")
