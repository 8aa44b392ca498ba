"""The report as a Python object and as a dict, the same on every rank;
the GIL released while the library waits."""
import json
import threading
import time

import numpy as np

import lb4mpi
from conftest import assert_once_each, run_covering, same_on_every_rank


def test_the_report_object(comm):
    report, hits = run_covering(comm, 5, 3005, technique="GSS", mode="distributed")
    assert_once_each(comm, hits, "GSS")
    assert (report.technique, report.mode, report.first, report.last) == ("GSS", "distributed", 5, 3005)
    assert report.t_par > 0 and not report.robust and report.failed_ranks == [] and report.reissued_chunks == 0
    assert len(report.ranks) == comm.size
    assert report.iterations() == 3000 == sum(r.iterations for r in report.ranks)
    assert report.chunks() == sum(r.chunks for r in report.ranks) >= comm.size
    for r in report.ranks:
        assert r.work_time >= 0 and r.overhead >= 0 and 0 <= r.finish_time <= report.t_par and not r.failed
        assert 0 <= r.idle_time(report.t_par) <= report.t_par
    assert report.load_imbalance_percent() >= 0 and report.finish_cov() >= 0
    assert str(report) == report.summary()
    assert report.summary().startswith(f"GSS/distributed: 3000 iterations in {report.chunks()} chunks on "
                                       f"{comm.size} ranks, T_par ")
    assert same_on_every_rank(comm, report.summary())


def test_the_report_as_a_dict(comm):
    report, _ = run_covering(comm, 0, 2000, technique="auto")
    d = report.to_dict()
    assert json.loads(json.dumps(d)) == d  # JSON-ready
    assert {k: d[k] for k in ("technique", "mode", "first", "last", "t_par", "iterations", "chunks")} == {
        "technique": report.technique, "mode": "centralized", "first": 0, "last": 2000, "t_par": report.t_par,
        "iterations": 2000, "chunks": report.chunks()}
    assert d["selection"] == report.selection != "" and d["summary"] == report.summary()
    assert d["load_imbalance_percent"] == report.load_imbalance_percent()
    assert [r["iterations"] for r in d["ranks"]] == [r.iterations for r in report.ranks]
    assert set(d["ranks"][0]) == {"iterations", "chunks", "calculations", "work_time", "overhead", "serve_time",
                                  "finish_time", "idle_time", "failed"}
    assert same_on_every_rank(comm, json.dumps(d, sort_keys=True))


def test_options_as_attributes_and_dict():
    o = lb4mpi.Options(technique="awf_b", mode="DCA", min_chunk=4, weights=[1, 2.5], auto_candidates=["gss", "7"])
    assert (o.technique, o.mode, o.min_chunk, o.weights) == ("AWF-B", "distributed", 4, [1.0, 2.5])
    assert o.auto_candidates == ["GSS", "FAC2"]  # id 7 of 000 Table 4.1
    o.rnd_bounds = "PAPER004"
    assert o.rnd_bounds == "paper004"
    d = o.to_dict()
    assert list(d) == lb4mpi.option_names() and d["min_chunk"] == 4
    assert lb4mpi.Options(**d).to_dict() == d
    assert "LB4MPI_SCHEDULING" in lb4mpi.known_variables()
    assert lb4mpi.parse_technique("wfac") == "WF" and lb4mpi.parse_mode("dca-rma") == "distributed-rma"
    assert lb4mpi.technique_info("GSS")["has_closed_form"] and lb4mpi.technique_info("STATIC")["upfront"]


def test_the_gil_is_released_while_the_library_waits(comm):
    """Rank 0 enters the collective start of a loop while the last rank
    sleeps; a Python thread of rank 0 runs meanwhile, which it could not if
    the start held the GIL."""
    ticks = [0]
    stop = threading.Event()

    def count():
        while not stop.is_set():
            ticks[0] += 1
            time.sleep(0.001)

    thread = threading.Thread(target=count)
    thread.start()
    time.sleep(0.05)
    if comm.rank == comm.size - 1:
        time.sleep(0.5)  # the others wait for this rank in the loop's start
    before = ticks[0]
    loop = lb4mpi.Loop(comm, 0, 1000, technique="GSS")
    during = ticks[0] - before
    hits = np.zeros(1000, dtype=np.int64)
    for begin, end in loop:
        hits[begin:end] += 1
    loop.finish()
    stop.set()
    thread.join()
    assert_once_each(comm, hits, "GSS with a thread")
    if comm.size > 1 and comm.rank == 0:
        assert during >= 20, f"the thread ticked {during} times while rank 0 waited about 0.5 s"
