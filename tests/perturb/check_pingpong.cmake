# cmake -DMPIEXEC="mpiexec|-n|2" -DENV=/usr/bin/env -DLIB=liblb4mpi_perturb.so -DEXE=perturb_pingpong
#       [-DITERATIONS=200] -P check_pingpong.cmake
# Runs the ping-pong three times — without the library, with rank 1 perturbed
# by 500 us, with only rank 5 (absent on 2 ranks) listed — and checks the
# median round trips (ns) of each kind:
#   perturbed >= baseline + 2 x 500 us x 0.98 (send, isend, split: two delayed
#                messages per round trip; rma: one, 500 us x 0.98) — a lower
#                bound the sleeps guarantee on any machine
#   control   <= baseline + 400 us (loose: nothing is delayed; a noisy, shared
#                machine may still add scheduling jitter)
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
run_pingpong(control LD_PRELOAD=${LIB} LB4MPI_PERTURB_RANKS=5 LB4MPI_PERTURB_LATENCY_US=${LATENCY_US})

# The library was loaded and configured as asked.
if(NOT perturbed_stderr MATCHES "lb4mpi_perturb: \\+${LATENCY_US} us per message to or from world rank\\(s\\) 1")
  message(FATAL_ERROR "perturbed: lb4mpi_perturb did not report its configuration (not preloaded?)")
endif()
if(NOT control_stderr MATCHES "rank\\(s\\) 5 not in MPI_COMM_WORLD \\(size 2\\), ignored")
  message(FATAL_ERROR "control: lb4mpi_perturb did not report the ignored rank 5")
endif()

set(failed "")
foreach(kind IN LISTS KINDS)
  math(EXPR added "${perturbed_${kind}} - ${base_${kind}}")
  math(EXPR lower "${MESSAGES_${kind}} * ${LATENCY_US} * 980")
  math(EXPR noise "${control_${kind}} - ${base_${kind}}")
  message("${kind}: median round trip ${base_${kind}} ns; perturbed ${perturbed_${kind}} ns (+${added}, "
          "at least +${lower} expected); rank 5 listed ${control_${kind}} ns (${noise})")
  if(added LESS lower)
    string(APPEND failed "${kind}: perturbed round trip only +${added} ns, expected at least +${lower} ns\n")
  endif()
  if(noise GREATER 400000)
    string(APPEND failed "${kind}: +${noise} ns with no perturbed rank in the job, expected at most +400000 ns\n")
  endif()
endforeach()
if(failed)
  message(FATAL_ERROR "${failed}")
endif()
