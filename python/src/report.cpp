// lb4mpi.Report and lb4mpi.RankReport: read-only views of lb4mpi::Report
// (every rank gets the whole report), and to_dict() for JSON.
#include <pybind11/stl.h>

#include "binding.hpp"

namespace lb4mpi::python {
namespace {

py::dict rank_dict(const RankReport& r, double t_par) {
  py::dict d;
  d["iterations"] = r.iterations;
  d["chunks"] = r.chunks;
  d["calculations"] = r.calculations;
  d["work_time"] = r.work_time;
  d["overhead"] = r.overhead;
  d["serve_time"] = r.serve_time;
  d["finish_time"] = r.finish_time;
  d["idle_time"] = r.idle_time(t_par);
  d["failed"] = r.failed;
  return d;
}

py::dict report_dict(const Report& r) {
  py::dict d;
  d["technique"] = std::string(name(r.technique));
  d["mode"] = std::string(name(r.mode));
  d["first"] = r.first;
  d["last"] = r.last;
  d["t_par"] = r.t_par;
  d["iterations"] = r.iterations();
  d["chunks"] = r.chunks();
  d["load_imbalance_percent"] = r.load_imbalance_percent();
  d["finish_cov"] = r.finish_cov();
  d["robust"] = r.robust;
  d["failed_ranks"] = r.failed_ranks;
  d["coordinator"] = r.coordinator;
  d["reissued_chunks"] = r.reissued_chunks;
  d["selection"] = r.selection;
  py::list ranks;
  for (const RankReport& rr : r.ranks) ranks.append(rank_dict(rr, r.t_par));
  d["ranks"] = ranks;
  d["summary"] = r.summary();
  return d;
}

}  // namespace

void bind_report(py::module_& m) {
  py::class_<RankReport>(m, "RankReport", "One rank's figures of a loop execution (lb4mpi::RankReport).")
      .def_readonly("iterations", &RankReport::iterations, "Iterations this rank executed.")
      .def_readonly("chunks", &RankReport::chunks, "Chunks it received.")
      .def_readonly("calculations", &RankReport::calculations, "Chunk sizes it calculated.")
      .def_readonly("work_time", &RankReport::work_time, "Seconds inside the loop body.")
      .def_readonly("overhead", &RankReport::overhead, "Seconds obtaining chunks (serve_time included).")
      .def_readonly("serve_time", &RankReport::serve_time, "Coordinator: seconds serving other ranks.")
      .def_readonly("finish_time", &RankReport::finish_time, "Seconds from its start to its last piece's end.")
      .def_readonly("failed", &RankReport::failed, "Robust mode: the rank did not finish the loop.")
      .def("idle_time", &RankReport::idle_time, py::arg("t_par"), "max(0, t_par - work_time - overhead).")
      .def("to_dict", [](const RankReport& r, double t_par) { return rank_dict(r, t_par); }, py::arg("t_par"),
           "Every figure as a dict; t_par: the loop's parallel time, for idle_time.")
      .def("__repr__", [](const RankReport& r) {
        return "<lb4mpi.RankReport iterations=" + std::to_string(r.iterations) +
               " chunks=" + std::to_string(r.chunks) + ">";
      });

  py::class_<Report>(m, "Report", R"(What a loop execution reports, on every rank (lb4mpi::Report).

str(report) is report.summary(); report.to_dict() has every figure, JSON-ready.)")
      .def_property_readonly("technique", [](const Report& r) { return std::string(name(r.technique)); },
                             "The technique that ran (the one auto picked, with technique='auto').")
      .def_property_readonly("mode", [](const Report& r) { return std::string(name(r.mode)); },
                             "The execution mode.")
      .def_readonly("first", &Report::first, "The loop's first iteration.")
      .def_readonly("last", &Report::last, "Half-open range: [first, last).")
      .def_readonly("t_par", &Report::t_par, "Parallel time [s]: until every rank left the loop.")
      .def_readonly("ranks", &Report::ranks, "One RankReport per rank of the communicator.")
      .def_readonly("robust", &Report::robust, "Whether the loop ran in robust mode.")
      .def_readonly("failed_ranks", &Report::failed_ranks, "Robust mode: the ranks that did not finish.")
      .def_readonly("coordinator", &Report::coordinator,
                    "Robust mode: the rank that coordinated the loop at its end (after a failover: the successor).")
      .def_readonly("reissued_chunks", &Report::reissued_chunks, "Robust mode: chunks handed out again.")
      .def_readonly("selection", &Report::selection, "technique='auto': why this technique ran.")
      .def("iterations", &Report::iterations, "Iterations executed, summed over the ranks.")
      .def("chunks", &Report::chunks, "Chunks handed out, summed over the ranks.")
      .def("load_imbalance_percent", &Report::load_imbalance_percent,
           "(max/mean - 1) * 100 of the ranks' finish times.")
      .def("finish_cov", &Report::finish_cov, "Coefficient of variation of the ranks' finish times.")
      .def("summary", &Report::summary, "One line for people.")
      .def("to_dict", &report_dict, "Every figure as a dict (JSON-ready), the per-rank ones under 'ranks'.")
      .def("__str__", &Report::summary)
      .def("__repr__", [](const Report& r) { return "<lb4mpi.Report " + r.summary() + ">"; });
}

}  // namespace lb4mpi::python
