// lb4mpi.LoopSet (several loops in flight), lb4mpi.LoopSpec and
// lb4mpi.run_loops, over lb4mpi::LoopSet and lb4mpi::run_loops; the GIL as in
// loop.cpp.
#include <pybind11/stl.h>

#include <string>
#include <utility>
#include <vector>

#include "binding.hpp"

namespace lb4mpi::python {
namespace {

// The loops of a LoopSet or run_loops: each an lb4mpi.LoopSpec, or a tuple
// (first, last), (first, last, Options) or (first, last, {keyword: value}).
// `defaults` are the options of a loop given without its own, and the base of
// a loop given keywords.
std::vector<LoopSpec> specs_from(const py::iterable& loops, const Options& defaults) {
  std::vector<LoopSpec> specs;
  for (py::handle item : loops) {
    if (py::isinstance<LoopSpec>(item)) {
      specs.push_back(item.cast<LoopSpec>());
      continue;
    }
    const bool sequence = PySequence_Check(item.ptr()) != 0 && !py::isinstance<py::str>(item);
    const py::ssize_t n = sequence ? py::len(item) : 0;
    if (n != 2 && n != 3) {
      throw py::type_error("lb4mpi: a loop is an lb4mpi.LoopSpec, (first, last), (first, last, Options) or "
                           "(first, last, {option: value}); got " + std::string(py::repr(item)));
    }
    const py::sequence s = py::reinterpret_borrow<py::sequence>(item);
    LoopSpec spec{s[0].cast<Index>(), s[1].cast<Index>(), defaults};
    if (n == 3) {
      const py::object third = s[2];
      spec.options = py::isinstance<py::dict>(third) ? options_from(py::cast(defaults), third.cast<py::dict>())
                                                     : third.cast<Options>();
    }
    specs.push_back(std::move(spec));
  }
  return specs;
}

class PyLoopSet {
 public:
  PyLoopSet(py::object comm, const std::vector<LoopSpec>& specs) : comm_(std::move(comm)), sinks_(specs.size()) {
    const MPI_Comm c = communicator(comm_);
    py::gil_scoped_release nogil;
    set_ = std::make_unique<LoopSet>(c, specs);
  }
  ~PyLoopSet() {
    if (mpi_finalized()) {
      (void)set_.release();  // its destructor would call MPI
      return;
    }
    py::gil_scoped_release nogil;
    set_.reset();
  }
  PyLoopSet(const PyLoopSet&) = delete;
  PyLoopSet& operator=(const PyLoopSet&) = delete;

  [[nodiscard]] int size() const { return set_->size(); }
  py::object next_any() {
    std::optional<LoopPiece> p;
    {
      py::gil_scoped_release nogil;
      p = set_->next();
    }
    if (!p) return py::none();
    return py::make_tuple(p->loop, p->chunk.begin, p->chunk.end());
  }
  py::object next_of(int l) {
    check(l);
    std::optional<Chunk> c;
    {
      py::gil_scoped_release nogil;
      c = set_->next(l);
    }
    if (!c) return py::none();
    return py::make_tuple(c->begin, c->end());
  }
  void end_chunk() {
    py::gil_scoped_release nogil;
    set_->end_chunk();
  }
  [[nodiscard]] bool done(int l) const {
    check(l);
    return set_->done(l);
  }
  bool terminated() {
    py::gil_scoped_release nogil;
    return set_->terminated();
  }
  void result(py::handle data) {
    with_buffer(data, [this](const void* bytes, std::size_t n) { set_->result(bytes, n); });
  }
  void on_commit(int l, py::object commit) {
    check(l);
    std::shared_ptr<CommitSink>& sink = sinks_[static_cast<std::size_t>(l)];
    sink = commit_sink(commit);
    if (!sink) {
      set_->on_commit(l, nullptr);
      return;
    }
    set_->on_commit(l, [s = sink](Chunk piece, const std::byte* data, std::size_t bytes) { (*s)(piece, data, bytes); });
  }
  std::vector<Report> finish() {
    std::vector<Report> reports;
    {
      py::gil_scoped_release nogil;
      reports = set_->finish();
    }
    for (const std::shared_ptr<CommitSink>& sink : sinks_)
      if (sink) sink->raise_pending();
    return reports;
  }
  void restart(const std::vector<std::pair<Index, Index>>& ranges) {
    py::gil_scoped_release nogil;
    set_->restart(ranges);
  }

 private:
  void check(int l) const {
    if (l < 0 || l >= set_->size()) {
      throw py::index_error("lb4mpi: loop " + std::to_string(l) + " is not in [0, " + std::to_string(set_->size()) +
                            ")");
    }
  }

  py::object comm_;
  std::vector<std::shared_ptr<CommitSink>> sinks_;  // declared before set_: outlive it
  std::unique_ptr<LoopSet> set_;
};

}  // namespace

void bind_loop_set(py::module_& m) {
  py::class_<LoopSpec>(m, "LoopSpec", "One loop of a LoopSet: [first, last) and its options.")
      .def(py::init([](Index first, Index last, py::object options, const py::kwargs& kw) {
             return LoopSpec{first, last, options_from(options, kw)};
           }),
           py::arg("first"), py::arg("last"), py::kw_only(), py::arg("options") = py::none(),
           "Options: `options` (default Options.from_env()) and keywords on top.")
      .def_readwrite("first", &LoopSpec::first, "The loop's first iteration.")
      .def_readwrite("last", &LoopSpec::last, "The end of the loop: iterations [first, last).")
      .def_readwrite("options", &LoopSpec::options, "The loop's lb4mpi.Options.")
      .def("__repr__", [](const LoopSpec& s) {
        return "lb4mpi.LoopSpec(" + std::to_string(s.first) + ", " + std::to_string(s.last) + ", technique=" +
               std::string(name(s.options.technique)) + ", mode=" + std::string(name(s.options.mode)) + ")";
      });

  py::class_<PyLoopSet>(m, "LoopSet", R"(Several loops in flight together (lb4mpi::LoopSet).

    s = lb4mpi.LoopSet(comm, [(0, n1), (0, n2, {"technique": "GSS"})], technique="FAC2")
    for loop, begin, end in s:       # a piece of any loop, the lowest-numbered first
        bodies[loop](begin, end)
    reports = s.finish()             # collective: one Report per loop

or the form that targets a loop: `while not s.terminated(): for l in range(len(s)):
c = s.next(l)` ((begin, end) or None, never waiting for loop l).
A loop is an lb4mpi.LoopSpec, (first, last), (first, last, Options) or
(first, last, {option: value}); `options` and the keywords are the options of
the loops given without their own. Collective over `comm`.)")
      .def(py::init([](py::object comm, const py::iterable& loops, py::object options, const py::kwargs& kw) {
             return std::make_unique<PyLoopSet>(std::move(comm), specs_from(loops, options_from(options, kw)));
           }),
           py::arg("comm"), py::arg("loops"), py::kw_only(), py::arg("options") = py::none(),
           R"(Starts the loops (collective over `comm`).

Arguments:
    comm: an mpi4py.MPI.Comm; every rank of it calls this alike.
    loops: the loops, each an lb4mpi.LoopSpec, (first, last), (first, last, Options) or
        (first, last, {option: value}).
    options: the options of the loops given without their own (default: Options.from_env()).
    **kwargs: options set on top of `options`.)")
      .def("__len__", &PyLoopSet::size)
      .def("size", &PyLoopSet::size, "The number of loops.")
      .def("next", &PyLoopSet::next_any,
           "(loop, begin, end) of a piece of any loop, preferring the lowest loop number; waits when no loop "
           "has one right now; None when every loop is done for this rank.")
      .def("next", &PyLoopSet::next_of, py::arg("loop"),
           "(begin, end) of the next piece of loop `loop`, or None when it has none right now (or is done).")
      .def("end_chunk", &PyLoopSet::end_chunk, "Ends the current piece without asking for another (optional).")
      .def("result", &PyLoopSet::result, py::arg("data"),
           "The current piece's result (any object with the buffer protocol, read in place): it travels with "
           "the piece's completion and is committed once, by on_commit of its loop (robust mode: on the final "
           "coordinator).")
      .def("on_commit", &PyLoopSet::on_commit, py::arg("loop"), py::arg("commit"),
           "commit(begin, end, data: bytes) for each committed piece of loop `loop` (None: none), where the "
           "loop commits; an exception it raises is raised by finish().")
      .def("done", &PyLoopSet::done, py::arg("loop"), "Whether loop `loop` is done for this rank.")
      .def("terminated", &PyLoopSet::terminated, "True when every loop is done for this rank.")
      .def("finish", &PyLoopSet::finish, "Collective: one Report per loop, on every rank.")
      .def("restart", &PyLoopSet::restart, py::arg("ranges"),
           "Collective: the next time step; one (first, last) per loop.")
      .def("__iter__", [](py::object self) { return self; })
      .def("__next__", [](PyLoopSet& s) {
        py::object p = s.next_any();
        if (p.is_none()) throw py::stop_iteration();
        return p;
      });

  m.def(
      "run_loops",
      [](py::object comm, const py::iterable& loops, const std::vector<py::function>& bodies, bool asynchronous,
         py::object options, const py::kwargs& kw) {
        const std::vector<LoopSpec> specs = specs_from(loops, options_from(options, kw));
        std::vector<std::function<void(Chunk)>> calls;
        for (const py::function& body : bodies) {
          calls.emplace_back([&body](Chunk c) {
            py::gil_scoped_acquire gil;
            body(c.begin, c.end());
          });
        }
        const MPI_Comm c = communicator(comm);
        py::gil_scoped_release nogil;
        return lb4mpi::run_loops(c, specs, calls, asynchronous);
      },
      py::arg("comm"), py::arg("loops"), py::arg("bodies"), py::kw_only(), py::arg("asynchronous") = true,
      py::arg("options") = py::none(),
      R"(Runs several loops: all in flight together (asynchronous) or one after the other. Collective; one Report per loop.

Arguments:
    comm: an mpi4py.MPI.Comm; every rank of it calls run_loops alike.
    loops: the loops, as for LoopSet: LoopSpec, (first, last), (first, last, Options) or
        (first, last, {option: value}).
    bodies: one callable per loop; bodies[l](begin, end) runs a chunk of loop l.
    asynchronous: True: all loops in flight together (LoopSet); False: one after the other.
    options: the options of the loops given without their own (default: Options.from_env()).
    **kwargs: options set on top of `options`.)");
}

}  // namespace lb4mpi::python
