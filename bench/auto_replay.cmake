# Replaying automatic selection on measured steps (issue 16): auto_replay
# feeds a selection policy the per-step figures of fixed-technique runs that
# bench/run_auto_bench.py recorded, and prints the total auto would have
# taken against the best fixed technique in every cell.
# Driver: bench/run_auto_bench.py --replay (docs/SELECTION.md, "Replaying").
find_package(nlohmann_json CONFIG QUIET)
if(TARGET nlohmann_json::nlohmann_json)
  add_executable(auto_replay ${CMAKE_CURRENT_LIST_DIR}/auto_replay.cpp)
  target_link_libraries(auto_replay PRIVATE lb4mpi_techniques nlohmann_json::nlohmann_json lb4mpi_flags)
endif()

# Smoke test on a two-technique fixture: 4 steps, STATIC 0.09 s in total,
# TSS 0.06 s. Explore over STATIC, TSS runs STATIC twice (the first execution
# teaches nothing), TSS, then TSS: 0.03 + 0.02 + 0.01 + 0.01 = 0.07 s, 7/6 of
# the best.
if(TARGET auto_replay AND LB4MPI_BUILD_TESTS)
  # The table row and the picks, and exit status 0 (cmake/ExpectFailure.cmake).
  add_test(NAME bench.auto_replay.smoke
           COMMAND ${CMAKE_COMMAND}
                   "-DCMD=$<TARGET_FILE:auto_replay>|${CMAKE_CURRENT_LIST_DIR}/auto_replay_fixture.jsonl|--candidates|STATIC,TSS|--picks"
                   "-DEXPECT_TEXT=\\| 2 \\| fixture \\| none \\| TSS \\| 1.000 \\| 1.167 \\|\n    STATIC STATIC TSS TSS"
                   -DEXPECT_CODE=0 -P ${PROJECT_SOURCE_DIR}/cmake/ExpectFailure.cmake)
  set_tests_properties(bench.auto_replay.smoke PROPERTIES LABELS "bench" TIMEOUT 60)
endif()
