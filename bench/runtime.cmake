# Runtime benchmarks (MPI): hand-out throughput per execution model and the
# MPI primitives under it. bench/CMakeLists.txt includes every bench/*.cmake.
# Driver: bench/run_runtime_bench.py (see docs/PERFORMANCE.md, "Runtime: ...").
if(TARGET lb4mpi::lb4mpi)
  add_executable(bench_handout ${CMAKE_CURRENT_LIST_DIR}/bench_handout.cpp)
  target_link_libraries(bench_handout PRIVATE lb4mpi::lb4mpi lb4mpi_flags)

  # Smoke test: both parts run briefly on 2 ranks and print JSON.
  if(LB4MPI_BUILD_TESTS AND COMMAND lb4mpi_add_mpi_test)
    lb4mpi_add_mpi_test(NAME bench.handout.smoke RANKS 2 TIMEOUT 120 LABELS bench
                        COMMAND $<TARGET_FILE:bench_handout> --n 2000 --reps 1 --calls 200)
    set_tests_properties(bench.handout.smoke PROPERTIES
                         PASS_REGULAR_EXPRESSION "\"bench\":\"round_trip\"")
  endif()
endif()
