# Debian packages from CPack (included at the end of the top-level
# CMakeLists.txt, after cmake/Install.cmake; docs/INSTALL.md):
#
#   cmake -S . -B build/deb -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX=/usr \
#         -DLB4MPI_BUILD_TESTS=OFF -DLB4MPI_BUILD_BENCH=OFF
#   cmake --build build/deb -j2 && (cd build/deb && cpack -G DEB)
#   apt-get install ./build/deb/lb4mpi_*.deb ./build/deb/lb4mpi-dev_*.deb
#
# gives two packages, the Debian way:
#   lb4mpi      the shared libraries (liblb4mpi.so.<soversion>,
#               liblb4mpi_techniques.so.<soversion>), lb4mpi-chunks, the apps
#               and the plot scripts (install components Runtime and
#               Unspecified, where apps/ installs its programs);
#   lb4mpi-dev  headers, the .so links, the static archives, the CMake package
#               and the pkg-config files (component Development).
#   python3-lb4mpi  the Python package lb4mpi in /usr/lib/python3/dist-packages
#               (component Python; only when it is built: python/CMakeLists.txt),
#               depending on lb4mpi (which brings the libraries the module
#               loads), python3-mpi4py and the Python it was built for.
# The MPI is the one the build found: Debian's default, Open MPI, unless
# configured otherwise. dpkg-shlibdeps derives the runtime package's
# dependencies from what the binaries load (libopenmpi3, libstdc++6, libc6,
# zlib1g for the apps) and it recommends the MPI's launcher (openmpi-bin); the
# -dev package depends on the runtime package of the same version and on the
# MPI's -dev package (mpi.h, mpicc, FindMPI).
# Configured with CMAKE_INSTALL_PREFIX=/usr, the libraries go to Debian's
# multiarch folder (lib/x86_64-linux-gnu) and the programs carry no RUNPATH.

set(CPACK_PACKAGE_NAME lb4mpi)
set(CPACK_PACKAGE_VENDOR lb4mpi)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
if(NOT CPACK_PACKAGE_CONTACT)
  set(CPACK_PACKAGE_CONTACT "lb4mpi maintainers <lb4mpi@users.noreply.invalid>")
endif()
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_DIRECTORY ${PROJECT_BINARY_DIR})

# The MPI's Debian packages, from the MPI the build found: its headers and
# wrappers (lb4mpi-dev depends on them) and its launcher (recommended: the
# programs run under mpiexec).
set(_lb4mpi_deb_mpi_dev libopenmpi-dev)
set(_lb4mpi_deb_mpi_bin openmpi-bin)
if(DEFINED MPI_C_COMPILER AND MPI_C_COMPILER MATCHES "mpich")
  set(_lb4mpi_deb_mpi_dev libmpich-dev)
  set(_lb4mpi_deb_mpi_bin mpich)
endif()
set(LB4MPI_DEB_MPI_DEV ${_lb4mpi_deb_mpi_dev} CACHE STRING
    "Debian package of the MPI's headers and wrappers that lb4mpi-dev depends on")
set(LB4MPI_DEB_MPI_BIN ${_lb4mpi_deb_mpi_bin} CACHE STRING
    "Debian package of the MPI's launcher that lb4mpi recommends")

# One package per component group: the runtime (Runtime + Unspecified, the
# apps) and the development files.
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_GROUPING ONE_PER_GROUP)
set(CPACK_COMPONENTS_ALL Runtime Unspecified Development)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # <name>_<version>-<release>_<arch>.deb
set(CPACK_DEBIAN_PACKAGE_RELEASE 1)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)

set(_lb4mpi_deb_version "${PROJECT_VERSION}-${CPACK_DEBIAN_PACKAGE_RELEASE}")
set(CPACK_DEBIAN_RUNTIME_PACKAGE_NAME lb4mpi)
set(CPACK_DEBIAN_RUNTIME_PACKAGE_SECTION libs)
set(CPACK_DEBIAN_RUNTIME_PACKAGE_RECOMMENDS "${LB4MPI_DEB_MPI_BIN}")
set(CPACK_DEBIAN_RUNTIME_PACKAGE_SUGGESTS "python3-matplotlib")
set(CPACK_DEBIAN_DEVELOPMENT_PACKAGE_NAME lb4mpi-dev)
set(CPACK_DEBIAN_DEVELOPMENT_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_DEVELOPMENT_PACKAGE_DEPENDS "lb4mpi (= ${_lb4mpi_deb_version}), ${LB4MPI_DEB_MPI_DEV}")
set(CPACK_DEBIAN_DEVELOPMENT_PACKAGE_RECOMMENDS "cmake, pkg-config")
if(LB4MPI_HAS_FORTRAN)  # the .mod files (fortran/) are gfortran's
  string(APPEND CPACK_DEBIAN_DEVELOPMENT_PACKAGE_RECOMMENDS ", gfortran")
endif()
set(CPACK_DEBIAN_DEVELOPMENT_PACKAGE_SHLIBDEPS OFF)  # headers, archives, links: nothing to scan

# The Python package: its own Debian package, as Debian names them. Its
# prerm removes the byte code Python wrote next to the files (py3clean's job
# in Debian's own packages), so that a purge leaves nothing behind.
if(TARGET lb4mpi_python)
  list(APPEND CPACK_COMPONENTS_ALL Python)
  set(CPACK_DEBIAN_PYTHON_PACKAGE_NAME python3-lb4mpi)
  set(CPACK_DEBIAN_PYTHON_PACKAGE_SECTION python)
  string(REGEX REPLACE "^3\\.([0-9]+)$" "\\1" _lb4mpi_py_minor "${LB4MPI_PYTHON_VERSION}")
  math(EXPR _lb4mpi_py_next "${_lb4mpi_py_minor} + 1")
  set(CPACK_DEBIAN_PYTHON_PACKAGE_DEPENDS
      "lb4mpi (= ${_lb4mpi_deb_version}), python3 (>= ${LB4MPI_PYTHON_VERSION}), python3 (<< 3.${_lb4mpi_py_next}), python3-mpi4py")
  set(CPACK_DEBIAN_PYTHON_PACKAGE_SUGGESTS "python3-numpy")
  # What the module loads (liblb4mpi, the MPI's library, the C++ runtime)
  # comes with lb4mpi of the same version, which this package depends on;
  # dpkg-shlibdeps would not find liblb4mpi, a library of this same build.
  set(CPACK_DEBIAN_PYTHON_PACKAGE_SHLIBDEPS OFF)
  configure_file(${CMAKE_CURRENT_LIST_DIR}/python3-lb4mpi.prerm.in ${PROJECT_BINARY_DIR}/debian-python/prerm @ONLY
                 FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
  set(CPACK_DEBIAN_PYTHON_PACKAGE_CONTROL_EXTRA ${PROJECT_BINARY_DIR}/debian-python/prerm)
endif()

include(CPack)

cpack_add_component_group(Runtime
  DESCRIPTION "lb4mpi balances the load of loops with independent iterations across the
ranks of an MPI job, with 21 dynamic loop self-scheduling techniques. This
package holds the shared libraries, lb4mpi-chunks (the chunk explorer), the
example applications and the trace plot scripts.")
cpack_add_component_group(Development
  DESCRIPTION "Headers (C++ API <lb4mpi/lb4mpi.hpp>, LB4MPI-compatible C API
<lb4mpi/lb4mpi.h>), static archives, the CMake package (find_package(lb4mpi))
and pkg-config files (lb4mpi, lb4mpi-static) of lb4mpi.")
cpack_add_component(Runtime GROUP Runtime)
cpack_add_component(Unspecified GROUP Runtime)
cpack_add_component(Development GROUP Development)
if(TARGET lb4mpi_python)
  cpack_add_component_group(Python
    DESCRIPTION "The Python package lb4mpi: dynamic loop self-scheduling for mpi4py codes
(lb4mpi.parallel_for, Loop, LoopSet), over the lb4mpi library.")
  cpack_add_component(Python GROUP Python)
endif()
