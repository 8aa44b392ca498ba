# The loop written by hand against lb4mpi's C interface (issue 32):
# bench/baseline/ (master_worker.c the hand loop, driver.c the shared driver),
# driven by bench/run_baseline_bench.py (docs/PERFORMANCE.md, "Hot path and
# oversubscription (issue 32)"). bench/CMakeLists.txt includes every bench/*.cmake.
if(TARGET lb4mpi::lb4mpi)
  add_executable(lb4mpi-baseline ${CMAKE_CURRENT_LIST_DIR}/baseline/driver.c
                                 ${CMAKE_CURRENT_LIST_DIR}/baseline/master_worker.c)
  target_link_libraries(lb4mpi-baseline PRIVATE lb4mpi::lb4mpi lb4mpi_flags)

  # Smoke test: both loops, alternating in one launch, every technique's
  # formulas once; the driver aborts when a loop ran an iteration other
  # than exactly once or the two disagree on the checksum.
  if(LB4MPI_BUILD_TESTS AND COMMAND lb4mpi_add_mpi_test)
    lb4mpi_add_mpi_test(NAME bench.baseline.smoke RANKS 3 TIMEOUT 60 LABELS bench
                        COMMAND $<TARGET_FILE:lb4mpi-baseline> --impl both --technique all --n 3000
                                --reps 1 --warmup 0 --probe-every 7)
    set_tests_properties(bench.baseline.smoke PROPERTIES PASS_REGULAR_EXPRESSION "\"technique\":\"FAC\"")
  endif()
endif()
