# LB4MPI_PLOT_PYTHON: a Python 3 that imports matplotlib, for the tests of the
# tools that draw (tools/plot, tools/experiments). FindPython may pick one
# without it (a pyenv shim, a venv), so the first of Python3_EXECUTABLE,
# python3 on the PATH and /usr/bin/python3 that imports matplotlib is taken;
# set LB4MPI_PLOT_PYTHON to choose. Empty when there is none.
if(NOT LB4MPI_PLOT_PYTHON)
  find_package(Python3 QUIET COMPONENTS Interpreter)
  find_program(_lb4mpi_path_python3 NAMES python3)
  set(_candidates ${Python3_EXECUTABLE} ${_lb4mpi_path_python3} /usr/bin/python3)
  list(REMOVE_DUPLICATES _candidates)
  foreach(_py IN LISTS _candidates)
    if(_py AND EXISTS "${_py}")
      execute_process(COMMAND ${_py} -c "import matplotlib" RESULT_VARIABLE _rc OUTPUT_QUIET ERROR_QUIET)
      if(_rc EQUAL 0)
        set(LB4MPI_PLOT_PYTHON ${_py} CACHE FILEPATH "Python 3 with matplotlib, for the plot tools' tests")
        break()
      endif()
    endif()
  endforeach()
endif()
