# The experiment runner (tools/experiments, docs/EXPERIMENTS.md), label tools:
#   tools.experiment.errors  bad designs are refused with exit 2 and a message
#                            naming the valid choices (no MPI)
#   tools.experiment.native  a tiny native design (experiment-native.json: the
#                            synthetic app on 2 ranks, 4 runs, traced): CSV,
#                            equal checksums, the hand-out figures, figures
#                            (resumption: sim.smoke in the simulation build)
# Both need a Python 3 with matplotlib (cmake/PlotPython.cmake) and run where
# the apps are built (the Open MPI configuration of scripts/test.sh; the
# errors need no app, but one configuration running them is enough). Included
# from tests/CMakeLists.txt.
if(NOT TARGET synthetic)
  return()
endif()
include(${PROJECT_SOURCE_DIR}/cmake/PlotPython.cmake)
if(NOT LB4MPI_PLOT_PYTHON)
  message(STATUS "No Python 3 with matplotlib found: the tools.experiment tests are skipped")
  return()
endif()
set(_check ${CMAKE_CURRENT_LIST_DIR}/check_experiment.py)
add_test(NAME tools.experiment.errors
         COMMAND ${LB4MPI_PLOT_PYTHON} ${_check} errors --out ${CMAKE_CURRENT_BINARY_DIR}/experiment-errors)
set_tests_properties(tools.experiment.errors PROPERTIES LABELS "tools" TIMEOUT 120)
add_test(NAME tools.experiment.native
         COMMAND ${LB4MPI_PLOT_PYTHON} ${_check} run --design ${CMAKE_CURRENT_LIST_DIR}/experiment-native.json
                 --out ${CMAKE_CURRENT_BINARY_DIR}/experiment-native --native-build ${PROJECT_BINARY_DIR}
                 --mpiexec ${MPIEXEC_EXECUTABLE})
set_tests_properties(tools.experiment.native PROPERTIES LABELS "tools;mpi" TIMEOUT 120 PROCESSORS 2)
