// lb4mpi's C++ exceptions as Python exceptions:
//   lb4mpi::Error        -> lb4mpi.Error (a ValueError, as lb4mpi::Error is a
//                           std::invalid_argument)
//   lb4mpi::OutputError  -> lb4mpi.OutputError (an lb4mpi.Error) whose
//                           `reports` are the reports of the loops that ended
// Both are raised on every rank alike: the library agrees on them.
#include <pybind11/stl.h>

#include "binding.hpp"

namespace lb4mpi::python {
namespace {

// The exception classes, kept for the life of the process (the translators,
// plain functions, run until the end); handles have no destructor.
py::handle error;
py::handle output_error;

}  // namespace

void bind_errors(py::module_& m) {
  error = py::exception<Error>(m, "Error", PyExc_ValueError).release();
  output_error = py::exception<OutputError>(m, "OutputError", error.ptr()).release();
  error.attr("__doc__") =
      "An error lb4mpi reports: bad options or arguments, ranks that disagree, a failed MPI call. Raised on "
      "every rank of the loop alike; the message names what is wrong and the valid choices.";
  output_error.attr("__doc__") =
      "The loop ran, but lb4mpi could not write one of its output files (a trace, an iteration CSV). "
      "`reports` holds the reports the call would have returned.";
  // Tried in the reverse order of registration: OutputError before Error.
  py::register_exception_translator([](std::exception_ptr p) {
    if (!p) return;
    try {
      std::rethrow_exception(p);
    } catch (const Error& e) {
      PyErr_SetString(error.ptr(), e.what());
    }
  });
  py::register_exception_translator([](std::exception_ptr p) {
    if (!p) return;
    try {
      std::rethrow_exception(p);
    } catch (const OutputError& e) {
      py::object exc = output_error(e.what());
      exc.attr("reports") = py::cast(e.reports());
      PyErr_SetObject(output_error.ptr(), exc.ptr());
    }
  });
}

}  // namespace lb4mpi::python
