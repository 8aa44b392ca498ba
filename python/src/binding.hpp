// The Python front end of lb4mpi (module lb4mpi._core): a thin layer of
// pybind11 over the C++ API of include/lb4mpi/. Nothing here schedules: every
// call goes to lb4mpi::Loop, LoopSet, parallel_for, run_loops, Options or
// Report. What it adds is what Python needs:
//   - the MPI communicator of an mpi4py.MPI.Comm (comm.cpp);
//   - options as typed attributes and keywords (options.cpp);
//   - the GIL released wherever the library may wait or communicate, and
//     taken again for every call into Python (loop bodies, commit callbacks);
//   - lb4mpi's C++ exceptions as Python exceptions (errors.cpp).
// docs/PYTHON.md describes the Python API.
#pragma once
#include <mpi.h>
#include <pybind11/pybind11.h>

#include <memory>
#include <optional>

#include "lb4mpi/lb4mpi.hpp"
#include "lb4mpi/loops.hpp"

namespace lb4mpi::python {

namespace py = pybind11;

// comm.cpp
/// Loads mpi4py's C API (imports mpi4py.MPI, which initializes MPI).
void import_mpi4py();
/// The MPI_Comm of an mpi4py.MPI.Comm; TypeError for anything else,
/// lb4mpi.Error when MPI is not (or no longer) initialized.
MPI_Comm communicator(py::handle comm);
/// True once MPI_Finalize ran (mpi4py finalizes at the interpreter's exit).
bool mpi_finalized();

// errors.cpp
void bind_errors(py::module_& m);

// options.cpp
void bind_options(py::module_& m);
/// The options of a loop: `base` (an lb4mpi.Options), or when it is None
/// Options.from_env(); then every keyword of `keywords` set as the attribute
/// of that name. An unknown keyword or a value of the wrong type: TypeError
/// naming the valid keywords / the type wanted; a bad value (technique, mode
/// names): lb4mpi.Error naming the valid choices.
Options options_from(py::handle base, const py::dict& keywords);

// report.cpp
void bind_report(py::module_& m);

// loop.cpp, loop_set.cpp
void bind_loop(py::module_& m);
void bind_loop_set(py::module_& m);

/// Commit callbacks run inside the library (Loop::on_commit, on the
/// coordinator, within next() or finish()). An exception of the Python
/// callback must not unwind through the runtime's protocol, nor leave the
/// other ranks waiting for this one: it is kept here (later commits are not
/// called) and finish() raises it, once the loop completed on every rank.
/// Calls `use(const void* data, std::size_t bytes)` on the bytes of `data`,
/// any object with the buffer protocol (bytes, bytearray, memoryview, a
/// contiguous NumPy array), read in place: Loop.result and LoopSet.result.
template <class Use>
void with_buffer(py::handle data, Use&& use) {
  Py_buffer view;
  if (PyObject_GetBuffer(data.ptr(), &view, PyBUF_SIMPLE) != 0) throw py::error_already_set();
  try {
    use(static_cast<const void*>(view.buf), static_cast<std::size_t>(view.len));
  } catch (...) {
    PyBuffer_Release(&view);
    throw;
  }
  PyBuffer_Release(&view);
}

/// A commit callback from Python (callable or None): the CommitSink to keep,
/// null for None; a type error for anything else.
std::shared_ptr<class CommitSink> commit_sink(const py::object& commit);

class CommitSink {
 public:
  explicit CommitSink(py::function commit) : commit_(std::move(commit)) {}
  /// Called by the library without the GIL.
  void operator()(Chunk piece, const std::byte* data, std::size_t bytes);
  /// With the GIL: raises the first exception a callback raised, if any.
  void raise_pending();

 private:
  py::function commit_;
  std::optional<py::error_already_set> pending_;
};

/// An lb4mpi::Loop held by Python: the GIL released around every call that
/// may communicate, the communicator object kept alive, and a loop still
/// alive when MPI has been finalized left alone (its destructor would call MPI).
class PyLoop {
 public:
  PyLoop(py::object comm, Index first, Index last, const Options& options);
  ~PyLoop();
  PyLoop(const PyLoop&) = delete;
  PyLoop& operator=(const PyLoop&) = delete;

  /// (begin, end) of this rank's next piece, or None.
  py::object next();
  /// Runs the loop to its end on this rank: `call(Chunk)` (with the GIL) for
  /// every piece, then finish(). What parallel_for does.
  template <class Call>
  Report run(Call&& call) {
    while (const std::optional<Chunk> c = next_chunk()) call(*c);
    return finish();
  }
  void end_chunk();
  /// The current piece's result: the bytes of any object with the buffer
  /// protocol (bytes, bytearray, memoryview, a contiguous NumPy array), read
  /// in place.
  void result(py::handle data);
  /// `commit(begin, end, data: bytes)`, or None to drop it.
  void on_commit(py::object commit);
  Report finish();
  void restart(Index first, Index last);
  [[nodiscard]] const Options& options() const { return loop_->options(); }

 private:
  std::optional<Chunk> next_chunk();  // Loop::next without the GIL

  py::object comm_;
  std::shared_ptr<CommitSink> sink_;  // declared before loop_: outlives it
  std::unique_ptr<Loop> loop_;
};

}  // namespace lb4mpi::python
