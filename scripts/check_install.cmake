# ctest `install_consumer` (label install), defined in cmake/Install.cmake:
#   1. cmake --install BUILD_DIR into WORK_DIR/prefix,
#   2. configures and builds CONSUMER_DIR (find_package(lb4mpi CONFIG), links
#      lb4mpi::techniques) against that prefix, runs it,
#   3. checks `pkg-config --cflags --libs lb4mpi` against that prefix and builds
#      the same consumer with those flags alone.
# Run as: cmake -DBUILD_DIR=... -DWORK_DIR=... -DCONSUMER_DIR=... [...] -P check_install.cmake
cmake_minimum_required(VERSION 3.25)

foreach(var BUILD_DIR WORK_DIR CONSUMER_DIR PKGCONFIG_DIR CMAKE_PACKAGE_DIR)
  if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
    message(FATAL_ERROR "check_install.cmake: -D${var}=... is required")
  endif()
endforeach()

function(run step)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "install test: ${step} failed (${rc})\n"
                        "command: ${ARGN}\n--- stdout\n${out}\n--- stderr\n${err}")
  endif()
  set(run_output "${out}" PARENT_SCOPE)
endfunction()

set(prefix ${WORK_DIR}/prefix)
set(consumer_build ${WORK_DIR}/consumer-build)
file(REMOVE_RECURSE ${prefix} ${consumer_build})

# 1. Install.
set(config_args)
if(BUILD_CONFIG)
  set(config_args --config ${BUILD_CONFIG})
endif()
run("cmake --install" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix} ${config_args})
set(expected_files include/lb4mpi/techniques/chunk_calculator.hpp ${PKGCONFIG_DIR}/lb4mpi.pc
                   ${CMAKE_PACKAGE_DIR}/lb4mpiConfig.cmake)
if(EXPECT_TOOLS)
  list(APPEND expected_files bin/lb4mpi-chunks)
endif()
if(EXPECT_MPI)
  list(APPEND expected_files include/lb4mpi/lb4mpi.hpp include/lb4mpi/lb4mpi.h)
endif()
foreach(f IN LISTS expected_files)
  if(NOT EXISTS ${prefix}/${f})
    message(FATAL_ERROR "install test: ${prefix}/${f} was not installed")
  endif()
endforeach()
message(STATUS "installed into ${prefix}")

# 2. A consumer project.
set(configure_args -S ${CONSUMER_DIR} -B ${consumer_build}
                   -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_BUILD_TYPE=Release
                   -DEXPECT_MPI=${EXPECT_MPI})
if(GENERATOR)
  list(APPEND configure_args -G ${GENERATOR})
endif()
foreach(pair "C_COMPILER;CMAKE_C_COMPILER" "CXX_COMPILER;CMAKE_CXX_COMPILER"
             "MPI_C_COMPILER;MPI_C_COMPILER" "MPI_CXX_COMPILER;MPI_CXX_COMPILER")
  list(GET pair 0 from)
  list(GET pair 1 to)
  if(${from})
    list(APPEND configure_args -D${to}=${${from}})
  endif()
endforeach()
if(CONSUMER_FLAGS)
  list(APPEND configure_args "-DCMAKE_C_FLAGS=${CONSUMER_FLAGS}"
                             "-DCMAKE_CXX_FLAGS=${CONSUMER_FLAGS}"
                             "-DCMAKE_EXE_LINKER_FLAGS=${CONSUMER_FLAGS}")
endif()
run("configuring the consumer" ${CMAKE_COMMAND} ${configure_args})
run("building the consumer" ${CMAKE_COMMAND} --build ${consumer_build})
run("running the consumer" ${consumer_build}/consumer)
message(STATUS "${run_output}")

# 3. pkg-config.
find_program(PKG_CONFIG_EXECUTABLE NAMES pkg-config pkgconf)
if(NOT PKG_CONFIG_EXECUTABLE)
  message(FATAL_ERROR "install test: pkg-config not found")
endif()
set(ENV{PKG_CONFIG_PATH} ${prefix}/${PKGCONFIG_DIR})
run("pkg-config --cflags lb4mpi" ${PKG_CONFIG_EXECUTABLE} --cflags lb4mpi)
string(STRIP "${run_output}" cflags)
# pkg-config may print the include dir as given (${pcfiledir}/../..) or normalized.
file(REAL_PATH ${prefix}/include want_include)
set(found_include FALSE)
separate_arguments(cflag_list UNIX_COMMAND "${cflags}")
foreach(flag IN LISTS cflag_list)
  if(flag MATCHES "^-I(.+)$")
    file(REAL_PATH "${CMAKE_MATCH_1}" dir)
    if(dir STREQUAL want_include)
      set(found_include TRUE)
    endif()
  endif()
endforeach()
if(NOT found_include)
  message(FATAL_ERROR "install test: `pkg-config --cflags lb4mpi` gave '${cflags}', "
                      "without -I${want_include}")
endif()
run("pkg-config --libs lb4mpi" ${PKG_CONFIG_EXECUTABLE} --libs lb4mpi)
if(NOT run_output MATCHES "-llb4mpi_techniques")
  message(FATAL_ERROR "install test: `pkg-config --libs lb4mpi` lacks -llb4mpi_techniques: "
                      "${run_output}")
endif()
message(STATUS "pkg-config --cflags lb4mpi: ${cflags}")
# The flags must be enough to build the consumer without CMake.
separate_arguments(libs_list UNIX_COMMAND "${run_output}")
separate_arguments(extra_flags UNIX_COMMAND "${CONSUMER_FLAGS}")
if(NOT CXX_COMPILER)
  set(CXX_COMPILER c++)
endif()
run("building the consumer with pkg-config's flags"
    ${CXX_COMPILER} -std=c++20 ${extra_flags} ${cflag_list} ${CONSUMER_DIR}/main.cpp
    -o ${WORK_DIR}/consumer-pkgconfig ${libs_list})
run("running the pkg-config consumer" ${WORK_DIR}/consumer-pkgconfig)
message(STATUS "install test passed")
