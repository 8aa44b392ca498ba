# The install tests (label install; defined in cmake/Install.cmake) and the
# consumer half of scripts/check_deb.sh. Two modes:
#
# MODE=install: `cmake --install BUILD_DIR --prefix PREFIX`, then checks the
#   tree: the files, the sonames, that the shared libraries export the public
#   API and nothing of the internals, that lb4mpi-chunks runs from the prefix,
#   and that the pkg-config files name no MPI.
#     -DBUILD_DIR= -DBUILD_CONFIG= -DEXPECT_MPI= -DEXPECT_SHARED= -DEXPECT_STATIC=
#     -DEXPECT_TOOLS= -DSOVERSION= -DVERSION= [-DEXPECT_PYTHON=<its folder in the prefix>]
#
# MODE=consumer: builds one consumer of tests/consumers/ outside the build tree
#   against PREFIX (or, with -DSYSTEM=ON, against what is installed in the
#   system, with no search path given) and runs it under mpiexec on RANKS
#   (default 2) ranks; it checks exactly-once itself and prints "... ok".
#     -DKIND=cmake_cxx|cmake_c|pkgconfig|cmake_techniques|python|cmake_fortran|pkgconfig_fortran
#     -DVARIANT=shared|static
#     (python: the Python package, run by -DPYTHON= from PREFIX/PYTHON_DIR, or with
#     -DSYSTEM=ON from the interpreter's own path)
#     -DCONSUMERS_DIR= -DC_COMPILER= -DCXX_COMPILER= -DMPI_C_COMPILER= -DMPI_CXX_COMPILER=
#     -DMPIEXEC= [-DMPIEXEC_NUMPROC_FLAG=-n] [-DMPIEXEC_PREFLAGS=a|b] [-DMPIEXEC_POSTFLAGS=]
#     [-DGENERATOR=] [-DCONSUMER_FLAGS=...] (e.g. the sanitizers of an instrumented library)
#     [-DCONSUMER_C_LINK_FLAGS=...] (added when a C consumer links: clang's C++ sanitizer runtime)
#
# Both: -DWORK_DIR= -DPREFIX= -DLIB_DIR=lib -DPKGCONFIG_DIR=lib/pkgconfig
#       -DCMAKE_PACKAGE_DIR=lib/cmake/lb4mpi
cmake_minimum_required(VERSION 3.25)

function(require)
  foreach(var IN LISTS ARGN)
    if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
      message(FATAL_ERROR "check_install.cmake: -D${var}=... is required")
    endif()
  endforeach()
endfunction()

# run(<step> <command>...): runs it, fails the test with its output unless it
# exits 0; its stdout in run_output.
function(run step)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    string(REPLACE ";" " " cmd "${ARGN}")
    message(FATAL_ERROR "install test: ${step} failed (${rc})\n"
                        "command: ${cmd}\n--- stdout\n${out}\n--- stderr\n${err}")
  endif()
  set(run_output "${out}" PARENT_SCOPE)
endfunction()

require(MODE WORK_DIR)
if(NOT SYSTEM)
  require(PREFIX LIB_DIR PKGCONFIG_DIR CMAKE_PACKAGE_DIR)
endif()
find_program(READELF readelf)

# needed_libraries(<exe> <out>): the DT_NEEDED entries of an ELF file.
function(needed_libraries file out)
  set(${out} "" PARENT_SCOPE)
  if(READELF)
    run("readelf -d ${file}" ${READELF} -d ${file})
    string(REGEX MATCHALL "\\(NEEDED\\)[^\n]*\\[[^]]+\\]" lines "${run_output}")
    set(names "")
    foreach(l IN LISTS lines)
      string(REGEX REPLACE ".*\\[([^]]+)\\]" "\\1" n "${l}")
      list(APPEND names ${n})
    endforeach()
    set(${out} "${names}" PARENT_SCOPE)
  endif()
endfunction()

# ============================================================================
if(MODE STREQUAL "install")
  require(BUILD_DIR)
  file(REMOVE_RECURSE ${PREFIX})
  set(config_args "")
  if(BUILD_CONFIG)
    set(config_args --config ${BUILD_CONFIG})
  endif()
  run("cmake --install" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${PREFIX} ${config_args})

  set(libs lb4mpi_techniques)
  if(EXPECT_MPI)
    list(APPEND libs lb4mpi)
  endif()
  set(expected include/lb4mpi/techniques/chunk_calculator.hpp include/lb4mpi/export.h
               ${PKGCONFIG_DIR}/lb4mpi.pc ${CMAKE_PACKAGE_DIR}/lb4mpiConfig.cmake
               ${CMAKE_PACKAGE_DIR}/lb4mpiTargets.cmake)
  if(EXPECT_TOOLS)
    list(APPEND expected bin/lb4mpi-chunks)
  endif()
  if(EXPECT_MPI)
    list(APPEND expected include/lb4mpi/lb4mpi.hpp include/lb4mpi/lb4mpi.h)
  endif()
  foreach(lib IN LISTS libs)
    if(EXPECT_SHARED)
      list(APPEND expected ${LIB_DIR}/lib${lib}.so ${LIB_DIR}/lib${lib}.so.${SOVERSION}
                           ${LIB_DIR}/lib${lib}.so.${VERSION})
    endif()
    if(EXPECT_STATIC)
      list(APPEND expected ${LIB_DIR}/lib${lib}.a)
    endif()
  endforeach()
  if(EXPECT_STATIC)
    list(APPEND expected ${PKGCONFIG_DIR}/lb4mpi-static.pc)
    if(EXPECT_SHARED)
      list(APPEND expected ${CMAKE_PACKAGE_DIR}/lb4mpiStaticTargets.cmake)
    endif()
  endif()
  if(EXPECT_PYTHON)
    list(APPEND expected ${EXPECT_PYTHON}/lb4mpi/__init__.py)
    file(GLOB module ${PREFIX}/${EXPECT_PYTHON}/lb4mpi/_core*.so)
    if(NOT module)
      message(FATAL_ERROR "install test: no ${PREFIX}/${EXPECT_PYTHON}/lb4mpi/_core*.so was installed")
    endif()
  endif()
  foreach(f IN LISTS expected)
    if(NOT EXISTS ${PREFIX}/${f})
      message(FATAL_ERROR "install test: ${PREFIX}/${f} was not installed")
    endif()
  endforeach()

  # The shared libraries: their sonames, and the symbols they export — the
  # public API (lb4mpi::..., the C API), never the internals (lb4mpi::rt,
  # lb4mpi::detail, lb4mpi::trace, lb4mpi::capi, anonymous namespaces; also
  # not their typeinfo or vtables).
  find_program(NM nm)
  if(EXPECT_SHARED AND READELF AND NM)
    foreach(lib IN LISTS libs)
      set(file ${PREFIX}/${LIB_DIR}/lib${lib}.so.${VERSION})
      run("readelf -d" ${READELF} -d ${file})
      if(NOT run_output MATCHES "\\(SONAME\\)[^\n]*\\[lib${lib}\\.so\\.${SOVERSION}\\]")
        message(FATAL_ERROR "install test: ${file} has no soname lib${lib}.so.${SOVERSION}:\n${run_output}")
      endif()
      run("nm -D" ${NM} -D -C --defined-only ${file})
      string(REGEX MATCHALL "[^\n]+" symbols "${run_output}")
      set(internal "")
      set(count 0)
      foreach(line IN LISTS symbols)
        math(EXPR count "${count} + 1")
        # The symbol's own name, not a template argument: a std:: template
        # instantiated on an internal type may be exported weakly (clang).
        if(line MATCHES "^[0-9a-f]* [A-Za-z] ([a-zA-Z ]+ for )?lb4mpi::(rt::|detail::|trace::|capi::|\\(anonymous namespace\\))")
          list(APPEND internal "${line}")
        endif()
      endforeach()
      if(internal)
        list(LENGTH internal n)
        list(SUBLIST internal 0 10 first)
        string(REPLACE ";" "\n  " first "${first}")
        message(FATAL_ERROR "install test: lib${lib}.so exports ${n} internal symbols, e.g.\n  ${first}")
      endif()
      # What users link must be there, type information of the exceptions included.
      set(required "lb4mpi::parse_technique" "typeinfo for lb4mpi::Error" "typeinfo for lb4mpi::InvalidParameter")
      if(lib STREQUAL "lb4mpi")
        set(required "DLS_StartLoop" "lb4mpi::Loop::next()" "typeinfo for lb4mpi::OutputError"
                     "lb4mpi::Options::from_env()" "DLS_Setup" "DLS_GroupSetup" "get_DLS_ShortName")
      endif()
      foreach(sym IN LISTS required)
        string(FIND "${run_output}" "${sym}" at)
        if(at EQUAL -1)
          message(FATAL_ERROR "install test: lib${lib}.so does not export ${sym}")
        endif()
      endforeach()
      message(STATUS "lib${lib}.so.${SOVERSION}: ${count} exported symbols, none internal")
    endforeach()
  endif()

  if(EXPECT_TOOLS)
    # Runs from the prefix without LD_LIBRARY_PATH: its RUNPATH finds the libraries.
    run("running the installed lb4mpi-chunks" ${PREFIX}/bin/lb4mpi-chunks -t GSS -n 100 -p 4 --form closed)
  endif()

  # The pkg-config files serve any MPI: none is named in them.
  file(GLOB pcs ${PREFIX}/${PKGCONFIG_DIR}/*.pc)
  foreach(pc IN LISTS pcs)
    file(STRINGS ${pc} lines REGEX "^(Cflags|Libs)")
    if(lines MATCHES "-lmpi|libmpi|mpich|openmpi|ompi")
      message(FATAL_ERROR "install test: ${pc} names an MPI: ${lines}")
    endif()
  endforeach()
  message(STATUS "installed into ${PREFIX}")
  return()
endif()

# ============================================================================
if(NOT MODE STREQUAL "consumer")
  message(FATAL_ERROR "check_install.cmake: MODE must be install or consumer, not '${MODE}'")
endif()
require(KIND VARIANT CONSUMERS_DIR)
if(NOT KIND STREQUAL "cmake_techniques")  # the only consumer without MPI
  require(MPIEXEC)
endif()
if(NOT RANKS)
  set(RANKS 2)
endif()
if(NOT MPIEXEC_NUMPROC_FLAG)
  set(MPIEXEC_NUMPROC_FLAG -n)
endif()
string(REPLACE "|" ";" MPIEXEC_PREFLAGS "${MPIEXEC_PREFLAGS}")
string(REPLACE "|" ";" MPIEXEC_POSTFLAGS "${MPIEXEC_POSTFLAGS}")
separate_arguments(extra_flags UNIX_COMMAND "${CONSUMER_FLAGS}")
separate_arguments(c_link_flags UNIX_COMMAND "${CONSUMER_C_LINK_FLAGS}")

set(build ${WORK_DIR}/${KIND}-${VARIANT})
file(REMOVE_RECURSE ${build})
file(MAKE_DIRECTORY ${build})

# The MPI wrappers compile with the configuration's compilers (Open MPI's and
# MPICH's wrappers read these), so a consumer is built as the library was.
if(C_COMPILER)
  set(ENV{OMPI_CC} ${C_COMPILER})
  set(ENV{MPICH_CC} ${C_COMPILER})
endif()
if(CXX_COMPILER)
  set(ENV{OMPI_CXX} ${CXX_COMPILER})
  set(ENV{MPICH_CXX} ${CXX_COMPILER})
endif()
# A shared library outside the loader's paths: a program built by CMake finds
# it through its RUNPATH (and liblb4mpi.so its sibling liblb4mpi_techniques
# through its own), and so does one built by hand with pkg-config's flags
# (lb4mpi.pc's -Wl,-rpath,${libdir}, issue 34): every consumer runs without
# LD_LIBRARY_PATH, as a user's program would.

# run_consumer(<exe> <expected output regex> [args...]): under mpiexec, then
# checks how the program was linked: the variant's kind of lb4mpi.
function(run_consumer exe expect)
  set(cmd ${MPIEXEC} ${MPIEXEC_NUMPROC_FLAG} ${RANKS} ${MPIEXEC_PREFLAGS} ${exe} ${MPIEXEC_POSTFLAGS} ${ARGN})
  if(KIND STREQUAL "cmake_techniques")
    set(cmd ${exe} ${ARGN})
  endif()
  run("running ${exe}" ${cmd})
  if(NOT run_output MATCHES "${expect}")
    message(FATAL_ERROR "install test: ${exe} printed\n${run_output}\nnot matching '${expect}'")
  endif()
  string(STRIP "${run_output}" out)
  needed_libraries(${exe} needed)
  if(READELF)
    if(VARIANT STREQUAL "shared" AND NOT needed MATCHES "liblb4mpi")
      message(FATAL_ERROR "install test: ${exe} (shared) does not load liblb4mpi: ${needed}")
    elseif(VARIANT STREQUAL "static" AND needed MATCHES "liblb4mpi")
      message(FATAL_ERROR "install test: ${exe} (static) loads a shared lb4mpi: ${needed}")
    endif()
  endif()
  message(STATUS "${KIND} ${VARIANT}: ${out} [needs: ${needed}]")
endfunction()

if(KIND MATCHES "^cmake_(cxx|c|techniques)$")
  set(project ${CMAKE_MATCH_1})
  # No build type: unoptimized, the quickest to compile.
  set(args -S ${CONSUMERS_DIR}/${project} -B ${build})
  if(NOT SYSTEM)
    list(APPEND args -DCMAKE_PREFIX_PATH=${PREFIX})
  endif()
  if(VARIANT STREQUAL "static")
    list(APPEND args -Dlb4mpi_USE_STATIC_LIBS=ON)
  endif()
  if(GENERATOR)
    list(APPEND args -G ${GENERATOR})
  endif()
  foreach(pair "C_COMPILER;CMAKE_C_COMPILER" "CXX_COMPILER;CMAKE_CXX_COMPILER"
               "MPI_C_COMPILER;MPI_C_COMPILER" "MPI_CXX_COMPILER;MPI_CXX_COMPILER")
    list(GET pair 0 from)
    list(GET pair 1 to)
    if(${from})
      list(APPEND args -D${to}=${${from}})
    endif()
  endforeach()
  if(CONSUMER_FLAGS OR CONSUMER_C_LINK_FLAGS)
    set(link_flags "${CONSUMER_FLAGS}")
    if(project STREQUAL "c")
      string(APPEND link_flags " ${CONSUMER_C_LINK_FLAGS}")
    endif()
    list(APPEND args "-DCMAKE_C_FLAGS=${CONSUMER_FLAGS}" "-DCMAKE_CXX_FLAGS=${CONSUMER_FLAGS}"
                     "-DCMAKE_EXE_LINKER_FLAGS=${link_flags}")
  endif()
  run("configuring the ${project} consumer" ${CMAKE_COMMAND} ${args})
  run("building the ${project} consumer" ${CMAKE_COMMAND} --build ${build})
  if(project STREQUAL "cxx")
    run_consumer(${build}/consumer_cxx "consumer-cxx: ok: .*caught Error, InvalidParameter, OutputError"
                 ${build})
  elseif(project STREQUAL "c")
    run_consumer(${build}/consumer_c "consumer-c: ok")
  else()
    run_consumer(${build}/consumer_techniques "consumer-techniques: ok")
  endif()
  return()
endif()

# Fortran (fortran/, docs/FORTRAN.md): the DLS4LB-style program of
# tests/consumers/fortran on 3 ranks, built by a Fortran-only CMake project
# (lb4mpi::fortran) or by mpifort with pkg-config's lb4mpi-fortran flags.
if(KIND MATCHES "^(cmake|pkgconfig)_fortran$")
  require(MPI_Fortran_COMPILER)
  set(RANKS 3)
  if(Fortran_COMPILER)
    set(ENV{OMPI_FC} ${Fortran_COMPILER})
    set(ENV{MPICH_FC} ${Fortran_COMPILER})
  endif()
  if(KIND STREQUAL "cmake_fortran")
    set(args -S ${CONSUMERS_DIR}/fortran -B ${build} -DMPI_Fortran_COMPILER=${MPI_Fortran_COMPILER})
    if(NOT SYSTEM)
      list(APPEND args -DCMAKE_PREFIX_PATH=${PREFIX})
    endif()
    if(Fortran_COMPILER)
      list(APPEND args -DCMAKE_Fortran_COMPILER=${Fortran_COMPILER})
    endif()
    if(GENERATOR)
      list(APPEND args -G ${GENERATOR})
    endif()
    run("configuring the fortran consumer" ${CMAKE_COMMAND} ${args})
    run("building the fortran consumer" ${CMAKE_COMMAND} --build ${build})
  else()
    find_program(PKG_CONFIG_EXECUTABLE NAMES pkg-config pkgconf REQUIRED)
    if(NOT SYSTEM)
      set(ENV{PKG_CONFIG_PATH} ${PREFIX}/${PKGCONFIG_DIR})
    endif()
    run("pkg-config --cflags --libs lb4mpi-fortran" ${PKG_CONFIG_EXECUTABLE} --cflags --libs lb4mpi-fortran)
    separate_arguments(flags UNIX_COMMAND "${run_output}")
    string(STRIP "${run_output}" shown)
    message(STATUS "pkg-config --cflags --libs lb4mpi-fortran: ${shown}")
    run("mpifort with pkg-config lb4mpi-fortran" ${MPI_Fortran_COMPILER} ${CONSUMERS_DIR}/fortran/main.f90
        -o ${build}/consumer_fortran ${flags})
  endif()
  run_consumer(${build}/consumer_fortran "consumer-fortran: ok")
  return()
endif()

if(KIND STREQUAL "python")
  # The installed package, and nothing else: PYTHONPATH names the prefix only
  # (with SYSTEM, the interpreter's own path: /usr/lib/python3/dist-packages).
  require(PYTHON)
  if(SYSTEM)
    unset(ENV{PYTHONPATH})
  else()
    require(PYTHON_DIR)
    set(ENV{PYTHONPATH} ${PREFIX}/${PYTHON_DIR})
  endif()
  set(ENV{PYTHONDONTWRITEBYTECODE} 1)
  set(cmd ${MPIEXEC} ${MPIEXEC_NUMPROC_FLAG} ${RANKS} ${MPIEXEC_PREFLAGS} ${PYTHON}
          ${CONSUMERS_DIR}/python/consumer.py ${MPIEXEC_POSTFLAGS})
  run("running the python consumer" ${cmd})
  set(where "${PREFIX}/${PYTHON_DIR}/lb4mpi/")
  if(SYSTEM)
    set(where "/usr/lib/python3/dist-packages/lb4mpi/")
  endif()
  if(NOT run_output MATCHES "consumer-python: ok: lb4mpi [^ ]+ from ${where}")
    message(FATAL_ERROR "install test: the python consumer printed\n${run_output}\n(expected lb4mpi from ${where})")
  endif()
  file(GLOB module ${where}_core*.so)
  needed_libraries(${module} needed)
  if(READELF AND VARIANT STREQUAL "shared" AND NOT needed MATCHES "liblb4mpi")
    message(FATAL_ERROR "install test: ${module} does not load liblb4mpi: ${needed}")
  endif()
  string(STRIP "${run_output}" out)
  message(STATUS "python ${VARIANT}: ${out} [needs: ${needed}]")
  return()
endif()

if(NOT KIND STREQUAL "pkgconfig")
  message(FATAL_ERROR "check_install.cmake: unknown KIND '${KIND}'")
endif()
require(MPI_C_COMPILER MPI_CXX_COMPILER)
find_program(PKG_CONFIG_EXECUTABLE NAMES pkg-config pkgconf REQUIRED)
if(NOT SYSTEM)
  set(ENV{PKG_CONFIG_PATH} ${PREFIX}/${PKGCONFIG_DIR})
endif()
# (pc name, pkg-config options) to build with: the static variant links the
# archives through lb4mpi-static.pc, and, in a static-only install, through
# lb4mpi.pc with --static as well.
if(VARIANT STREQUAL "shared")
  set(ways "lb4mpi|")
else()
  set(ways "lb4mpi-static|")
  if(NOT SYSTEM AND NOT EXISTS ${PREFIX}/${LIB_DIR}/liblb4mpi.so)
    list(APPEND ways "lb4mpi|--static")
  endif()
endif()
set(n 0)
foreach(way IN LISTS ways)
  string(REPLACE "|" ";" way "${way}")
  list(GET way 0 pc)
  list(LENGTH way len)
  set(opts "")
  if(len GREATER 1)
    list(GET way 1 opts)
  endif()
  run("pkg-config ${opts} --cflags ${pc}" ${PKG_CONFIG_EXECUTABLE} ${opts} --cflags ${pc})
  separate_arguments(cflags UNIX_COMMAND "${run_output}")
  run("pkg-config ${opts} --libs ${pc}" ${PKG_CONFIG_EXECUTABLE} ${opts} --libs ${pc})
  separate_arguments(libs UNIX_COMMAND "${run_output}")
  string(STRIP "${run_output}" shown)
  string(STRIP "pkg-config ${opts}" how)
  message(STATUS "${how} --libs ${pc}: ${shown}")
  math(EXPR n "${n} + 1")
  # Exactly what a user types: the wrapper, the source, pkg-config's flags.
  run("mpicc with pkg-config ${pc}" ${MPI_C_COMPILER} ${extra_flags} ${cflags}
      ${CONSUMERS_DIR}/c/main.c -o ${build}/consumer_c${n} ${libs} ${c_link_flags})
  run_consumer(${build}/consumer_c${n} "consumer-c: ok")
  if(NOT opts)  # one C++ build per variant is enough
    run("mpicxx with pkg-config ${pc}" ${MPI_CXX_COMPILER} -std=c++20 ${extra_flags} ${cflags}
        ${CONSUMERS_DIR}/cxx/main.cpp -o ${build}/consumer_cxx${n} ${libs})
    run_consumer(${build}/consumer_cxx${n} "consumer-cxx: ok: .*caught Error, InvalidParameter, OutputError"
                 ${build})
  endif()
endforeach()
