# cmake -DMPIEXEC="mpiexec|-n|2" -DENV=/usr/bin/env -DLIB=liblb4mpi_perturb.so -DEXE=perturb_pingpong
#       [-DITERATIONS=200] -P check_pingpong.cmake
# Runs the ping-pong three times — without the library, with rank 1 perturbed
# by 500 us, with only rank 5 (absent on 2 ranks) listed — and checks:
#   perturbed: the median round trip of each kind >= 2 x 500 us x 0.98 (send,
#              isend, split: two delayed messages per round trip; rma: one,
#              500 us x 0.98) — a lower bound the sleeps guarantee on any
#              machine, however loaded — and each rank's own account
#              (LB4MPI_PERTURB_VERBOSE): at least ITERATIONS delayed calls,
#              500 us x 0.98 each;
#   control:   no rank delayed a call (its account says 0).
# The baseline is printed for comparison, not compared against: on a loaded
# machine MPICH's blocking round trip took 8 ms there (busy-polling ranks
# sharing cores), more than the perturbation adds.
if(NOT DEFINED ITERATIONS)
  set(ITERATIONS 200)
endif()
string(REPLACE "|" ";" MPIEXEC "${MPIEXEC}")
set(KINDS send isend split rma)
set(MESSAGES_send 2)
set(MESSAGES_isend 2)
set(MESSAGES_split 2)
set(MESSAGES_rma 1)
set(LATENCY_US 500)

function(run_pingpong label)
  execute_process(COMMAND ${MPIEXEC} ${ENV} ${ARGN} ${EXE} ${ITERATIONS}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 40)
  message("--- ${label}: ${ARGN}\n${out}${err}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${label}: the ping-pong failed (exit code '${rc}')")
  endif()
  foreach(kind IN LISTS KINDS)
    if(NOT out MATCHES "rtt ${kind} median_ns=([0-9]+)")
      message(FATAL_ERROR "${label}: no 'rtt ${kind} median_ns=' line in the output")
    endif()
    set(${label}_${kind} ${CMAKE_MATCH_1} PARENT_SCOPE)
  endforeach()
  set(${label}_stderr "${err}" PARENT_SCOPE)
endfunction()

run_pingpong(base)
run_pingpong(perturbed LD_PRELOAD=${LIB} LB4MPI_PERTURB_RANKS=1 LB4MPI_PERTURB_LATENCY_US=${LATENCY_US}
             LB4MPI_PERTURB_VERBOSE=1)
run_pingpong(control LD_PRELOAD=${LIB} LB4MPI_PERTURB_RANKS=5 LB4MPI_PERTURB_LATENCY_US=${LATENCY_US}
             LB4MPI_PERTURB_VERBOSE=1)

# The library was loaded and configured as asked.
if(NOT perturbed_stderr MATCHES "lb4mpi_perturb: \\+${LATENCY_US} us per message to or from world rank\\(s\\) 1")
  message(FATAL_ERROR "perturbed: lb4mpi_perturb did not report its configuration (not preloaded?)")
endif()
if(NOT control_stderr MATCHES "rank\\(s\\) 5 not in MPI_COMM_WORLD \\(size 2\\), ignored")
  message(FATAL_ERROR "control: lb4mpi_perturb did not report the ignored rank 5")
endif()

set(failed "")
# Each rank's account of the perturbed run, and of the control run.
foreach(rank 0 1)
  if(NOT perturbed_stderr MATCHES "lb4mpi_perturb: rank ${rank} delayed ([0-9]+) calls, ([0-9]+)\\.[0-9]+ ms in all")
    string(APPEND failed "perturbed: no account of rank ${rank}'s delays\n")
  else()
    set(calls ${CMAKE_MATCH_1})
    set(ms ${CMAKE_MATCH_2})
    math(EXPR least_ms "${calls} * ${LATENCY_US} * 98 / 100000")
    if(calls LESS ITERATIONS)
      string(APPEND failed "perturbed: rank ${rank} delayed ${calls} calls, expected at least ${ITERATIONS}\n")
    elseif(ms LESS least_ms)
      string(APPEND failed "perturbed: rank ${rank} slept ${ms} ms for ${calls} calls, expected at least ${least_ms}\n")
    endif()
  endif()
  if(NOT control_stderr MATCHES "lb4mpi_perturb: rank ${rank} delayed 0 calls")
    string(APPEND failed "control: rank ${rank} did not report 0 delayed calls with no listed rank in the job\n")
  endif()
endforeach()
foreach(kind IN LISTS KINDS)
  math(EXPR lower "${MESSAGES_${kind}} * ${LATENCY_US} * 980")
  message("${kind}: median round trip ${base_${kind}} ns; perturbed ${perturbed_${kind}} ns (at least ${lower} "
          "expected); rank 5 listed ${control_${kind}} ns")
  if(perturbed_${kind} LESS lower)
    string(APPEND failed "${kind}: perturbed round trip ${perturbed_${kind}} ns, expected at least ${lower} ns\n")
  endif()
endforeach()
if(failed)
  message(FATAL_ERROR "${failed}")
endif()
