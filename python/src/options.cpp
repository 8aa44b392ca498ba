// lb4mpi.Options: lb4mpi::Options with one typed attribute per option, named
// as the C++ member (the technique parameters of Options::params flattened:
// min_chunk, sigma, ...). Names of techniques, modes and RND bounds are text
// and parsed by the library (errors name the valid choices). Setting an
// attribute forgets where the old value came from (Options::origin), so an
// error about it no longer names an LB4MPI_* variable.
#include <pybind11/stl.h>

#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "binding.hpp"

namespace lb4mpi::python {
namespace {

struct FieldInfo {
  std::string name;
  std::string type;  // as a Python user reads it, for errors
};

std::vector<FieldInfo>& fields() {
  static std::vector<FieldInfo> all;
  return all;
}

template <class T>
std::string python_type() {
  if constexpr (std::is_same_v<T, bool>) {
    return "bool";
  } else if constexpr (std::is_integral_v<T>) {
    return "int";
  } else if constexpr (std::is_floating_point_v<T>) {
    return "float";
  } else if constexpr (std::is_same_v<T, std::string>) {
    return "str";
  } else if constexpr (std::is_same_v<T, std::vector<int>>) {
    return "list of int";
  } else if constexpr (std::is_same_v<T, std::vector<double>>) {
    return "list of float";
  } else {
    return "list of str";
  }
}

// An attribute over the member `access(o)` returns a reference to.
template <class Access>
void field(py::class_<Options>& c, const char* name, Access access, const char* doc) {
  using T = std::remove_cvref_t<decltype(access(std::declval<Options&>()))>;
  const std::string key = name;
  c.def_property(
      name, [access](Options& o) { return access(o); },
      [access, key](Options& o, const T& v) {
        access(o) = v;
        o.origin.erase(key);
      },
      doc);
  fields().push_back({key, python_type<T>()});
}

// An attribute shown as text: `show` gives it, `parse` sets it.
template <class Show, class Parse>
void text_field(py::class_<Options>& c, const char* name, Show show, Parse parse, const char* type,
                const char* doc) {
  const std::string key = name;
  c.def_property(
      name, show,
      [parse, key](Options& o, const decltype(show(std::declval<Options&>()))& v) {
        parse(o, v);
        o.origin.erase(key);
      },
      doc);
  fields().push_back({key, type});
}

std::string valid_keywords() {
  std::string out;
  for (const FieldInfo& f : fields()) out += (out.empty() ? "" : ", ") + f.name;
  return out;
}

const FieldInfo* find_field(const std::string& name) {
  for (const FieldInfo& f : fields())
    if (f.name == name) return &f;
  return nullptr;
}

// Sets each keyword as an attribute of `target` (an lb4mpi.Options).
void set_keywords(py::object& target, const py::dict& keywords) {
  for (auto [key, value] : keywords) {
    const std::string name = py::str(key);
    const FieldInfo* f = find_field(name);
    if (f == nullptr) {
      throw py::type_error("lb4mpi: unknown option '" + name + "'; valid options: " + valid_keywords());
    }
    try {
      target.attr(key) = value;
    } catch (py::error_already_set& e) {
      if (!e.matches(PyExc_TypeError)) throw;
      throw py::type_error("lb4mpi: option " + name + " wants " + f->type + ", got " +
                           std::string(py::str(py::type::of(value).attr("__name__"))) + " " +
                           std::string(py::repr(value)));
    }
  }
}

std::vector<std::string> technique_names(const std::vector<Technique>& ts) {
  std::vector<std::string> out;
  for (Technique t : ts) out.emplace_back(name(t));
  return out;
}

}  // namespace

Options options_from(py::handle base, const py::dict& keywords) {
  Options o = base.is_none() ? Options::from_env() : base.cast<Options>();
  if (keywords.empty()) return o;
  py::object target = py::cast(o);
  set_keywords(target, keywords);
  return target.cast<Options>();
}

void bind_options(py::module_& m) {
  py::class_<Options> c(m, "Options", R"(Options of a scheduled loop (lb4mpi::Options).

Options(**keywords) starts from the built-in defaults; Options.from_env()
from the LB4MPI_* variables (docs/OPTIONS.md). Every option is an attribute,
named as in C++; the technique parameters (min_chunk, sigma, ...) are
attributes of their own.)");
  c.def(py::init([](const py::kwargs& keywords) {
          py::object o = py::cast(Options{});
          set_keywords(o, keywords);
          return o.cast<Options>();
        }),
        "Options with the built-in defaults, and the given keywords set.");
  c.def_static(
      "from_env",
      [](py::object base) { return base.is_none() ? Options::from_env() : Options::from_env(base.cast<Options>()); },
      py::arg("base") = py::none(),
      "The options of the LB4MPI_* environment variables, on top of `base` (default: the built-in defaults). "
      "A bad value raises lb4mpi.Error naming the variable and the valid values.");

  text_field(
      c, "technique", [](Options& o) { return std::string(name(o.technique)); },
      [](Options& o, const std::string& v) { o.technique = parse_technique(v); }, "str",
      "The scheduling technique: STATIC, SS, FSC, mFSC, GSS, TAP, TSS, FAC, FAC2, TFSS, FISS, VISS, WF, AWF, "
      "AWF-B ... AWF-E, AF, RND, PLS, or auto (case-insensitive; ids of 000 Table 4.1 too).");
  text_field(
      c, "mode", [](Options& o) { return std::string(name(o.mode)); },
      [](Options& o, const std::string& v) { o.mode = parse_mode(v); }, "str",
      "The execution model: centralized (cca), distributed (dca), distributed-rma (dca-rma) or hierarchical "
      "(hier: nodes, then ranks inside a node).");
  text_field(
      c, "wait", [](Options& o) { return std::string(name(o.wait)); },
      [](Options& o, const std::string& v) { o.wait = parse_wait(v); }, "str",
      "How a rank waits for another (LB4MPI_WAIT): auto, spin, yield or block; auto blocks when the ranks "
      "on a node outnumber its cores.");
  text_field(
      c, "node_technique", [](Options& o) { return std::string(name(o.node_technique)); },
      [](Options& o, const std::string& v) { o.node_technique = parse_technique(v); }, "str",
      "Hierarchical mode: the technique inside a node (technique schedules between nodes).");
  text_field(
      c, "global_mode", [](Options& o) { return std::string(name(o.global_mode)); },
      [](Options& o, const std::string& v) { o.global_mode = parse_mode(v); }, "str",
      "Hierarchical mode: the model between the nodes' leaders: centralized, distributed or distributed-rma.");
  field(c, "ranks_per_node", [](Options& o) -> int& { return o.ranks_per_node; },
        "Hierarchical mode: 0 = the nodes MPI reports (shared memory); k = emulated nodes of k ranks.");
  field(c, "auto_policy", [](Options& o) -> std::string& { return o.auto_policy; },
        "technique='auto': explore, bandit or rule.");
  text_field(
      c, "auto_candidates", [](Options& o) { return technique_names(o.auto_candidates); },
      [](Options& o, const std::vector<std::string>& v) {
        std::vector<Technique> ts;
        for (const std::string& s : v) ts.push_back(parse_technique(s));
        o.auto_candidates = std::move(ts);
      },
      "list of str", "technique='auto': the techniques it picks from (empty: a built-in short list).");
  field(c, "break_after", [](Options& o) -> int& { return o.break_after; },
        "Coordinator: iterations between checks for requests; < 0: automatic (about 20 us).");
  field(c, "request_when", [](Options& o) -> int& { return o.request_when; },
        "Worker: iterations left in its chunk when it asks for the next; < 0: automatic (15 %).");
  field(c, "chunks_per_reply", [](Options& o) -> int& { return o.chunks_per_reply; },
        "Centralized SS, FSC, mFSC: most chunks a worker takes in one reply; -1: automatic "
        "(about 20 us of work), 1: one per reply (as LB4MPI).");
  field(c, "coordinator", [](Options& o) -> int& { return o.coordinator; },
        "The rank that holds the scheduling state.");
  field(c, "min_chunk", [](Options& o) -> Index& { return o.params.min_chunk; },
        "Every chunk but the last has at least this many iterations.");
  field(c, "max_chunk", [](Options& o) -> Index& { return o.params.max_chunk; }, "Largest chunk; 0: no cap.");
  field(c, "h", [](Options& o) -> double& { return o.params.h; }, "FSC: scheduling overhead of one chunk [s].");
  field(c, "sigma", [](Options& o) -> double& { return o.params.sigma; },
        "FSC, TAP, FAC: standard deviation of an iteration's time [s].");
  field(c, "mu", [](Options& o) -> double& { return o.params.mu; }, "TAP, FAC: mean of an iteration's time [s].");
  field(c, "alpha", [](Options& o) -> double& { return o.params.alpha; }, "TAP: the confidence factor.");
  field(c, "fiss_batches", [](Options& o) -> int& { return o.params.fiss_batches; },
        "FISS: the number of batches (>= 2).");
  field(c, "viss_x", [](Options& o) -> double& { return o.params.viss_x; }, "VISS: X, first chunk N/(X P).");
  field(c, "pls_swr", [](Options& o) -> double& { return o.params.pls_swr; },
        "PLS: static workload ratio in [0, 1].");
  text_field(
      c, "rnd_bounds", [](Options& o) { return std::string(name(o.params.rnd_bounds)); },
      [](Options& o, const std::string& v) { o.params.rnd_bounds = parse_rnd_bounds(v); }, "str",
      "RND: bounds of the draw, unit or paper004.");
  field(c, "seed", [](Options& o) -> std::uint64_t& { return o.params.seed; }, "RND: the seed of the draw.");
  field(c, "weights", [](Options& o) -> std::vector<double>& { return o.params.weights; },
        "WF (and AWF's start): one positive weight per rank; empty: all 1.");
  field(c, "inject_delay_us", [](Options& o) -> double& { return o.inject_delay_us; },
        "Delay injected into every chunk calculation [microseconds].");
  field(c, "delay_ranks", [](Options& o) -> std::vector<int>& { return o.delay_ranks; },
        "Ranks the injected delay applies to; empty: all.");
  field(c, "trace", [](Options& o) -> std::string& { return o.trace; },
        "Per-chunk trace written by rank 0 (x.json, x.csv, or both); empty: off.");
  field(c, "iterations_info", [](Options& o) -> bool& { return o.iterations_info; },
        "Per-rank iteration CSV files (000 Table 4.2).");
  field(c, "iterations_dir", [](Options& o) -> std::string& { return o.iterations_dir; },
        "Folder of the iteration CSV files.");
  field(c, "idle_probing", [](Options& o) -> bool& { return o.idle_probing; },
        "LoopSet: next(l) waits for work of loop l instead of returning at once.");
  field(c, "robust", [](Options& o) -> bool& { return o.robust; },
        "Robust mode (rDLB): the loop survives failed ranks and stragglers (docs/ROBUST.md).");
  field(c, "robust_timeout", [](Options& o) -> double& { return o.robust_timeout; },
        "Robust mode: seconds a worker waits for a silent coordinator.");
  field(c, "fail_ranks", [](Options& o) -> std::vector<int>& { return o.fail_ranks; },
        "Failure injection: these ranks stop (docs/ROBUST.md).");
  field(c, "fail_after_chunks", [](Options& o) -> int& { return o.fail_after.chunks; },
        "Failure injection: a victim stops after starting this many chunks (-1: not by chunks).");
  field(c, "fail_after_seconds", [](Options& o) -> double& { return o.fail_after.seconds; },
        "Failure injection: a victim stops this many seconds into the loop (-1: not by time).");
  field(c, "fail_at_end", [](Options& o) -> bool& { return o.fail_after.at_end; },
        "Failure injection: a victim stops when the loop ends on it, before the end-of-loop exchange.");
  field(c, "fail_in_report", [](Options& o) -> bool& { return o.fail_after.in_report; },
        "Failure injection: a victim stops in the end-of-loop exchange (a coordinator once one rank has the report).");
  field(c, "fail_how", [](Options& o) -> std::string& { return o.fail_how; },
        "Failure injection: kill (SIGKILL) or exit (_exit(1)).");
  field(c, "slow_ranks", [](Options& o) -> std::vector<int>& { return o.slow_ranks; },
        "Perturbation: these ranks take slow_factor times as long for each piece of work.");
  field(c, "slow_factor", [](Options& o) -> double& { return o.slow_factor; }, "Perturbation: >= 1.");
  field(c, "slow_from", [](Options& o) -> int& { return o.slow_from; },
        "Perturbation: the slowing starts with this execution (time step) of a loop.");

  c.def("validate", [](const Options& o, int ranks) { o.validate(ranks); }, py::arg("ranks"),
        "Raises lb4mpi.Error when these options cannot run on `ranks` ranks.");
  c.def("copy", [](const Options& o) { return o; }, "A copy.");
  c.def(
      "to_dict",
      [](py::object self) {
        py::dict d;
        for (const FieldInfo& f : fields()) d[py::str(f.name)] = self.attr(f.name.c_str());
        return d;
      },
      "Every option by name (the keywords Options() and parallel_for accept).");
  c.def("__repr__", [](py::object self) {
    std::string out = "lb4mpi.Options(";
    bool first = true;
    for (const FieldInfo& f : fields()) {
      out += (first ? "" : ", ") + f.name + "=" + std::string(py::repr(self.attr(f.name.c_str())));
      first = false;
    }
    return out + ")";
  });

  m.def("option_names", [] {
    std::vector<std::string> out;
    for (const FieldInfo& f : fields()) out.push_back(f.name);
    return out;
  }, "The names of the options: the attributes of lb4mpi.Options and the keywords of parallel_for.");
  m.def("techniques", [] {
    std::vector<std::string> out;
    for (const TechniqueInfo& t : all_techniques()) out.emplace_back(t.name);
    out.emplace_back(name(Technique::Auto));
    return out;
  }, "The technique names, in canonical order, and auto.");
  m.def(
      "technique_info",
      [](const std::string& s) {
        const TechniqueInfo& t = info(parse_technique(s));  // lb4mpi.Error for auto
        py::dict d;
        d["name"] = std::string(t.name);
        d["legacy_id"] = t.legacy_id;
        d["has_closed_form"] = t.has_closed_form;
        d["adaptive"] = t.adaptive;
        d["batched"] = t.batched;
        d["upfront"] = t.upfront;
        d["equation"] = std::string(t.equation);
        return d;
      },
      py::arg("name"),
      "What the library knows of a technique: name, legacy_id (000 Table 4.1), has_closed_form (DCA), "
      "adaptive, batched, upfront (STATIC), equation.");
  m.def("modes", [] {
    return std::vector<std::string>{std::string(name(Mode::Centralized)), std::string(name(Mode::Distributed)),
                                    std::string(name(Mode::DistributedRMA)), std::string(name(Mode::Hierarchical))};
  }, "The execution modes.");
  m.def("parse_technique", [](const std::string& s) { return std::string(name(parse_technique(s))); },
        py::arg("name"), "The canonical name of a technique name or id; lb4mpi.Error naming the valid ones.");
  m.def("parse_mode", [](const std::string& s) { return std::string(name(parse_mode(s))); }, py::arg("name"),
        "The canonical name of a mode; lb4mpi.Error naming the valid ones.");
  m.def("known_variables", &Options::known_variables, "Every LB4MPI_* variable lb4mpi reads.");
}

}  // namespace lb4mpi::python
