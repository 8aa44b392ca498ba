# The apps' work models: what a unit of each kernel's work costs
# (bench_kernels.cpp; docs/EXPERIMENTS.md, "Work models").
# bench/CMakeLists.txt includes every bench/*.cmake.
if(TARGET lb4mpi_apps_kernels)
  add_executable(bench_kernels ${CMAKE_CURRENT_LIST_DIR}/bench_kernels.cpp)
  target_link_libraries(bench_kernels PRIVATE lb4mpi_apps_kernels benchmark::benchmark lb4mpi_flags)
  if(LB4MPI_BUILD_TESTS)
    add_test(NAME bench.kernels.smoke COMMAND bench_kernels --benchmark_min_time=0.001)
    set_tests_properties(bench.kernels.smoke PROPERTIES LABELS "bench" TIMEOUT 120)
  endif()
endif()
