# lb4mpi_add_mpi_test(NAME <name> RANKS <n> COMMAND <exe> [args...] [TIMEOUT s] [LABELS ...])
# Runs <exe> under MPIEXEC with <n> ranks as a CTest test labelled `mpi`.
# Open MPI as root needs the two ALLOW_RUN_AS_ROOT variables; more ranks than
# cores need oversubscription (set by environment so MPICH ignores it).
function(lb4mpi_add_mpi_test)
  cmake_parse_arguments(T "" "NAME;RANKS;TIMEOUT" "COMMAND;LABELS" ${ARGN})
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 300)
  endif()
  add_test(NAME ${T_NAME}
           COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${T_RANKS} ${MPIEXEC_PREFLAGS}
                   ${T_COMMAND} ${MPIEXEC_POSTFLAGS})
  # A rank counts one processor: scripts/test.sh runs ctest with twice as
  # many slots as cores (MPI tests wait much of their time), so at most two
  # ranks share a core; ctest runs a test of more ranks than slots alone.
  set_tests_properties(${T_NAME} PROPERTIES
    TIMEOUT ${T_TIMEOUT}
    LABELS "mpi;${T_LABELS}"
    PROCESSORS ${T_RANKS}
    ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OMPI_MCA_rmaps_base_oversubscribe=1;OMPI_MCA_btl_vader_single_copy_mechanism=none")
endfunction()

# lb4mpi_add_mpi_failure_test(NAME <name> RANKS <n> TEXT <regex> [COUNT <k>] [CODE <c>] [LABELS ...] COMMAND <exe> [args...])
# Runs <exe> on <n> ranks and passes when the job fails (with exit code <c>
# if given) and its output matches <regex> at least <k> times (e.g. once per rank).
function(lb4mpi_add_mpi_failure_test)
  cmake_parse_arguments(T "" "NAME;RANKS;TEXT;COUNT;CODE;MAX" "COMMAND;LABELS" ${ARGN})
  if(NOT T_COUNT)
    set(T_COUNT 1)
  endif()
  set(code_arg "")
  if(DEFINED T_CODE)
    set(code_arg "-DEXPECT_CODE=${T_CODE}")
  endif()
  if(DEFINED T_MAX)  # at most MAX times (e.g. 1: once per job, not once per rank)
    list(APPEND code_arg "-DEXPECT_MAX=${T_MAX}")
  endif()
  set(cmd_list ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${T_RANKS} ${MPIEXEC_PREFLAGS} ${T_COMMAND})
  string(REPLACE ";" "|" cmd "${cmd_list}")
  add_test(NAME ${T_NAME}
           COMMAND ${CMAKE_COMMAND} "-DCMD=${cmd}" "-DEXPECT_TEXT=${T_TEXT}" -DEXPECT_COUNT=${T_COUNT} ${code_arg}
                   -P ${PROJECT_SOURCE_DIR}/cmake/ExpectFailure.cmake)
  set_tests_properties(${T_NAME} PROPERTIES TIMEOUT 150 LABELS "mpi;${T_LABELS}" PROCESSORS ${T_RANKS}
    ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OMPI_MCA_rmaps_base_oversubscribe=1;OMPI_MCA_btl_vader_single_copy_mechanism=none")
endfunction()
