// The extension module lb4mpi._core; the package lb4mpi (python/lb4mpi/)
// re-exports it. docs/PYTHON.md.
#include "binding.hpp"

#ifndef LB4MPI_VERSION
#error "LB4MPI_VERSION is set by python/CMakeLists.txt"
#endif

PYBIND11_MODULE(_core, m) {
  namespace python = lb4mpi::python;
  m.doc() = "lb4mpi's C++ API for Python (use the package lb4mpi)";
  python::import_mpi4py();
  python::bind_errors(m);
  python::bind_options(m);
  python::bind_report(m);
  python::bind_loop(m);
  python::bind_loop_set(m);
  m.attr("__version__") = LB4MPI_VERSION;
}
