"""Bad input raises a Python exception on every rank, naming the valid
choices; nothing hangs, and the communicator stays usable after it."""
import numpy as np
import pytest
from mpi4py import MPI

import lb4mpi
from conftest import assert_once_each, run_covering, same_on_every_rank


def noop(begin, end):
    pass


def test_unknown_technique_names_the_valid_ones(comm):
    with pytest.raises(lb4mpi.Error, match="unknown scheduling technique 'FAC3'; valid names: STATIC, SS") as e:
        lb4mpi.parallel_for(comm, 0, 100, noop, technique="FAC3")
    assert "AWF-B" in str(e.value) and "auto" in str(e.value)
    assert isinstance(e.value, ValueError)


def test_unknown_mode_names_the_valid_ones(comm):
    with pytest.raises(lb4mpi.Error, match=r"valid modes: centralized \(cca\), distributed \(dca\), "
                                           r"distributed-rma \(dca-rma\)"):
        lb4mpi.Loop(comm, 0, 100, mode="shared")


def test_unknown_option_names_the_valid_ones(comm):
    with pytest.raises(TypeError, match="unknown option 'tecnique'; valid options: technique, mode, ") as e:
        lb4mpi.parallel_for(comm, 0, 100, noop, tecnique="GSS")
    assert "min_chunk" in str(e.value) and "robust" in str(e.value)
    with pytest.raises(TypeError, match="unknown option 'chunk'"):
        lb4mpi.Options(chunk=4)


def test_a_value_of_the_wrong_type_names_the_type(comm):
    with pytest.raises(TypeError, match="option min_chunk wants int, got str '5'"):
        lb4mpi.parallel_for(comm, 0, 100, noop, min_chunk="5")
    with pytest.raises(TypeError, match="option delay_ranks wants list of int"):
        lb4mpi.Options(delay_ranks=1.5)


def test_a_value_out_of_range_fails_at_the_start_on_every_rank(comm):
    ran = []
    with pytest.raises(lb4mpi.Error, match="min_chunk must be >= 1, got 0") as e:
        lb4mpi.parallel_for(comm, 0, 100, lambda b, e: ran.append(b), min_chunk=0)
    assert ran == []  # no iteration ran
    assert "LB4MPI_MIN_CHUNK" not in str(e.value)  # a keyword, not the variable
    assert same_on_every_rank(comm, str(e.value))


def test_a_bad_range_and_a_bad_coordinator(comm):
    with pytest.raises(lb4mpi.Error, match=r"invalid loop range \[10, 5\)"):
        lb4mpi.parallel_for(comm, 10, 5, noop)
    with pytest.raises(lb4mpi.Error, match="coordinator"):
        lb4mpi.parallel_for(comm, 0, 100, noop, coordinator=comm.size)


def test_robust_mode_refuses_what_it_cannot_do(comm):
    with pytest.raises(lb4mpi.Error, match="robust mode needs a dynamic technique: STATIC.*valid: every technique"):
        lb4mpi.parallel_for(comm, 0, 100, noop, technique="STATIC", robust=True)
    with pytest.raises(lb4mpi.Error, match="a loop set is robust as a whole or not at all"):
        lb4mpi.LoopSet(comm, [(0, 100), (0, 100, {"robust": False})], robust=True)


def test_ranks_that_disagree_all_fail_alike(comm):
    if comm.size == 1:
        pytest.skip("needs two ranks")
    technique = "GSS" if comm.rank == 0 else "TSS"
    with pytest.raises(lb4mpi.Error, match="the ranks disagree on the loop") as e:
        lb4mpi.parallel_for(comm, 0, 1000, noop, technique=technique)
    assert same_on_every_rank(comm, str(e.value))
    # The communicator is usable afterwards.
    _, hits = run_covering(comm, 0, 1000, technique="GSS")
    assert_once_each(comm, hits, "after the disagreement")


def test_the_wait_policy_by_name(comm, monkeypatch):
    report, hits = run_covering(comm, 0, 300, technique="SS", wait="block")
    assert_once_each(comm, hits, "wait=block")
    assert lb4mpi.Options(wait="Yield").wait == "yield"
    with pytest.raises(lb4mpi.Error, match="unknown wait policy 'nap'; valid: auto, spin, yield, block"):
        lb4mpi.Options(wait="nap")
    monkeypatch.setenv("LB4MPI_WAIT", "spin")
    assert lb4mpi.Options.from_env().wait == "spin"


def test_variables_are_read_and_keywords_win(comm, monkeypatch):
    monkeypatch.setenv("LB4MPI_SCHEDULING", "TSS")
    monkeypatch.setenv("LB4MPI_MODE", "dca")
    report, hits = run_covering(comm, 0, 500)
    assert (report.technique, report.mode) == ("TSS", "distributed")
    assert_once_each(comm, hits, "from the environment")
    report, _ = run_covering(comm, 0, 500, technique="GSS")
    assert (report.technique, report.mode) == ("GSS", "distributed")
    assert lb4mpi.Options.from_env(lb4mpi.Options(min_chunk=3)).min_chunk == 3
    assert lb4mpi.Options().technique == "FAC2"  # Options() alone: the built-in defaults


def test_a_bad_variable_names_itself(comm, monkeypatch):
    monkeypatch.setenv("LB4MPI_SCHEDULING", "bogus")
    with pytest.raises(lb4mpi.Error, match="LB4MPI_SCHEDULING: unknown scheduling technique 'bogus'; valid names"):
        lb4mpi.parallel_for(comm, 0, 100, noop)
    monkeypatch.setenv("LB4MPI_SCHEDULING", "GSS")
    monkeypatch.setenv("LB4MPI_MIN_CHUNK", "-5")
    with pytest.raises(lb4mpi.Error, match=r"min_chunk must be >= 1, got -5 \(from LB4MPI_MIN_CHUNK=-5\)"):
        lb4mpi.parallel_for(comm, 0, 100, noop)


def test_not_a_communicator(comm):
    with pytest.raises(TypeError):
        lb4mpi.parallel_for("MPI_COMM_WORLD", 0, 100, noop)
    with pytest.raises(lb4mpi.Error, match="MPI_COMM_NULL"):
        lb4mpi.parallel_for(MPI.COMM_NULL, 0, 100, noop)


def test_an_exception_of_the_body_propagates_and_the_next_loop_runs(comm):
    """Every rank's body raises on its first chunk (STATIC: each rank has a
    block, no rank waits for another); the exception is the body's own."""
    with pytest.raises(ZeroDivisionError):
        lb4mpi.parallel_for(comm, 0, 300, lambda b, e: 1 / 0, technique="STATIC")
    _, hits = run_covering(comm, 0, 3000, technique="FAC2", mode="distributed")
    assert_once_each(comm, hits, "after an abandoned loop")


def test_an_exception_of_commit_is_raised_after_the_loop(comm):
    """commit raises on the rank that commits; the loop still completes on
    every rank, and finish() raises it there."""
    ran = np.zeros(2000, dtype=np.int64)

    def body(begin, end):
        ran[begin:end] += 1
        return end - begin

    def commit(begin, end, value):
        raise KeyError("from commit")

    raised = 0
    try:
        lb4mpi.parallel_for(comm, 0, 2000, body, commit=commit, technique="GSS")
    except KeyError as e:
        assert "from commit" in str(e)
        raised = 1
    assert comm.allreduce(raised) == 1  # the coordinator, rank 0
    assert_once_each(comm, ran, "a loop whose commit raised")


def test_an_output_that_breaks_during_the_loop_keeps_the_report(comm, tmp_path_factory):
    """lb4mpi.OutputError on every rank, with the complete report."""
    folder = comm.bcast(str(tmp_path_factory.mktemp("breaks")) if comm.rank == 0 else None)
    trace = folder + "/trace.json"
    hits = np.zeros(2000, dtype=np.int64)

    def body(begin, end):
        import os
        import shutil
        if os.path.isdir(folder):  # replace the folder by a file
            shutil.rmtree(folder, ignore_errors=True)
            try:
                with open(folder, "w") as f:
                    f.write("not a folder\n")
            except OSError:
                pass
        hits[begin:end] += 1

    with pytest.raises(lb4mpi.OutputError) as e:
        lb4mpi.parallel_for(comm, 0, 2000, body, technique="FAC2", trace=trace)
    assert trace in str(e.value) and isinstance(e.value, lb4mpi.Error)
    assert same_on_every_rank(comm, str(e.value))
    assert len(e.value.reports) == 1 and e.value.reports[0].iterations() == 2000
    assert_once_each(comm, hits, "a loop whose trace broke")
