# fortran_mandelbrot_checksum: examples/fortran/mandelbrot.f90 (FAC2,
# distributed, 3 ranks) and lb4mpi-mandelbrot (GSS, centralized, 2 ranks)
# over the same 96 x 96 points, threshold 300: the same checksum.
execute_process(COMMAND ${MPIEXEC} ${NP_FLAG} 2 ${APP} --width 96 --threshold 300 --technique GSS
                OUTPUT_VARIABLE app RESULT_VARIABLE rc1 TIMEOUT 50)
execute_process(COMMAND ${MPIEXEC} ${NP_FLAG} 3 ${FORTRAN} 96 300 FAC2 distributed
                OUTPUT_VARIABLE fortran RESULT_VARIABLE rc2 TIMEOUT 50)
string(REGEX MATCH "\"checksum\":\"(0x[0-9a-f]+)\"" m1 "${app}")
set(c1 "${CMAKE_MATCH_1}")
string(REGEX MATCH "\"checksum\":\"(0x[0-9a-f]+)\"" m2 "${fortran}")
set(c2 "${CMAKE_MATCH_1}")
if(NOT rc1 EQUAL 0 OR NOT rc2 EQUAL 0 OR c1 STREQUAL "" OR NOT c1 STREQUAL c2)
  message(FATAL_ERROR "checksums differ or a run failed:\nC++ (${rc1}): ${app}\nFortran (${rc2}): ${fortran}")
endif()
message(STATUS "same checksum ${c1}")
