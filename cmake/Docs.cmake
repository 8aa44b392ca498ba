# The API reference: `cmake --build <dir> --target docs` runs Doxygen over the
# public headers (docs/api/Doxyfile.in) into <dir>/docs/html. Warnings are
# errors, an undocumented public member is a warning. The test docs.reference
# (labels docs, tools) builds it and checks that named functions of the C
# headers are in it (cmake/DocsCheck.cmake).
find_package(Doxygen QUIET)
if(NOT DOXYGEN_FOUND)
  return()
endif()
set(LB4MPI_DOCS_OUT ${CMAKE_BINARY_DIR}/docs)
# C++ and C (include/lb4mpi), the owned loops' data descriptions, and the
# Fortran module when the tree has one (fortran/).
set(_lb4mpi_docs_dirs ${PROJECT_SOURCE_DIR}/include/lb4mpi ${PROJECT_SOURCE_DIR}/src/stealing/include/lb4mpi/stealing)
if(EXISTS ${PROJECT_SOURCE_DIR}/fortran)
  list(APPEND _lb4mpi_docs_dirs ${PROJECT_SOURCE_DIR}/fortran)
endif()
list(JOIN _lb4mpi_docs_dirs " " LB4MPI_DOCS_INPUT)
configure_file(${PROJECT_SOURCE_DIR}/docs/api/Doxyfile.in ${LB4MPI_DOCS_OUT}/Doxyfile @ONLY)
add_custom_target(docs
  COMMAND Doxygen::doxygen ${LB4MPI_DOCS_OUT}/Doxyfile
  WORKING_DIRECTORY ${LB4MPI_DOCS_OUT}
  COMMENT "API reference (Doxygen) in ${LB4MPI_DOCS_OUT}/html"
  VERBATIM)
# The test runs in one configuration of scripts/test.sh: the one with the
# apps and tools (Open MPI), not the sanitizer, MPICH or simulation builds.
if(LB4MPI_BUILD_TESTS AND LB4MPI_BUILD_TOOLS AND NOT LB4MPI_SANITIZE AND NOT LB4MPI_SIMGRID)
  # Functions of each C header and of the C++ namespace that must be in the
  # reference (cmake/DocsCheck.cmake).
  set(_lb4mpi_docs_expect DLS_Parameters_Setup DLS_StartLoop DLS_EndLoop DLS_StartMLoops
      LB4MPI_Chunk_Calculation_Mode LB4MPI_Owned_for LB4MPI_Items_array parallel_for owned_for run_main)
  list(JOIN _lb4mpi_docs_expect "|" _lb4mpi_docs_expect)
  add_test(NAME docs.reference
           COMMAND ${CMAKE_COMMAND} -DDOXYGEN=${DOXYGEN_EXECUTABLE} -DDOXYFILE=${LB4MPI_DOCS_OUT}/Doxyfile
                   -DHTML=${LB4MPI_DOCS_OUT}/html -DEXPECT=${_lb4mpi_docs_expect}
                   -P ${PROJECT_SOURCE_DIR}/cmake/DocsCheck.cmake)
  set_tests_properties(docs.reference PROPERTIES LABELS "docs;tools" TIMEOUT 60)
endif()
