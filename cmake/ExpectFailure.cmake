# cmake -DCMD="a|b|c" -DEXPECT_CODE=2 -DEXPECT_TEXT=... -DEXPECT_COUNT=n -P ExpectFailure.cmake
# Runs CMD; passes when it exits with EXPECT_CODE (or any non-zero code when
# EXPECT_CODE is unset) and its output contains EXPECT_TEXT at least
# EXPECT_COUNT times (default 1), e.g. once per rank. EXPECT_CODE=0: an error
# that must be reported without failing the program (e.g. an output file
# lb4mpi could not write after the loop completed). A command that does not
# exit by itself (killed at the 120 s timeout, or by a signal, which
# execute_process reports as a text instead of a code) never counts as the
# expected failure.
string(REPLACE "|" ";" CMD "${CMD}")
execute_process(COMMAND ${CMD} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 120)
set(all "${out}${err}")
message("${all}")
if(NOT rc MATCHES "^[0-9]+$")
  message(FATAL_ERROR "the command did not exit with a code: '${rc}' (a timeout or a signal is not the expected failure)")
endif()
if(rc EQUAL 0 AND NOT (DEFINED EXPECT_CODE AND EXPECT_CODE EQUAL 0))
  message(FATAL_ERROR "expected a failure, the command succeeded")
endif()
if(DEFINED EXPECT_CODE AND NOT rc EQUAL EXPECT_CODE)
  message(FATAL_ERROR "expected exit code ${EXPECT_CODE}, got '${rc}'")
endif()
if(NOT DEFINED EXPECT_COUNT)
  set(EXPECT_COUNT 1)
endif()
string(REGEX MATCHALL "${EXPECT_TEXT}" hits "${all}")
list(LENGTH hits n)
if(n LESS EXPECT_COUNT)
  message(FATAL_ERROR "expected '${EXPECT_TEXT}' ${EXPECT_COUNT} times in the output, found ${n}")
endif()
