# CTest registration of tools/fepia/lb4mpi_fepia.py (label tools): the
# robustness metrics of 004 §4.1 on hand-made run summaries, checked against
# numbers worked out by hand in test_fepia.py, and its errors on bad input.
# The tool needs only Python 3's standard library: the first of
# LB4MPI_PLOT_PYTHON, Python3_EXECUTABLE, python3 on the PATH and
# /usr/bin/python3 that runs.
set(_lb4mpi_fepia ${CMAKE_CURRENT_LIST_DIR}/../../tools/fepia/lb4mpi_fepia.py)
get_filename_component(_lb4mpi_fepia ${_lb4mpi_fepia} ABSOLUTE)
find_package(Python3 QUIET COMPONENTS Interpreter)
find_program(_lb4mpi_fepia_path_python3 NAMES python3)
set(_lb4mpi_fepia_python "")
foreach(_py IN ITEMS ${LB4MPI_PLOT_PYTHON} ${Python3_EXECUTABLE} ${_lb4mpi_fepia_path_python3} /usr/bin/python3)
  if(_py AND EXISTS "${_py}")
    execute_process(COMMAND ${_py} -c "import sys; sys.exit(sys.version_info < (3, 7))"
                    RESULT_VARIABLE _rc OUTPUT_QUIET ERROR_QUIET)
    if(_rc EQUAL 0)
      set(_lb4mpi_fepia_python ${_py})
      break()
    endif()
  endif()
endforeach()
if(NOT _lb4mpi_fepia_python)
  message(STATUS "No Python 3.7 or newer found: the tools.fepia test is skipped")
  return()
endif()
add_test(NAME tools.fepia
  COMMAND ${_lb4mpi_fepia_python} ${CMAKE_CURRENT_LIST_DIR}/test_fepia.py ${_lb4mpi_fepia}
          ${CMAKE_CURRENT_BINARY_DIR}/fepia)
set_tests_properties(tools.fepia PROPERTIES LABELS "tools" TIMEOUT 60)
