"""Every technique in every mode, through every Python entry point: each
iteration runs exactly once (a bitmap gathered over the ranks), and robust
mode commits every chunk's result exactly once."""
import numpy as np
import pytest

import lb4mpi
from conftest import assert_once_each, run_covering

TECHNIQUES = lb4mpi.techniques()  # the 21 and auto
MODES = lb4mpi.modes()


def test_the_names_are_the_librarys():
    assert len(TECHNIQUES) == 22 and TECHNIQUES[-1] == "auto" and "AWF-B" in TECHNIQUES
    assert MODES == ["centralized", "distributed", "distributed-rma", "hierarchical"]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("technique", TECHNIQUES)
def test_parallel_for_runs_each_iteration_once(comm, technique, mode):
    first, last = -17, 2983  # a range that does not start at 0
    report, hits = run_covering(comm, first, last, technique=technique, mode=mode)
    assert_once_each(comm, hits, f"{technique}/{mode}")
    assert report.iterations() == last - first
    assert [r.iterations for r in report.ranks] == comm.allgather(int(hits.sum()))
    assert report.mode == mode
    if technique == "auto":
        assert report.technique in TECHNIQUES[:-1] and report.selection
    else:
        assert report.technique == technique and report.selection == ""


# Robust mode: every technique but STATIC (its shares are fixed up front), in
# every mode but hierarchical (which refuses it). Chunks may run twice; results
# commit once.
def robust_cases():
    for t in TECHNIQUES:
        if t == "auto" or not lb4mpi.technique_info(t)["upfront"]:
            for mode in MODES[:-1]:
                yield t, mode


@pytest.mark.parametrize("technique,mode", list(robust_cases()))
def test_robust_mode_commits_each_result_once(comm, technique, mode):
    n = 1500
    ran = np.zeros(n, dtype=np.int64)
    committed = np.zeros(n, dtype=np.int64)
    values = []

    def body(begin, end):
        ran[begin:end] += 1
        return (begin, sum(range(begin, end)))  # any picklable value

    def commit(begin, end, value):
        committed[begin:end] += 1
        assert value[0] == begin
        values.append(value[1])

    # robust_timeout: the coordinator waits a tenth of it for the ranks' figures at the
    # end; on a loaded machine with more ranks than cores, 1 s may not do.
    report = lb4mpi.parallel_for(comm, 0, n, body, commit=commit, technique=technique, mode=mode, robust=True,
                                 robust_timeout=60)
    assert_once_each(comm, ran, f"robust {technique}/{mode} executions", at_least=True)
    assert_once_each(comm, committed, f"robust {technique}/{mode} commits")
    assert comm.allreduce(sum(values)) == n * (n - 1) // 2
    assert report.robust and report.failed_ranks == [] and report.iterations() >= n


@pytest.mark.parametrize("mode", MODES)
def test_loop_results_as_buffers_commit_once(comm, mode):
    """Loop.result takes any buffer (here a NumPy array), on_commit gets its bytes."""
    n = 2000
    committed = np.zeros(n, dtype=np.int64)
    loop = lb4mpi.Loop(comm, 0, n, technique="GSS", mode=mode)

    def commit(begin, end, data):
        b, e = np.frombuffer(data, dtype=np.int64)
        assert (b, e) == (begin, end)
        committed[begin:end] += 1

    loop.on_commit(commit)
    for begin, end in loop:
        loop.result(np.array([begin, end], dtype=np.int64))
    loop.finish()
    assert_once_each(comm, committed, f"Loop.result/{mode} commits")


def test_loop_time_steps_over_changing_ranges(comm):
    """Loop.restart: adaptive techniques carry over what they learnt; every step exactly once."""
    for technique in ("AWF", "AF", "auto"):
        loop = lb4mpi.Loop(comm, 0, 1000, technique=technique, mode="distributed")
        for step, (first, last) in enumerate([(0, 1000), (5, 1600), (0, 700), (0, 1000)]):
            if step > 0:
                loop.restart(first, last)
            hits = np.zeros(last - first, dtype=np.int64)
            while (c := loop.next()) is not None:
                hits[c[0] - first:c[1] - first] += 1
            report = loop.finish()
            assert_once_each(comm, hits, f"{technique} step {step}")
            assert (report.first, report.last) == (first, last)
        assert loop.options.technique == technique


def test_loop_set_runs_every_loop_once(comm):
    """LoopSet: loops of their own techniques and modes in flight together, both forms of next()."""
    loops = [(0, 1200), (100, 2100, {"technique": "SS", "mode": "distributed-rma"}),
             lb4mpi.LoopSpec(0, 900, technique="AWF-C", mode="distributed")]
    sizes = [1200, 2000, 900]
    firsts = [0, 100, 0]
    for targeted in (False, True):
        hits = [np.zeros(s, dtype=np.int64) for s in sizes]
        s = lb4mpi.LoopSet(comm, loops, technique="GSS")
        assert len(s) == 3
        if targeted:
            while not s.terminated():
                for loop in range(len(s)):
                    c = s.next(loop)
                    if c is not None:
                        hits[loop][c[0] - firsts[loop]:c[1] - firsts[loop]] += 1
        else:
            for loop, begin, end in s:
                hits[loop][begin - firsts[loop]:end - firsts[loop]] += 1
        reports = s.finish()
        assert [r.technique for r in reports] == ["GSS", "SS", "AWF-C"]
        assert [r.mode for r in reports] == ["centralized", "distributed-rma", "distributed"]
        for loop in range(3):
            assert_once_each(comm, hits[loop], f"LoopSet loop {loop} (targeted={targeted})")


@pytest.mark.parametrize("robust", [False, True])
def test_loop_set_results_commit_once_per_loop(comm, robust):
    """LoopSet.result / on_commit(l, ...): each loop's pieces committed once, by that loop's callback."""
    sizes = [1500, 700]
    committed = [np.zeros(n, dtype=np.int64) for n in sizes]

    def committer(loop):
        def commit(begin, end, data):
            l, b, e = np.frombuffer(data, dtype=np.int64)
            assert (l, b, e) == (loop, begin, end)
            committed[loop][begin:end] += 1
        return commit

    s = lb4mpi.LoopSet(comm, [(0, sizes[0]), (0, sizes[1], {"technique": "SS"})], technique="GSS",
                       robust=robust, robust_timeout=60)
    for loop in range(len(s)):
        s.on_commit(loop, committer(loop))
    for loop, begin, end in s:
        s.result(np.array([loop, begin, end], dtype=np.int64))
    reports = s.finish()
    for loop in range(len(s)):
        assert_once_each(comm, committed[loop], f"LoopSet.result loop {loop} (robust={robust})")
    assert all(r.robust == robust for r in reports)
    with pytest.raises(IndexError):
        s.on_commit(2, None)


@pytest.mark.parametrize("asynchronous", [True, False])
def test_run_loops_runs_every_loop_once(comm, asynchronous):
    hits = [np.zeros(800, dtype=np.int64), np.zeros(1300, dtype=np.int64)]

    def body(loop):
        def run(begin, end):
            hits[loop][begin:end] += 1
        return run

    reports = lb4mpi.run_loops(comm, [(0, 800), (0, 1300, {"technique": "TSS"})], [body(0), body(1)],
                               asynchronous=asynchronous, technique="FAC2", mode="distributed")
    assert [r.technique for r in reports] == ["FAC2", "TSS"]
    for loop in range(2):
        assert_once_each(comm, hits[loop], f"run_loops loop {loop} (asynchronous={asynchronous})")
