// lb4mpi.Loop (the start-chunk / end-chunk form) and lb4mpi.parallel_for.
// The GIL is released for every call into the library that may wait or
// communicate (the collective start and finish, next(), end_chunk()), and
// taken again for each call of Python code: the loop body and the commit
// callback. The body sees (begin, end): NumPy slices a[begin:end] are views,
// nothing of the user's data is copied.
#include <pybind11/stl.h>

#include <string>
#include <utility>

#include "binding.hpp"

namespace lb4mpi::python {

// ---- CommitSink

void CommitSink::operator()(Chunk piece, const std::byte* data, std::size_t bytes) {
  py::gil_scoped_acquire gil;
  if (pending_) return;  // the first error is raised; later commits are not called
  try {
    commit_(piece.begin, piece.end(), py::bytes(reinterpret_cast<const char*>(data), bytes));
  } catch (py::error_already_set& e) {
    pending_.emplace(std::move(e));
  }
}

void CommitSink::raise_pending() {
  if (!pending_) return;
  py::error_already_set e = std::move(*pending_);
  pending_.reset();
  throw e;
}

// ---- PyLoop

PyLoop::PyLoop(py::object comm, Index first, Index last, const Options& options) : comm_(std::move(comm)) {
  const MPI_Comm c = communicator(comm_);
  py::gil_scoped_release nogil;
  loop_ = std::make_unique<Loop>(c, first, last, options);
}

PyLoop::~PyLoop() {
  if (mpi_finalized()) {
    (void)loop_.release();  // its destructor would call MPI: the process is ending anyway
    return;
  }
  py::gil_scoped_release nogil;  // an unfinished loop's destructor is collective
  loop_.reset();
}

std::optional<Chunk> PyLoop::next_chunk() {
  py::gil_scoped_release nogil;
  return loop_->next();
}

py::object PyLoop::next() {
  const std::optional<Chunk> c = next_chunk();
  if (!c) return py::none();
  return py::make_tuple(c->begin, c->end());
}

void PyLoop::end_chunk() {
  {
    py::gil_scoped_release nogil;
    loop_->end_chunk();
  }
}

std::shared_ptr<CommitSink> commit_sink(const py::object& commit) {
  if (commit.is_none()) return nullptr;
  if (!PyCallable_Check(commit.ptr())) throw py::type_error("lb4mpi: on_commit wants a callable or None");
  return std::make_shared<CommitSink>(commit.cast<py::function>());
}

void PyLoop::result(py::handle data) {
  with_buffer(data, [this](const void* bytes, std::size_t n) { loop_->result(bytes, n); });
}

void PyLoop::on_commit(py::object commit) {
  sink_ = commit_sink(commit);
  if (!sink_) {
    loop_->on_commit(nullptr);
    return;
  }
  loop_->on_commit([sink = sink_](Chunk piece, const std::byte* data, std::size_t bytes) {
    (*sink)(piece, data, bytes);
  });
}

Report PyLoop::finish() {
  std::optional<Report> r;
  {
    py::gil_scoped_release nogil;
    r = loop_->finish();
  }
  if (sink_) sink_->raise_pending();
  return std::move(*r);
}

void PyLoop::restart(Index first, Index last) {
  py::gil_scoped_release nogil;
  loop_->restart(first, last);
}

namespace {

// parallel_for with results: body's return value is pickled, travels with the
// chunk's completion, and is unpickled for commit(begin, end, value) once,
// on the rank that commits (see Loop::on_commit).
Report parallel_for_results(py::object comm, Index first, Index last, const Options& options,
                            const py::function& body, const py::function& commit) {
  const py::module_ pickle = py::module_::import("pickle");
  const py::object dumps = pickle.attr("dumps");
  const py::object loads = pickle.attr("loads");
  const py::object protocol = pickle.attr("HIGHEST_PROTOCOL");
  PyLoop loop(std::move(comm), first, last, options);
  loop.on_commit(py::cpp_function([commit, loads](Index begin, Index end, const py::bytes& data) {
    commit(begin, end, loads(data));
  }));
  return loop.run([&](Chunk c) { loop.result(dumps(body(c.begin, c.end()), protocol)); });
}

}  // namespace

void bind_loop(py::module_& m) {
  py::class_<PyLoop>(m, "Loop", R"(A loop in flight on this rank: the start-chunk / end-chunk form.

    loop = lb4mpi.Loop(comm, first, last, technique="GSS")   # collective
    for begin, end in loop:          # next() until None; each next() ends the previous piece
        work(begin, end)
    report = loop.finish()           # collective
    loop.restart(first, last)        # the next time step (adaptive techniques keep what they learnt)

Options: `options` (an lb4mpi.Options; default Options.from_env()) and
keywords on top. Collective over `comm` (an mpi4py.MPI.Comm); bad input
raises lb4mpi.Error on every rank.)")
      .def(py::init([](py::object comm, Index first, Index last, py::object options, const py::kwargs& kw) {
             return std::make_unique<PyLoop>(std::move(comm), first, last, options_from(options, kw));
           }),
           py::arg("comm"), py::arg("first"), py::arg("last"), py::kw_only(), py::arg("options") = py::none(),
           R"(Starts the loop over [first, last) (collective over `comm`).

Arguments:
    comm: an mpi4py.MPI.Comm; every rank of it calls this alike.
    first, last: the iterations [first, last) (global indices, first <= last).
    options: an lb4mpi.Options (default: Options.from_env(), the LB4MPI_* variables).
    **kwargs: options set on top of `options` (technique="GSS", mode=..., min_chunk=...;
        lb4mpi.option_names() lists them).)")
      .def("next", &PyLoop::next, "(begin, end) of this rank's next piece, or None when there is none left.")
      .def("end_chunk", &PyLoop::end_chunk, "Ends the current piece without asking for another (optional).")
      .def("result", &PyLoop::result, py::arg("data"),
           "Attaches the current piece's result: the bytes of a buffer (bytes, a NumPy array, ...), read in "
           "place; committed once by on_commit's callback.")
      .def("on_commit", &PyLoop::on_commit, py::arg("commit"),
           "commit(begin, end, data: bytes) for each committed piece: on the coordinator (centralized, "
           "distributed, robust mode), on the executing rank (distributed-rma without robust mode, STATIC). "
           "Set it on every rank before next().")
      .def("finish", &PyLoop::finish, "Collective: waits for all ranks; the Report, on every rank.")
      .def("restart", &PyLoop::restart, py::arg("first"), py::arg("last"),
           "Collective: the next execution of the loop, possibly over another range.")
      .def_property_readonly("options", &PyLoop::options, "The loop's options (a copy).")
      .def("__iter__", [](py::object self) { return self; })
      .def("__next__", [](PyLoop& l) {
        py::object c = l.next();
        if (c.is_none()) throw py::stop_iteration();
        return c;
      });

  m.def(
      "parallel_for",
      [](py::object comm, Index first, Index last, const py::function& body, py::object options,
         py::object commit, const py::kwargs& kw) {
        const Options o = options_from(options, kw);
        if (!commit.is_none()) {
          return parallel_for_results(std::move(comm), first, last, o, body, commit.cast<py::function>());
        }
        PyLoop loop(std::move(comm), first, last, o);
        return loop.run([&body](Chunk c) { body(c.begin, c.end()); });
      },
      py::arg("comm"), py::arg("first"), py::arg("last"), py::arg("body"), py::kw_only(),
      py::arg("options") = py::none(), py::arg("commit") = py::none(),
      R"(Runs body(begin, end) on this rank's chunks of [first, last) until the loop is done; returns the Report.

Arguments:
    comm: an mpi4py.MPI.Comm; every rank of it calls parallel_for alike.
    first, last: the iterations [first, last) (global indices, first <= last).
    body: body(begin, end) runs the iterations [begin, end) of one chunk.
    options: an lb4mpi.Options (default: Options.from_env(), the LB4MPI_* variables).
    commit: None, or commit(begin, end, value) called once per chunk with body's
        return value (see below).
    **kwargs: options set on top of `options` (technique="FAC2", mode="distributed",
        min_chunk=..., robust=True, ...; lb4mpi.option_names() lists them).

Collective over `comm` (an mpi4py.MPI.Comm): every rank calls it with the same
range and options, and together the chunks cover [first, last) exactly once.
Options: `options` (an lb4mpi.Options; default Options.from_env(), i.e. the
LB4MPI_* variables) and keywords on top: technique="FAC2", mode="distributed",
min_chunk=..., robust=True, ... (lb4mpi.option_names()).
With `commit`, body's return value (any picklable object) is the chunk's
result, and commit(begin, end, value) is called once per chunk on the rank
that commits it (robust mode: also when the chunk ran twice).)");
}

}  // namespace lb4mpi::python
