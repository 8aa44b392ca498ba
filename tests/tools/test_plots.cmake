# CTest registration of the plot tools (label `tools`):
#   tools/plot/lb4mpi_gantt.py       on a trace written by a small MPI run
#   tools/plot/lb4mpi_chunk_plot.py  on lb4mpi-chunks CSV output (file and stdin)
# and their errors on bad input. Include it from tests/CMakeLists.txt, after
# apps/ and tools/ have defined their targets:
#   include(${CMAKE_CURRENT_SOURCE_DIR}/tools/test_plots.cmake)
#
# The tools need a Python 3 with matplotlib (LB4MPI_PLOT_PYTHON,
# cmake/PlotPython.cmake). Without one, the tests are not registered.
set(_lb4mpi_plot_dir ${CMAKE_CURRENT_LIST_DIR}/../../tools/plot)
get_filename_component(_lb4mpi_plot_dir ${_lb4mpi_plot_dir} ABSOLUTE)
set(_lb4mpi_plot_check ${CMAKE_CURRENT_LIST_DIR}/check_plot.cmake)
set(_lb4mpi_plot_out ${CMAKE_CURRENT_BINARY_DIR}/plots)
file(MAKE_DIRECTORY ${_lb4mpi_plot_out})

include(${PROJECT_SOURCE_DIR}/cmake/PlotPython.cmake)
if(NOT LB4MPI_PLOT_PYTHON)
  message(STATUS "No Python 3 with matplotlib found: the tools.plot tests are skipped "
                 "(apt install python3-matplotlib, or set LB4MPI_PLOT_PYTHON)")
  return()
endif()
message(STATUS "Plot tools' tests use ${LB4MPI_PLOT_PYTHON}")

set(_gantt ${LB4MPI_PLOT_PYTHON} ${_lb4mpi_plot_dir}/lb4mpi_gantt.py)
set(_chunk_plot ${LB4MPI_PLOT_PYTHON} ${_lb4mpi_plot_dir}/lb4mpi_chunk_plot.py)

# lb4mpi_plot_test(<name> [FIXTURES f...] [SETUP f] [ENV v=x...] [LABELS l...] CHECK <check_plot.cmake -D args>
#                  COMMAND <command...>)
function(lb4mpi_plot_test name)
  cmake_parse_arguments(PARSE_ARGV 1 T "" "SETUP" "FIXTURES;ENV;LABELS;CHECK;COMMAND")
  string(REPLACE ";" "|" cmd "${T_COMMAND}")
  add_test(NAME tools.plot.${name}
    COMMAND ${CMAKE_COMMAND} "-DCMD=${cmd}" ${T_CHECK} -P ${_lb4mpi_plot_check})
  set_tests_properties(tools.plot.${name} PROPERTIES LABELS "tools;${T_LABELS}" TIMEOUT 120)
  if(T_FIXTURES)
    set_tests_properties(tools.plot.${name} PROPERTIES FIXTURES_REQUIRED "${T_FIXTURES}")
  endif()
  if(T_SETUP)
    set_tests_properties(tools.plot.${name} PROPERTIES FIXTURES_SETUP ${T_SETUP})
  endif()
  if(T_ENV)
    set_tests_properties(tools.plot.${name} PROPERTIES ENVIRONMENT "${T_ENV}")
  endif()
endfunction()

# --- Inputs -----------------------------------------------------------------------
# A trace from a small MPI run: lb4mpi-synthetic, 3 ranks, 2 time steps, with
# LB4MPI_TRACE set to a path without extension (so both .json and .csv).
set(_trace ${_lb4mpi_plot_out}/synthetic_trace)
set(_have_trace OFF)
if(TARGET synthetic AND MPIEXEC_EXECUTABLE)
  set(_have_trace ON)
  set(_mpi_cmd ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 3 ${MPIEXEC_PREFLAGS} $<TARGET_FILE:synthetic>
               ${MPIEXEC_POSTFLAGS} --iterations 3000 --distribution gamma --mean-us 40 --cov 1.5
               --technique FAC2 --repeat 2)
  lb4mpi_plot_test(make_trace SETUP plot_trace LABELS mpi
    ENV OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
        LB4MPI_TRACE=${_trace}
    CHECK "-DEXPECT_FILES=${_trace}.json|${_trace}.csv" -DSTDOUT_FILE=${_lb4mpi_plot_out}/synthetic_summary.json
    COMMAND ${_mpi_cmd})
  set_tests_properties(tools.plot.make_trace PROPERTIES PROCESSORS 2)
else()
  message(STATUS "lb4mpi-synthetic or mpiexec missing: the gantt tests on a real trace are skipped")
endif()

# lb4mpi-chunks CSV: every technique (one file, technique column) and FAC2 alone.
if(TARGET lb4mpi-chunks)
  lb4mpi_plot_test(make_chunks_all SETUP plot_chunks_all
    CHECK -DSTDOUT_FILE=${_lb4mpi_plot_out}/chunks_all.csv "-DEXPECT_FILES=${_lb4mpi_plot_out}/chunks_all.csv"
    COMMAND $<TARGET_FILE:lb4mpi-chunks> --format csv --iterations 1000 --ranks 4)
  lb4mpi_plot_test(make_chunks_fac2 SETUP plot_chunks_fac2
    CHECK -DSTDOUT_FILE=${_lb4mpi_plot_out}/fac2.csv "-DEXPECT_FILES=${_lb4mpi_plot_out}/fac2.csv"
    COMMAND $<TARGET_FILE:lb4mpi-chunks> --technique FAC2 --format csv --iterations 1000 --ranks 4)
endif()

# --loop/--step zoom the time axis to the selection (issue 34).
add_test(NAME tools.plot.gantt_zoom
  COMMAND ${LB4MPI_PLOT_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/test_gantt_zoom.py
          ${_lb4mpi_plot_dir}/lb4mpi_gantt.py ${_lb4mpi_plot_out})
set_tests_properties(tools.plot.gantt_zoom PROPERTIES LABELS "tools" TIMEOUT 120)
# A python3 first on PATH without matplotlib (as pyenv's often is; here the
# plot Python without its site-packages): the script runs itself again with
# a python3 that has it, and says so (issue 34, tools/plot/lb4mpi_python.py):
# gantt_csv_one_step runs with it.
set(_no_mpl ${_lb4mpi_plot_out}/python-without-matplotlib)
file(MAKE_DIRECTORY ${_no_mpl})
file(WRITE ${_no_mpl}/python3 "#!/bin/sh\n# a python3 without site-packages: no matplotlib\nexec ${LB4MPI_PLOT_PYTHON} -S \"$@\"\n")
file(CHMOD ${_no_mpl}/python3 PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE
     WORLD_READ WORLD_EXECUTE)
# --- lb4mpi_gantt.py ------------------------------------------------------------------
# The tests on the real trace carry the label `mpi` too: ctest pulls a fixture's
# setup test (make_trace, an MPI run) into any pass that selects a test needing
# it, so a `-LE mpi` pass must not select them either.
if(_have_trace)
  lb4mpi_plot_test(gantt_json FIXTURES plot_trace LABELS mpi
    CHECK -DPNG=${_lb4mpi_plot_out}/gantt.png
    COMMAND ${_gantt} ${_trace}.json -o ${_lb4mpi_plot_out}/gantt.png)
  lb4mpi_plot_test(gantt_csv_one_step FIXTURES plot_trace LABELS mpi
    ENV "PATH=${_no_mpl}:$ENV{PATH}"
    CHECK -DPNG=${_lb4mpi_plot_out}/gantt_step1.png
          "-DSTDERR_REGEX=matplotlib is not available to [^ ]+. running with [^ ]*python3"
    COMMAND ${_no_mpl}/python3 ${_lb4mpi_plot_dir}/lb4mpi_gantt.py ${_trace}.csv
            -o ${_lb4mpi_plot_out}/gantt_step1.png --loop 0 --step 1
            --title "FAC2, second time step")
  lb4mpi_plot_test(gantt_no_such_loop FIXTURES plot_trace LABELS mpi
    CHECK -DEXPECT_RC=2 "-DSTDERR_REGEX=no chunk events for the selected"
    COMMAND ${_gantt} ${_trace}.json -o ${_lb4mpi_plot_out}/never.png --loop 99)
endif()
# Continuation events (loops in flight together) on a hand-made trace: read, drawn, not counted as chunks.
add_test(NAME tools.plot.gantt_continuations
  COMMAND ${LB4MPI_PLOT_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/test_gantt_continuations.py
          ${_lb4mpi_plot_dir}/lb4mpi_gantt.py ${_lb4mpi_plot_out})
set_tests_properties(tools.plot.gantt_continuations PROPERTIES LABELS "tools" TIMEOUT 120)
lb4mpi_plot_test(gantt_missing_file
  CHECK -DEXPECT_RC=2 "-DSTDERR_REGEX=cannot read the trace '.*no_such_trace.json'"
  COMMAND ${_gantt} ${_lb4mpi_plot_out}/no_such_trace.json -o ${_lb4mpi_plot_out}/never.png)
lb4mpi_plot_test(gantt_invalid_json
  CHECK -DEXPECT_RC=2 "-DSTDERR_REGEX=is not valid JSON" -DMAKE_FILE=${_lb4mpi_plot_out}/truncated.json
        "-DMAKE_CONTENT={traceEvents: [ truncated"
  COMMAND ${_gantt} ${_lb4mpi_plot_out}/truncated.json -o ${_lb4mpi_plot_out}/never.png)
lb4mpi_plot_test(gantt_chunks_csv_given
  CHECK -DEXPECT_RC=2 "-DSTDERR_REGEX=looks like lb4mpi-chunks output"
  COMMAND ${_gantt} ${CMAKE_CURRENT_LIST_DIR}/../../tools/chunks/expected_gss_closed_n1000_p4.csv)

# --- lb4mpi_chunk_plot.py -------------------------------------------------------------
if(TARGET lb4mpi-chunks)
  lb4mpi_plot_test(chunks_two_files FIXTURES plot_chunks_fac2
    CHECK -DPNG=${_lb4mpi_plot_out}/chunks_gss_fac2.png
    COMMAND ${_chunk_plot} ${CMAKE_CURRENT_LIST_DIR}/../../tools/chunks/expected_gss_closed_n1000_p4.csv
            ${_lb4mpi_plot_out}/fac2.csv --labels "GSS (closed)" FAC2 --title "N = 1000, P = 4"
            -o ${_lb4mpi_plot_out}/chunks_gss_fac2.png)
  lb4mpi_plot_test(chunks_stdin_all FIXTURES plot_chunks_all
    CHECK -DPNG=${_lb4mpi_plot_out}/chunks_all.png -DSTDIN_FILE=${_lb4mpi_plot_out}/chunks_all.csv
    COMMAND ${_chunk_plot} - -o ${_lb4mpi_plot_out}/chunks_all.png)
endif()
if(_have_trace)
  lb4mpi_plot_test(chunks_from_trace_csv FIXTURES plot_trace LABELS mpi
    CHECK -DPNG=${_lb4mpi_plot_out}/chunks_trace.png
    COMMAND ${_chunk_plot} ${_trace}.csv -o ${_lb4mpi_plot_out}/chunks_trace.png)
endif()
lb4mpi_plot_test(chunks_bad_header
  CHECK -DEXPECT_RC=2 "-DSTDERR_REGEX=expected step,start,size" -DMAKE_FILE=${_lb4mpi_plot_out}/bad_header.csv
        "-DMAKE_CONTENT=a,b,c"
  COMMAND ${_chunk_plot} ${_lb4mpi_plot_out}/bad_header.csv -o ${_lb4mpi_plot_out}/never.png)
lb4mpi_plot_test(chunks_label_count
  CHECK -DEXPECT_RC=2 "-DSTDERR_REGEX=--labels gives 2 label"
  COMMAND ${_chunk_plot} ${CMAKE_CURRENT_LIST_DIR}/../../tools/chunks/expected_gss_closed_n1000_p4.csv
          --labels a b -o ${_lb4mpi_plot_out}/never.png)
