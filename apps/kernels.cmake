# The apps' kernels and MPI-free helpers: target lb4mpi_apps_kernels.
# Included by apps/CMakeLists.txt and, when the apps are not built (no MPI),
# by tests/apps/CMakeLists.txt, so the kernel unit tests build either way.
if(TARGET lb4mpi_apps_kernels)
  return()
endif()
find_package(ZLIB REQUIRED)
set(_lb4mpi_apps_dir ${CMAKE_CURRENT_LIST_DIR})
cmake_path(GET _lb4mpi_apps_dir PARENT_PATH _lb4mpi_root)
add_library(lb4mpi_apps_kernels STATIC
  ${_lb4mpi_apps_dir}/common/png.cpp
  ${_lb4mpi_apps_dir}/common/timing.cpp
  ${_lb4mpi_apps_dir}/cube/cube_kernel.cpp
  ${_lb4mpi_apps_dir}/mandelbrot/mandelbrot_kernel.cpp
  ${_lb4mpi_apps_dir}/particles/particles_kernel.cpp
  ${_lb4mpi_apps_dir}/pisolver/pisolver_kernel.cpp
  ${_lb4mpi_apps_dir}/pisolver_stream/pisolver_stream_kernel.cpp
  ${_lb4mpi_apps_dir}/psia/psia_kernel.cpp
  ${_lb4mpi_apps_dir}/seismic/seismic_kernel.cpp
  ${_lb4mpi_apps_dir}/synthetic/synthetic_kernel.cpp)
# Kernels include lb4mpi/types.hpp (header-only) and "../common/...".
target_include_directories(lb4mpi_apps_kernels PUBLIC ${_lb4mpi_root}/src/techniques/include ${_lb4mpi_apps_dir})
target_compile_features(lb4mpi_apps_kernels PUBLIC cxx_std_20)
target_link_libraries(lb4mpi_apps_kernels PUBLIC ZLIB::ZLIB lb4mpi_platform PRIVATE lb4mpi_flags)
unset(_lb4mpi_apps_dir)
unset(_lb4mpi_root)
