# Cost of tracing (Options::trace): bench_trace_cost runs one SS loop with an
# empty body, with or without a trace. Included from bench/CMakeLists.txt.
# Driver: bench/bench_trace_cost.sh BUILD_DIR (see docs/TRACING.md, "What it costs").
if(TARGET lb4mpi::lb4mpi)
  add_executable(bench_trace_cost ${CMAKE_CURRENT_LIST_DIR}/bench_trace_cost.cpp)
  target_link_libraries(bench_trace_cost PRIVATE lb4mpi::lb4mpi lb4mpi_flags)

  # Smoke test: a short traced run on 2 ranks prints its CSV row and exits 0
  # (cmake/ExpectFailure.cmake with CODE 0: the output and the exit status).
  if(LB4MPI_BUILD_TESTS AND COMMAND lb4mpi_add_mpi_failure_test)
    lb4mpi_add_mpi_failure_test(NAME bench.trace_cost.smoke RANKS 2 CODE 0 LABELS bench
                                TEXT "\n2,20000,SS,centralized,on,0,"
                                COMMAND $<TARGET_FILE:bench_trace_cost> --iterations 20000 --header
                                        --trace ${CMAKE_CURRENT_BINARY_DIR}/bench_trace_cost_smoke.json)
  endif()
endif()
