# Installation and export of lb4mpi (included at the end of the top-level CMakeLists.txt).
#
#   cmake --install build --prefix /opt/lb4mpi
#
# installs the libraries, the public headers, the lb4mpi-chunks tool, a CMake package
#
#   find_package(lb4mpi CONFIG REQUIRED)
#   target_link_libraries(app PRIVATE lb4mpi::lb4mpi)      # MPI runtime, C++ and C API
#   target_link_libraries(sim PRIVATE lb4mpi::techniques)  # chunk calculation only, no MPI
#
# and a pkg-config file (lb4mpi.pc). lb4mpi_flags (warnings, sanitizers) is a
# BUILD_INTERFACE-only dependency and is not part of the export.
include(CMakePackageConfigHelpers)

set(LB4MPI_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/lb4mpi"
    CACHE STRING "Where the lb4mpi CMake package files are installed (relative to the prefix)")
set(LB4MPI_INSTALL_PKGCONFIGDIR "${CMAKE_INSTALL_LIBDIR}/pkgconfig"
    CACHE STRING "Where lb4mpi.pc is installed (relative to the prefix)")
mark_as_advanced(LB4MPI_INSTALL_CMAKEDIR LB4MPI_INSTALL_PKGCONFIGDIR)

# --- Libraries --------------------------------------------------------------
set(_lb4mpi_install_targets lb4mpi_techniques)
set(LB4MPI_PACKAGE_HAS_MPI OFF)
if(TARGET lb4mpi)
  list(APPEND _lb4mpi_install_targets lb4mpi)
  set(LB4MPI_PACKAGE_HAS_MPI ON)
endif()

install(TARGETS ${_lb4mpi_install_targets}
  EXPORT lb4mpiTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT Development
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT Runtime
          NAMELINK_COMPONENT Development
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT Runtime
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

# The public headers: the front ends' (include/) and the technique layer's
# (src/techniques/include/), merged into one lb4mpi/ folder.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/ ${PROJECT_SOURCE_DIR}/src/techniques/include/
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  COMPONENT Development
  FILES_MATCHING PATTERN "*.hpp" PATTERN "*.h")

# --- Tools --------------------------------------------------------------------
if(TARGET lb4mpi-chunks)
  install(TARGETS lb4mpi-chunks RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT Runtime)
  install(PROGRAMS ${PROJECT_SOURCE_DIR}/tools/plot/lb4mpi_gantt.py ${PROJECT_SOURCE_DIR}/tools/plot/lb4mpi_chunk_plot.py
          DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT Runtime)
endif()

# --- CMake package ------------------------------------------------------------
install(EXPORT lb4mpiTargets
  NAMESPACE lb4mpi::
  FILE lb4mpiTargets.cmake
  DESTINATION ${LB4MPI_INSTALL_CMAKEDIR}
  COMPONENT Development)

configure_package_config_file(
  ${CMAKE_CURRENT_LIST_DIR}/lb4mpiConfig.cmake.in
  ${PROJECT_BINARY_DIR}/lb4mpiConfig.cmake
  INSTALL_DESTINATION ${LB4MPI_INSTALL_CMAKEDIR})
write_basic_package_version_file(
  ${PROJECT_BINARY_DIR}/lb4mpiConfigVersion.cmake
  VERSION ${PROJECT_VERSION}
  COMPATIBILITY SameMinorVersion)
install(FILES
  ${PROJECT_BINARY_DIR}/lb4mpiConfig.cmake
  ${PROJECT_BINARY_DIR}/lb4mpiConfigVersion.cmake
  DESTINATION ${LB4MPI_INSTALL_CMAKEDIR}
  COMPONENT Development)

# --- pkg-config -----------------------------------------------------------------
# Static archives do not carry their dependencies, so Libs names them all; the
# MPI flags are those FindMPI finds (redundant, and harmless, under mpicxx).
set(LB4MPI_PC_LIBS "-llb4mpi_techniques")
set(LB4MPI_PC_CFLAGS "")
set(LB4MPI_PC_DESCRIPTION "${PROJECT_DESCRIPTION} (chunk calculation only, no MPI)")
if(LB4MPI_PACKAGE_HAS_MPI)
  # src/ found MPI in its own scope; this finds the same (cached) one here.
  find_package(MPI REQUIRED COMPONENTS C CXX)
  set(LB4MPI_PC_LIBS "-llb4mpi -llb4mpi_techniques")
  set(LB4MPI_PC_DESCRIPTION "${PROJECT_DESCRIPTION}")
  foreach(_dir IN LISTS MPI_CXX_INCLUDE_DIRS MPI_C_INCLUDE_DIRS)
    if(NOT " ${LB4MPI_PC_CFLAGS} " MATCHES " -I${_dir} ")
      string(APPEND LB4MPI_PC_CFLAGS " -I${_dir}")
    endif()
  endforeach()
  foreach(_lib IN LISTS MPI_CXX_LIBRARIES MPI_C_LIBRARIES)
    if(NOT " ${LB4MPI_PC_LIBS} " MATCHES " ${_lib} ")
      string(APPEND LB4MPI_PC_LIBS " ${_lib}")
    endif()
  endforeach()
endif()
foreach(_kind LIBDIR INCLUDEDIR)
  if(IS_ABSOLUTE "${CMAKE_INSTALL_${_kind}}")
    set(LB4MPI_PC_${_kind} "${CMAKE_INSTALL_${_kind}}")
  else()
    set(LB4MPI_PC_${_kind} "\${prefix}/${CMAKE_INSTALL_${_kind}}")
  endif()
endforeach()
# The prefix is the one given at install time (cmake --install --prefix ...):
# the file is configured twice, here and then by the install step.
set(LB4MPI_PC_PREFIX "@LB4MPI_PC_PREFIX@")
configure_file(${CMAKE_CURRENT_LIST_DIR}/lb4mpi.pc.in ${PROJECT_BINARY_DIR}/pkgconfig/lb4mpi.pc.in
               @ONLY)
install(CODE "
  set(LB4MPI_PC_PREFIX \"\${CMAKE_INSTALL_PREFIX}\")
  configure_file(\"${PROJECT_BINARY_DIR}/pkgconfig/lb4mpi.pc.in\"
                 \"${PROJECT_BINARY_DIR}/pkgconfig/lb4mpi.pc\" @ONLY)
" COMPONENT Development)
install(FILES ${PROJECT_BINARY_DIR}/pkgconfig/lb4mpi.pc
  DESTINATION ${LB4MPI_INSTALL_PKGCONFIGDIR}
  COMPONENT Development)

# --- Test: install to a temporary prefix and build a consumer ----------------------
# The consumer project is written into the build tree; scripts/check_install.cmake
# installs, configures and builds it, runs it, and asks pkg-config for the flags.
if(LB4MPI_BUILD_TESTS AND CMAKE_TESTING_ENABLED)
  set(_lb4mpi_consumer_dir ${PROJECT_BINARY_DIR}/install-test/consumer)
  file(WRITE ${_lb4mpi_consumer_dir}/CMakeLists.txt [=[
cmake_minimum_required(VERSION 3.25)
project(lb4mpi_consumer LANGUAGES C CXX)
find_package(lb4mpi CONFIG REQUIRED)
if(NOT TARGET lb4mpi::techniques)
  message(FATAL_ERROR "find_package(lb4mpi) did not define lb4mpi::techniques")
endif()
if(EXPECT_MPI AND NOT TARGET lb4mpi::lb4mpi)
  message(FATAL_ERROR "find_package(lb4mpi) did not define lb4mpi::lb4mpi")
endif()
add_executable(consumer main.cpp)
target_link_libraries(consumer PRIVATE lb4mpi::techniques)
if(EXPECT_MPI)  # built, not run: the exported MPI dependencies link
  add_executable(consumer_capi capi.c)
  target_link_libraries(consumer_capi PRIVATE lb4mpi::lb4mpi)
endif()
]=])
  file(WRITE ${_lb4mpi_consumer_dir}/capi.c [=[
/* Built (not run) against an installed lb4mpi by the install_consumer test. */
#include <lb4mpi/lb4mpi.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  Configure_Chunk_Calculation_Mode(CENTRALIZED);
  MPI_Finalize();
  return 0;
}
]=])
  file(WRITE ${_lb4mpi_consumer_dir}/main.cpp [=[
// Built against an installed lb4mpi by the install_consumer test.
#include <lb4mpi/techniques/chunk_calculator.hpp>

#include <iostream>

int main() {
  const auto chunks = lb4mpi::simulate_chunks(lb4mpi::parse_technique("GSS"), {1000, 4},
                                              lb4mpi::TechniqueParams{}, lb4mpi::Form::Closed);
  lb4mpi::Index total = 0;
  for (const auto& c : chunks) total += c.size;
  std::cout << "consumer: " << chunks.size() << " chunks, " << total << " iterations\n";
  return total == 1000 ? 0 : 1;
}
]=])
  set(_lb4mpi_consumer_flags "")
  if(LB4MPI_SANITIZE)
    # The exported targets do not carry lb4mpi_flags: a consumer of an
    # instrumented archive links the sanitizer runtimes itself.
    set(_lb4mpi_consumer_flags "-fsanitize=address,undefined")
  endif()
  add_test(NAME install_consumer
    COMMAND ${CMAKE_COMMAND}
      -DBUILD_DIR=${PROJECT_BINARY_DIR}
      -DBUILD_CONFIG=$<CONFIG>
      -DWORK_DIR=${PROJECT_BINARY_DIR}/install-test
      -DCONSUMER_DIR=${_lb4mpi_consumer_dir}
      -DPKGCONFIG_DIR=${LB4MPI_INSTALL_PKGCONFIGDIR}
      -DCMAKE_PACKAGE_DIR=${LB4MPI_INSTALL_CMAKEDIR}
      -DEXPECT_MPI=${LB4MPI_PACKAGE_HAS_MPI}
      -DEXPECT_TOOLS=$<TARGET_EXISTS:lb4mpi-chunks>
      -DGENERATOR=${CMAKE_GENERATOR}
      -DC_COMPILER=${CMAKE_C_COMPILER}
      -DCXX_COMPILER=${CMAKE_CXX_COMPILER}
      -DMPI_C_COMPILER=${MPI_C_COMPILER}
      -DMPI_CXX_COMPILER=${MPI_CXX_COMPILER}
      -DCONSUMER_FLAGS=${_lb4mpi_consumer_flags}
      -P ${PROJECT_SOURCE_DIR}/scripts/check_install.cmake)
  set_tests_properties(install_consumer PROPERTIES LABELS "install" TIMEOUT 300)
endif()
