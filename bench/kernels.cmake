# The apps' work models: what a unit of each kernel's work costs
# (bench_kernels.cpp; docs/EXPERIMENTS.md, "Work models").
# bench/CMakeLists.txt includes every bench/*.cmake.
if(TARGET lb4mpi_apps_kernels)
  add_executable(bench_kernels ${CMAKE_CURRENT_LIST_DIR}/bench_kernels.cpp)
  target_link_libraries(bench_kernels PRIVATE lb4mpi_apps_kernels benchmark::benchmark lb4mpi_flags)
  # How close any self-scheduler can come to the bound (docs/EXPERIMENTS.md).
  find_package(CLI11 CONFIG REQUIRED)
  add_executable(synthetic_bounds ${CMAKE_CURRENT_LIST_DIR}/synthetic_bounds.cpp)
  target_link_libraries(synthetic_bounds PRIVATE lb4mpi_apps_kernels CLI11::CLI11 lb4mpi_flags)
  if(LB4MPI_BUILD_TESTS)
    add_test(NAME bench.kernels.smoke COMMAND bench_kernels --benchmark_min_time=0.001)
    set_tests_properties(bench.kernels.smoke PROPERTIES LABELS "bench" TIMEOUT 120)
    # Greedy never beats the bound: its ratio is at least 1 on every seed.
    add_test(NAME bench.synthetic_bounds.smoke COMMAND synthetic_bounds --ranks 4 --iterations 1000 --seeds 1 3
                                                       --target 1.1)
    set_tests_properties(bench.synthetic_bounds.smoke PROPERTIES LABELS "bench" TIMEOUT 60
      PASS_REGULAR_EXPRESSION "3 seeds: greedy / bound mean 1\\.[0-9]+, min 1\\.[0-9]+, max 1\\.[0-9]+; [0-3] of 3 at most 1\\.1000"
      FAIL_REGULAR_EXPRESSION "bound 0\\.")
  endif()
endif()
