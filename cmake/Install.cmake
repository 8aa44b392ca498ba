# Installation and export of lb4mpi (included at the end of the top-level
# CMakeLists.txt; how to use what it installs: docs/INSTALL.md).
#
#   cmake --install build --prefix /opt/lb4mpi
#
# installs the libraries (shared, and their static archives; or static only
# with BUILD_SHARED_LIBS=OFF), the public headers, lb4mpi-chunks and the apps,
# a CMake package
#
#   find_package(lb4mpi CONFIG REQUIRED)
#   target_link_libraries(app PRIVATE lb4mpi::lb4mpi)      # MPI runtime, C++ and C API
#   target_link_libraries(sim PRIVATE lb4mpi::techniques)  # chunk calculation only, no MPI
#
# and pkg-config files: lb4mpi.pc (the default kind) and lb4mpi-static.pc
# (the static archives). lb4mpi_flags (warnings, sanitizers) is a
# BUILD_INTERFACE-only dependency and is not part of the export.
#
# Components, for CPack (cmake/Packaging.cmake): Runtime (shared libraries,
# programs) and Development (headers, static archives, the .so links, CMake
# and pkg-config files).
include(CMakePackageConfigHelpers)

set(LB4MPI_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/lb4mpi"
    CACHE STRING "Where the lb4mpi CMake package files are installed (relative to the prefix)")
set(LB4MPI_INSTALL_PKGCONFIGDIR "${CMAKE_INSTALL_LIBDIR}/pkgconfig"
    CACHE STRING "Where lb4mpi.pc is installed (relative to the prefix)")
mark_as_advanced(LB4MPI_INSTALL_CMAKEDIR LB4MPI_INSTALL_PKGCONFIGDIR)

# --- Libraries --------------------------------------------------------------
# Two export sets: lb4mpiTargets, the libraries of the kind BUILD_SHARED_LIBS
# chose, and lb4mpiStaticTargets, their static twins next to shared ones. Both
# name the targets lb4mpi::lb4mpi and lb4mpi::techniques; lb4mpiConfig.cmake
# includes one (lb4mpi_USE_STATIC_LIBS), so a user's code does not change.
set(_lb4mpi_primary lb4mpi_techniques)
set(_lb4mpi_twins lb4mpi_techniques_static)
set(LB4MPI_PACKAGE_HAS_MPI OFF)
if(TARGET lb4mpi)
  list(APPEND _lb4mpi_primary lb4mpi)
  list(APPEND _lb4mpi_twins lb4mpi_static)
  set(LB4MPI_PACKAGE_HAS_MPI ON)
endif()
get_target_property(_lb4mpi_type lb4mpi_techniques TYPE)
if(_lb4mpi_type STREQUAL "SHARED_LIBRARY")
  set(LB4MPI_PACKAGE_SHARED ON)
else()
  set(LB4MPI_PACKAGE_SHARED OFF)
endif()
if(LB4MPI_PACKAGE_SHARED AND LB4MPI_INSTALL_STATIC)
  set(LB4MPI_PACKAGE_STATIC_TWINS ON)
else()
  set(LB4MPI_PACKAGE_STATIC_TWINS OFF)
endif()

install(TARGETS ${_lb4mpi_primary}
  EXPORT lb4mpiTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT Development
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT Runtime
          NAMELINK_COMPONENT Development
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT Runtime
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
if(LB4MPI_PACKAGE_STATIC_TWINS)
  install(TARGETS ${_lb4mpi_twins}
    EXPORT lb4mpiStaticTargets
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT Development
    INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
endif()

# The public headers: the front ends' (include/), the technique layer's
# (src/techniques/include/: types.hpp, export.h, techniques/) and the stealing
# layer's (src/stealing/include/lb4mpi/stealing/: kinds, movers, figures; not
# its internal src/stealing/internal/), merged into one lb4mpi/ folder.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/ ${PROJECT_SOURCE_DIR}/src/techniques/include/
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  COMPONENT Development
  FILES_MATCHING PATTERN "*.hpp" PATTERN "*.h")
if(LB4MPI_WITH_MPI)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/src/stealing/include/lb4mpi/
    DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/lb4mpi
    COMPONENT Development
    FILES_MATCHING PATTERN "*.hpp")
endif()

# --- Tools --------------------------------------------------------------------
if(TARGET lb4mpi-chunks)
  install(TARGETS lb4mpi-chunks RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT Runtime)
  install(PROGRAMS ${PROJECT_SOURCE_DIR}/tools/plot/lb4mpi_gantt.py ${PROJECT_SOURCE_DIR}/tools/plot/lb4mpi_chunk_plot.py
          DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT Runtime)
  # Imported by the two scripts: which Python runs them (pyenv's python3 first on PATH).
  install(FILES ${PROJECT_SOURCE_DIR}/tools/plot/lb4mpi_python.py DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT Runtime)
endif()

# --- CMake package ------------------------------------------------------------
install(EXPORT lb4mpiTargets
  NAMESPACE lb4mpi::
  FILE lb4mpiTargets.cmake
  DESTINATION ${LB4MPI_INSTALL_CMAKEDIR}
  COMPONENT Development)
if(LB4MPI_PACKAGE_STATIC_TWINS)
  install(EXPORT lb4mpiStaticTargets
    NAMESPACE lb4mpi::
    FILE lb4mpiStaticTargets.cmake
    DESTINATION ${LB4MPI_INSTALL_CMAKEDIR}
    COMPONENT Development)
endif()

# What a static archive of C++ code needs when a C driver links it: the C++
# compiler's implicit libraries that the C compiler does not add (libstdc++
# and libm for GCC and clang on Debian).
set(LB4MPI_CXX_RUNTIME_LIBS ${CMAKE_CXX_IMPLICIT_LINK_LIBRARIES})
if(CMAKE_C_IMPLICIT_LINK_LIBRARIES)
  list(REMOVE_ITEM LB4MPI_CXX_RUNTIME_LIBS ${CMAKE_C_IMPLICIT_LINK_LIBRARIES})
endif()
list(REMOVE_DUPLICATES LB4MPI_CXX_RUNTIME_LIBS)
if(NOT LB4MPI_CXX_RUNTIME_LIBS)
  set(LB4MPI_CXX_RUNTIME_LIBS stdc++ m)
endif()
set(LB4MPI_PACKAGE_CXX_RUNTIME "${LB4MPI_CXX_RUNTIME_LIBS}")
set(LB4MPI_PACKAGE_MPI "no MPI")
if(LB4MPI_PACKAGE_HAS_MPI)
  # src/ found MPI in its own scope; this finds the same (cached) one here.
  find_package(MPI REQUIRED COMPONENTS C CXX)
  set(LB4MPI_PACKAGE_MPI "${MPI_C_COMPILER}, MPI ${MPI_C_VERSION}")
endif()

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
# MPI is not in the files: the user's mpicc/mpicxx adds it (a path baked in
# here would name one MPI and one machine). lb4mpi.pc describes the default
# kind; for a static-only install its C++ runtime is in Libs.private
# (`pkg-config --static`). lb4mpi-static.pc names the archives themselves (a
# linker given -llb4mpi picks the .so when both are there), and needs no
# --static: the C++ runtime is in its Libs.
foreach(_kind LIBDIR INCLUDEDIR)
  if(IS_ABSOLUTE "${CMAKE_INSTALL_${_kind}}")
    set(LB4MPI_PC_${_kind} "${CMAKE_INSTALL_${_kind}}")
  else()
    set(LB4MPI_PC_${_kind} "\${prefix}/${CMAKE_INSTALL_${_kind}}")
  endif()
endforeach()
set(_lb4mpi_pc_cxx_runtime "")
foreach(_lib IN LISTS LB4MPI_CXX_RUNTIME_LIBS)
  if(_lib MATCHES "^-" OR IS_ABSOLUTE "${_lib}")
    string(APPEND _lb4mpi_pc_cxx_runtime " ${_lib}")
  else()
    string(APPEND _lb4mpi_pc_cxx_runtime " -l${_lib}")
  endif()
endforeach()
string(STRIP "${_lb4mpi_pc_cxx_runtime}" _lb4mpi_pc_cxx_runtime)
if(LB4MPI_PACKAGE_HAS_MPI)
  set(_lb4mpi_pc_libs lb4mpi lb4mpi_techniques)
  set(_lb4mpi_pc_description "${PROJECT_DESCRIPTION}")
else()
  set(_lb4mpi_pc_libs lb4mpi_techniques)
  set(_lb4mpi_pc_description "${PROJECT_DESCRIPTION} (chunk calculation only, no MPI)")
endif()

# lb4mpi_pkgconfig(<name> <libs> <private libs> <description> <note>): configures
# <name>.pc for the prefix given at install time (cmake --install --prefix ...,
# CPack's /usr): the file is configured twice, here and by the install step.
function(lb4mpi_pkgconfig name libs libs_private description note)
  set(LB4MPI_PC_NAME ${name})
  set(LB4MPI_PC_LIBS "${libs}")
  set(LB4MPI_PC_LIBS_PRIVATE "${libs_private}")
  set(LB4MPI_PC_DESCRIPTION "${description}")
  set(LB4MPI_PC_NOTE "${note}")
  set(LB4MPI_PC_PREFIX "@LB4MPI_PC_PREFIX@")
  set(LB4MPI_PC_RPATH "@LB4MPI_PC_RPATH@")
  configure_file(${PROJECT_SOURCE_DIR}/cmake/lb4mpi.pc.in ${PROJECT_BINARY_DIR}/pkgconfig/${name}.pc.in @ONLY)
  # A prefix other than /usr is outside the loader's search (even /usr/local/lib
  # needs an ldconfig after the install): the shared libraries' folder goes
  # into the program's RUNPATH, so that what pkg-config links starts as it is.
  install(CODE "
    set(LB4MPI_PC_PREFIX \"\${CMAKE_INSTALL_PREFIX}\")
    set(LB4MPI_PC_RPATH \"\")
    if(NOT \"\${CMAKE_INSTALL_PREFIX}\" STREQUAL \"/usr\")
      set(LB4MPI_PC_RPATH \" -Wl,-rpath,\\\${libdir}\")
    endif()
    configure_file(\"${PROJECT_BINARY_DIR}/pkgconfig/${name}.pc.in\"
                   \"${PROJECT_BINARY_DIR}/pkgconfig/${name}.pc\" @ONLY)
  " COMPONENT Development)
  install(FILES ${PROJECT_BINARY_DIR}/pkgconfig/${name}.pc
    DESTINATION ${LB4MPI_INSTALL_PKGCONFIGDIR}
    COMPONENT Development)
endfunction()

list(TRANSFORM _lb4mpi_pc_libs PREPEND "-l" OUTPUT_VARIABLE _lb4mpi_pc_l)
list(JOIN _lb4mpi_pc_l " " _lb4mpi_pc_l)
if(LB4MPI_PACKAGE_SHARED)
  set(_lb4mpi_pc_note "Shared libraries; for the static archives: pkg-config lb4mpi-static.")
else()
  set(_lb4mpi_pc_note "Static archives: link with `pkg-config --static --libs lb4mpi` (the C++ runtime).")
endif()
set(_lb4mpi_pc_rpath "")
if(LB4MPI_PACKAGE_SHARED)
  set(_lb4mpi_pc_rpath "@LB4MPI_PC_RPATH@")  # filled in at install time (lb4mpi_pkgconfig)
endif()
lb4mpi_pkgconfig(lb4mpi "-L\${libdir}${_lb4mpi_pc_rpath} ${_lb4mpi_pc_l}" "${_lb4mpi_pc_cxx_runtime}"
                 "${_lb4mpi_pc_description}" "${_lb4mpi_pc_note}")
if(LB4MPI_PACKAGE_STATIC_TWINS OR NOT LB4MPI_PACKAGE_SHARED)
  set(_lb4mpi_pc_a "")
  foreach(_lib IN LISTS _lb4mpi_pc_libs)
    string(APPEND _lb4mpi_pc_a "\${libdir}/lib${_lib}.a ")
  endforeach()
  lb4mpi_pkgconfig(lb4mpi-static "${_lb4mpi_pc_a}${_lb4mpi_pc_cxx_runtime}" ""
                   "${_lb4mpi_pc_description} (static archives)"
                   "The static archives, by path, with the C++ runtime they need.")
endif()

# lb4mpi::fortran and lb4mpi-fortran.pc (fortran/CMakeLists.txt): the .mod folder and liblb4mpi_fortran,
#   mpifort app.f90 $(pkg-config --cflags --libs lb4mpi-fortran)
if(LB4MPI_HAS_FORTRAN)
  install(EXPORT lb4mpiFortranTargets NAMESPACE lb4mpi:: FILE lb4mpiFortranTargets.cmake
          DESTINATION ${LB4MPI_INSTALL_CMAKEDIR} COMPONENT Development)
  set(LB4MPI_PC_CFLAGS_EXTRA " -I${LB4MPI_PC_FORTRAN_MODDIR}")
  lb4mpi_pkgconfig(lb4mpi-fortran "-L\${libdir}${_lb4mpi_pc_rpath} -llb4mpi_fortran ${_lb4mpi_pc_l}" "${_lb4mpi_pc_cxx_runtime}"
                   "${_lb4mpi_pc_description} (Fortran modules DLS and lb4mpi)"
                   "Fortran: build with the mpifort of the MPI lb4mpi was built with (its .mod files).")
  set(LB4MPI_PC_CFLAGS_EXTRA "")
endif()

# --- Tests: install once, then build and run consumers against the install -------
# install.tree (the fixture) installs this build into install-test/prefix and
# checks it (files, sonames, exported symbols); then each consumer kind of
# tests/consumers/ is configured or compiled there, outside the build tree,
# against that prefix, and run under mpiexec on 2 ranks (exactly-once check):
#   install.cmake_cxx.<variant>  a C++-only project, find_package(lb4mpi)
#   install.cmake_c.<variant>    a C-only project, find_package(lb4mpi), the DLS_* API
#   install.pkgconfig.<variant>  mpicc and mpicxx with `pkg-config --cflags --libs`
# <variant> shared or static (lb4mpi_USE_STATIC_LIBS, lb4mpi-static.pc), for
# each kind the build installed. Labelled `mpi` too: the MPICH configuration of
# scripts/test.sh (ctest -L mpi) runs them with MPICH. scripts/check_deb.sh runs
# the same consumers against the installed Debian package.
if(LB4MPI_BUILD_TESTS AND CMAKE_TESTING_ENABLED)
  set(_work ${PROJECT_BINARY_DIR}/install-test)
  set(_consumer_flags "")
  set(_consumer_c_link_flags "")
  if(LB4MPI_SANITIZE)
    # The exported targets do not carry lb4mpi_flags: a consumer of an
    # instrumented library links the sanitizer runtimes itself.
    set(_consumer_flags "-fsanitize=address,undefined")
    if(CMAKE_CXX_COMPILER_ID MATCHES "Clang")
      # ... and, from C, the C++ half of clang's runtimes (see src/CMakeLists.txt).
      set(_consumer_c_link_flags "-fsanitize-link-c++-runtime -lstdc++")
    endif()
  endif()
  set(_common
    -DWORK_DIR=${_work} -DPREFIX=${_work}/prefix
    -DLIB_DIR=${CMAKE_INSTALL_LIBDIR}
    -DPKGCONFIG_DIR=${LB4MPI_INSTALL_PKGCONFIGDIR}
    -DCMAKE_PACKAGE_DIR=${LB4MPI_INSTALL_CMAKEDIR})
  set(_mpi_env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
               OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_btl_vader_single_copy_mechanism=none)

  add_test(NAME install.tree
    COMMAND ${CMAKE_COMMAND} -DMODE=install ${_common}
      -DBUILD_DIR=${PROJECT_BINARY_DIR} -DBUILD_CONFIG=$<CONFIG>
      -DEXPECT_MPI=${LB4MPI_PACKAGE_HAS_MPI} -DEXPECT_SHARED=${LB4MPI_PACKAGE_SHARED}
      -DEXPECT_STATIC=$<OR:$<BOOL:${LB4MPI_PACKAGE_STATIC_TWINS}>,$<NOT:$<BOOL:${LB4MPI_PACKAGE_SHARED}>>>
      -DEXPECT_TOOLS=$<TARGET_EXISTS:lb4mpi-chunks> -DSOVERSION=${LB4MPI_SOVERSION}
      -DEXPECT_PYTHON=$<$<TARGET_EXISTS:lb4mpi_python>:${LB4MPI_INSTALL_PYTHONDIR}>
      -DVERSION=${PROJECT_VERSION}
      -P ${PROJECT_SOURCE_DIR}/scripts/check_install.cmake)
  set_tests_properties(install.tree PROPERTIES LABELS "install" TIMEOUT 120
                       FIXTURES_SETUP lb4mpi_installed)

  set(_variants "")
  if(LB4MPI_PACKAGE_SHARED)
    list(APPEND _variants shared)
  endif()
  if(LB4MPI_PACKAGE_STATIC_TWINS OR NOT LB4MPI_PACKAGE_SHARED)
    list(APPEND _variants static)
  endif()
  if(LB4MPI_PACKAGE_HAS_MPI)
    set(_kinds cmake_cxx cmake_c pkgconfig)
  else()
    set(_kinds cmake_techniques)
  endif()
  string(REPLACE ";" "|" _preflags "${MPIEXEC_PREFLAGS}")
  string(REPLACE ";" "|" _postflags "${MPIEXEC_POSTFLAGS}")
  foreach(_kind IN LISTS _kinds)
    foreach(_variant IN LISTS _variants)
      add_test(NAME install.${_kind}.${_variant}
        COMMAND ${CMAKE_COMMAND} -DMODE=consumer -DKIND=${_kind} -DVARIANT=${_variant} ${_common}
          -DCONSUMERS_DIR=${PROJECT_SOURCE_DIR}/tests/consumers
          -DGENERATOR=${CMAKE_GENERATOR}
          -DC_COMPILER=${CMAKE_C_COMPILER} -DCXX_COMPILER=${CMAKE_CXX_COMPILER}
          -DMPI_C_COMPILER=${MPI_C_COMPILER} -DMPI_CXX_COMPILER=${MPI_CXX_COMPILER}
          -DMPIEXEC=${MPIEXEC_EXECUTABLE} -DMPIEXEC_NUMPROC_FLAG=${MPIEXEC_NUMPROC_FLAG}
          "-DMPIEXEC_PREFLAGS=${_preflags}" "-DMPIEXEC_POSTFLAGS=${_postflags}"
          "-DCONSUMER_FLAGS=${_consumer_flags}" "-DCONSUMER_C_LINK_FLAGS=${_consumer_c_link_flags}"
          -P ${PROJECT_SOURCE_DIR}/scripts/check_install.cmake)
      set(_labels "install")
      if(LB4MPI_PACKAGE_HAS_MPI)
        set(_labels "install;mpi")
      endif()
      set_tests_properties(install.${_kind}.${_variant} PROPERTIES
        LABELS "${_labels}" TIMEOUT 120 PROCESSORS 2 FIXTURES_REQUIRED lb4mpi_installed
        ENVIRONMENT "${_mpi_env}")
    endforeach()
  endforeach()
  # The Fortran modules (fortran/): a Fortran-only CMake project and mpifort
  # with pkg-config, the DLS4LB-style program of tests/consumers/fortran.
  if(LB4MPI_HAS_FORTRAN AND LB4MPI_PACKAGE_SHARED)
    foreach(_kind cmake_fortran pkgconfig_fortran)
      add_test(NAME install.${_kind}
        COMMAND ${CMAKE_COMMAND} -DMODE=consumer -DKIND=${_kind} -DVARIANT=shared ${_common}
          -DCONSUMERS_DIR=${PROJECT_SOURCE_DIR}/tests/consumers -DGENERATOR=${CMAKE_GENERATOR}
          -DFortran_COMPILER=${CMAKE_Fortran_COMPILER} -DMPI_Fortran_COMPILER=${MPI_Fortran_COMPILER}
          -DMPIEXEC=${MPIEXEC_EXECUTABLE} -DMPIEXEC_NUMPROC_FLAG=${MPIEXEC_NUMPROC_FLAG}
          "-DMPIEXEC_PREFLAGS=${_preflags}" "-DMPIEXEC_POSTFLAGS=${_postflags}"
          -P ${PROJECT_SOURCE_DIR}/scripts/check_install.cmake)
      set_tests_properties(install.${_kind} PROPERTIES
        LABELS "install;mpi;fortran" TIMEOUT 120 PROCESSORS 2 FIXTURES_REQUIRED lb4mpi_installed
        ENVIRONMENT "${_mpi_env}")
    endforeach()
  endif()
  # The Python package (python/CMakeLists.txt): imported from the prefix and
  # run under mpiexec on 2 ranks.
  if(TARGET lb4mpi_python)
    set(_variant static)
    if(LB4MPI_PACKAGE_SHARED)
      set(_variant shared)
    endif()
    add_test(NAME install.python
      COMMAND ${CMAKE_COMMAND} -DMODE=consumer -DKIND=python -DVARIANT=${_variant} ${_common}
        -DCONSUMERS_DIR=${PROJECT_SOURCE_DIR}/tests/consumers -DPYTHON=${LB4MPI_PYTHON}
        -DPYTHON_DIR=${LB4MPI_INSTALL_PYTHONDIR}
        -DMPIEXEC=${MPIEXEC_EXECUTABLE} -DMPIEXEC_NUMPROC_FLAG=${MPIEXEC_NUMPROC_FLAG}
        "-DMPIEXEC_PREFLAGS=${_preflags}" "-DMPIEXEC_POSTFLAGS=${_postflags}"
        -P ${PROJECT_SOURCE_DIR}/scripts/check_install.cmake)
    set_tests_properties(install.python PROPERTIES
      LABELS "install;mpi;python" TIMEOUT 120 PROCESSORS 2 FIXTURES_REQUIRED lb4mpi_installed
      ENVIRONMENT "${_mpi_env}")
  endif()
endif()
