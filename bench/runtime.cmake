# Runtime benchmarks (MPI): hand-out throughput per execution model and the
# MPI primitives under it. bench/CMakeLists.txt includes every bench/*.cmake.
# Driver: bench/run_runtime_bench.py (see docs/PERFORMANCE.md, "Runtime: ...").
if(TARGET lb4mpi::lb4mpi)
  add_executable(bench_handout ${CMAKE_CURRENT_LIST_DIR}/bench_handout.cpp)
  target_link_libraries(bench_handout PRIVATE lb4mpi::lb4mpi lb4mpi_flags)

  # Smoke test: both parts run briefly on 2 ranks, print JSON and exit 0
  # (cmake/ExpectFailure.cmake with CODE 0: the output and the exit status).
  if(LB4MPI_BUILD_TESTS AND COMMAND lb4mpi_add_mpi_failure_test)
    lb4mpi_add_mpi_failure_test(NAME bench.handout.smoke RANKS 2 CODE 0 LABELS bench
                                TEXT "\"bench\":\"round_trip\""
                                COMMAND $<TARGET_FILE:bench_handout> --n 2000 --reps 1 --calls 200)
  endif()
endif()
