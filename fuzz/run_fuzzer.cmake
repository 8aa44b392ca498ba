# One bounded fuzzing run for CTest (fuzz/CMakeLists.txt):
#   cmake -DFUZZER=<binary> -DCORPUS=<repo corpus> -DWORK=<build-tree folder>
#         -DARTIFACTS=<folder> -DARGS=<libFuzzer flags, |-separated> -P run_fuzzer.cmake
# Each run starts from a fresh copy of the repository's corpus in WORK, so
# inputs found by earlier runs do not pile up and lengthen the first pass;
# new inputs go to WORK, never to the repository. Fails on any finding, and
# names the reproducer libFuzzer saved.
foreach(var FUZZER CORPUS WORK ARTIFACTS)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "run_fuzzer.cmake: ${var} is not set")
  endif()
endforeach()
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}" "${ARTIFACTS}")
file(GLOB seeds "${CORPUS}/*")
file(COPY ${seeds} DESTINATION "${WORK}")
string(REPLACE "|" ";" args "${ARGS}")
get_filename_component(name "${FUZZER}" NAME)
execute_process(COMMAND "${FUZZER}" ${args} "-artifact_prefix=${ARTIFACTS}/${name}-" "${WORK}"
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  file(GLOB found "${ARTIFACTS}/${name}-*")
  message(FATAL_ERROR "${name} found a problem (exit ${rc}); reproducers: ${found}\n"
                      "replay one with: ${FUZZER} <file>  (docs/FUZZING.md)")
endif()
