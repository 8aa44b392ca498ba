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
# C++ and C (include/lb4mpi) and the owned loops' data descriptions, with
# the main page; the Fortran modules, when the tree has them (fortran/), in a
# run of their own (docs/api/Doxyfile-fortran.in) into <dir>/docs/fortran/html.
# The technique layer's public vocabulary that the interfaces use (Index,
# Chunk, Error, Mode, Technique, TechniqueParams), not its internals
# (ChunkCalculator, PerfTable, selection).
set(_lb4mpi_docs_vocabulary types.hpp mode.hpp techniques/technique.hpp techniques/params.hpp)
list(TRANSFORM _lb4mpi_docs_vocabulary PREPEND ${PROJECT_SOURCE_DIR}/src/techniques/include/lb4mpi/)
set(_lb4mpi_docs_dirs ${PROJECT_SOURCE_DIR}/docs/api/mainpage.md ${PROJECT_SOURCE_DIR}/include/lb4mpi
    ${PROJECT_SOURCE_DIR}/src/stealing/include/lb4mpi/stealing ${_lb4mpi_docs_vocabulary})
list(JOIN _lb4mpi_docs_dirs " " LB4MPI_DOCS_INPUT)
configure_file(${PROJECT_SOURCE_DIR}/docs/api/Doxyfile.in ${LB4MPI_DOCS_OUT}/Doxyfile @ONLY)
set(_lb4mpi_doxyfiles ${LB4MPI_DOCS_OUT}/Doxyfile)
set(_lb4mpi_docs_html ${LB4MPI_DOCS_OUT}/html)
if(EXISTS ${PROJECT_SOURCE_DIR}/fortran)
  configure_file(${PROJECT_SOURCE_DIR}/docs/api/Doxyfile-fortran.in ${LB4MPI_DOCS_OUT}/fortran/Doxyfile @ONLY)
  list(APPEND _lb4mpi_doxyfiles ${LB4MPI_DOCS_OUT}/fortran/Doxyfile)
  list(APPEND _lb4mpi_docs_html ${LB4MPI_DOCS_OUT}/fortran/html)
endif()
set(_lb4mpi_docs_commands "")
foreach(_doxyfile IN LISTS _lb4mpi_doxyfiles)
  list(APPEND _lb4mpi_docs_commands COMMAND Doxygen::doxygen ${_doxyfile})
endforeach()
add_custom_target(docs
  ${_lb4mpi_docs_commands}
  WORKING_DIRECTORY ${LB4MPI_DOCS_OUT}
  COMMENT "API reference (Doxygen) in ${LB4MPI_DOCS_OUT}/html (Fortran: ${LB4MPI_DOCS_OUT}/fortran/html)"
  VERBATIM)
# The test runs in one configuration of scripts/test.sh: the one with the
# apps and tools (Open MPI), not the sanitizer, MPICH or simulation builds.
if(LB4MPI_BUILD_TESTS AND LB4MPI_BUILD_TOOLS AND NOT LB4MPI_SANITIZE AND NOT LB4MPI_SIMGRID)
  # Functions of each C header, of the C++ namespace and of each Fortran
  # module that must be in the reference (cmake/DocsCheck.cmake).
  set(_lb4mpi_docs_expect DLS_Parameters_Setup DLS_StartLoop DLS_EndLoop DLS_StartMLoops
      LB4MPI_Chunk_Calculation_Mode LB4MPI_Owned_for LB4MPI_Items_array parallel_for owned_for run_main
      all_techniques)
  if(EXISTS ${PROJECT_SOURCE_DIR}/fortran)
    list(APPEND _lb4mpi_docs_expect dls_startloop dls_endloop lb4mpi_finish)  # Doxygen lowercases Fortran names
  endif()
  list(JOIN _lb4mpi_docs_expect "|" _lb4mpi_docs_expect)
  list(JOIN _lb4mpi_doxyfiles "|" _lb4mpi_docs_doxyfiles)
  list(JOIN _lb4mpi_docs_html "|" _lb4mpi_docs_html)
  add_test(NAME docs.reference
           COMMAND ${CMAKE_COMMAND} -DDOXYGEN=${DOXYGEN_EXECUTABLE} -DDOXYFILES=${_lb4mpi_docs_doxyfiles}
                   -DHTML=${_lb4mpi_docs_html} -DEXPECT=${_lb4mpi_docs_expect}
                   -P ${PROJECT_SOURCE_DIR}/cmake/DocsCheck.cmake)
  set_tests_properties(docs.reference PROPERTIES LABELS "docs;tools" TIMEOUT 60)
endif()
