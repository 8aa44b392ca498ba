#!/usr/bin/env python3
"""Writes the seed inputs of the fuzz targets into fuzz/corpus/<target>/.

The byte layouts are those the check units decode (fuzz/byte_reader.hpp,
check_options.cpp, check_chunks.cpp, check_capi.cpp): each seed is a
readable recipe here, and a few dozen bytes on disk. Run it again after a
change of a layout:  python3 fuzz/seeds.py
Files named regression-* are inputs that once found a bug; this script
leaves them alone.
"""
import math
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
INT_MIN, INT_MAX = -(2**31), 2**31 - 1


class Bytes:
    """The encoder matching ByteReader."""

    def __init__(self):
        self.out = bytearray()

    def u8(self, v):
        self.out.append(v & 0xFF)
        return self

    def take_in(self, lo, hi, v):
        # ByteReader::take_in: as many bytes as the span needs, most significant first.
        span, raw, nbytes = hi - lo, v - lo, 0
        s = span
        while s:
            nbytes += 1
            s >>= 8
        for i in reversed(range(nbytes)):
            self.out.append((raw >> (8 * i)) & 0xFF)
        return self

    def bool(self, b):
        return self.u8(1 if b else 0)

    def i32(self, v):
        self.out += struct.pack("<i", v)
        return self

    def u16(self, v):
        self.out += struct.pack("<H", v)
        return self

    def i64(self, v):
        self.out += struct.pack("<q", v)
        return self

    def u64(self, v):
        self.out += struct.pack("<Q", v)
        return self

    def f64(self, v):
        self.out += struct.pack("<d", v)
        return self

    def text(self, s):
        data = s.encode("latin-1") if isinstance(s, str) else s
        return self.u8(len(data)).raw(data)

    def raw(self, data):
        self.out += data
        return self


def write(target, name, data):
    folder = os.path.join(HERE, "corpus", target)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "seed-" + name), "wb") as f:
        f.write(bytes(data))


# ---- fuzz_options (check_options.cpp) -----------------------------------------
OPT_TECHNIQUE, OPT_MODE, OPT_SET, OPT_UNKNOWN, OPT_UNSET, OPT_READ = 0, 1, 2, 4, 5, 6
VARS = ["LB4MPI_SCHEDULING", "LB4MPI_MODE", "LB4MPI_MIN_CHUNK", "LB4MPI_MAX_CHUNK", "LB4MPI_H",
        "LB4MPI_SIGMA", "LB4MPI_MU", "LB4MPI_ALPHA", "LB4MPI_FISS_B", "LB4MPI_VISS_X",
        "LB4MPI_PLS_SWR", "LB4MPI_RND_BOUNDS", "LB4MPI_SEED", "LB4MPI_WEIGHTS",
        "LB4MPI_BREAK_AFTER", "LB4MPI_REQUEST_WHEN", "LB4MPI_INJECT_DELAY_US",
        "LB4MPI_DELAY_RANKS", "LB4MPI_TRACE", "LB4MPI_ITERATIONS_INFO", "LB4MPI_DIR_ID",
        "LB4MPI_IDLE_PROBING"]


def options_seeds():
    def env(*pairs, ranks=4):
        b = Bytes()
        for var, value in pairs:
            b.u8(OPT_SET).u8(VARS.index(var)).text(value)
        return b.u8(OPT_READ).take_in(-1, 300, ranks)

    names = Bytes()
    for t in ["GSS", " awf_b ", "wFAC", "7", "6", "-0", "15", "fac2\t", "AWF-", "", "99999999999"]:
        names.u8(OPT_TECHNIQUE).text(t)
    write("fuzz_options", "technique-names", names.out)
    modes = Bytes()
    for m in ["dca", "DISTRIBUTED_RMA", "cca", " dca", "rma", ""]:
        modes.u8(OPT_MODE).text(m)
    write("fuzz_options", "modes", modes.out)
    write("fuzz_options", "all-valid", env(("LB4MPI_SCHEDULING", "AWF-C"), ("LB4MPI_MODE", "dca-rma"),
                                           ("LB4MPI_MIN_CHUNK", "4"), ("LB4MPI_MAX_CHUNK", "400"),
                                           ("LB4MPI_SIGMA", "0.5"), ("LB4MPI_FISS_B", "5"),
                                           ("LB4MPI_RND_BOUNDS", "Paper004"), ("LB4MPI_SEED", "-1"),
                                           ("LB4MPI_WEIGHTS", "1,2.5,0.5,1"),
                                           ("LB4MPI_DELAY_RANKS", "0,3"), ("LB4MPI_IDLE_PROBING", "yes"),
                                           ("LB4MPI_TRACE", "run.json")).out)
    write("fuzz_options", "int-out-of-range", env(("LB4MPI_BREAK_AFTER", "4294967296")).out)
    write("fuzz_options", "list-out-of-range", env(("LB4MPI_DELAY_RANKS", "1,4294967297")).out)
    write("fuzz_options", "count-overflow", env(("LB4MPI_MIN_CHUNK", "9223372036854775808")).out)
    write("fuzz_options", "real-not-finite", env(("LB4MPI_SIGMA", "1e309")).out)
    write("fuzz_options", "real-denormal", env(("LB4MPI_MU", "1e-320")).out)
    write("fuzz_options", "list-empty-item", env(("LB4MPI_WEIGHTS", "1,,2")).out)
    write("fuzz_options", "bool-word", env(("LB4MPI_ITERATIONS_INFO", "maybe")).out)
    write("fuzz_options", "delay-rank-outside", env(("LB4MPI_DELAY_RANKS", "7"), ranks=2).out)
    unknown = Bytes().u8(OPT_UNKNOWN).take_in(1, 12, 4)
    for c in [ord("M") - 65, ord("D") - 65, ord("O") - 65, ord("E") - 65]:
        unknown.u8(c)
    unknown.u8(OPT_SET).u8(VARS.index("LB4MPI_MODE")).text("dca").u8(OPT_UNSET).u8(VARS.index("LB4MPI_MODE"))
    write("fuzz_options", "unknown-variable", unknown.out)


# ---- fuzz_chunks (check_chunks.cpp) ---------------------------------------------
TECHNIQUES = ["STATIC", "SS", "FSC", "mFSC", "GSS", "TAP", "TSS", "FAC", "FAC2", "TFSS", "FISS",
              "VISS", "WF", "AWF", "AWF-B", "AWF-C", "AWF-D", "AWF-E", "AF", "RND", "PLS"]
DRIVES = {"recursive": 0, "split": 1, "closed": 2, "simulated": 3}
FEEDBACK = {"none": 0, "uniform": 1, "random": 2}


def chunk_case(technique, n, p, drive="recursive", feedback="uniform", min_chunk=1, max_chunk=0,
               sigma=None, mu=None, weights=None, slowdown=None, executions=1, clone_at=0,
               fiss_b=None, viss_x=None, swr=None, rnd004=False, form_closed=False):
    b = Bytes().u8(TECHNIQUES.index(technique))
    # N: selector 3 = any value in [0, 2^62]; 0 = [0, 64].
    if n <= 64:
        b.u8(0).take_in(0, 64, n)
    else:
        b.u8(3).take_in(0, 2**62, n)
    # P: selector 3 = [1, 2^20].
    b.u8(3).take_in(1, 2**20, p)
    b.u8(2).take_in(1, 2**62, min_chunk)  # min_chunk: any in [1, 2^62]
    b.u8(2 if max_chunk else 0)
    if max_chunk:
        b.take_in(1, 2**62, max_chunk)
    for value in [None, sigma, mu, None, viss_x, swr]:  # h, sigma, mu, alpha, viss_x, pls_swr
        if value is None:
            b.u8(0)
        else:
            b.u8(2).f64(value)
    if fiss_b is None:
        b.u8(0)
    else:
        b.u8(1).take_in(-2, 64, fiss_b)
    b.u8(1 if rnd004 else 0).u64(12345)
    if weights is None:
        b.u8(0)
    else:
        b.u8(2).u8(len(weights) - 1)
        for w in weights:
            b.f64(w)
    # The plan.
    b.u8(DRIVES[drive]).u8(FEEDBACK[feedback]).bool(False).bool(form_closed)
    if slowdown is None:
        b.u8(0)
    else:
        b.u8(2).u8(len(slowdown) - 1)
        for s in slowdown:
            b.f64(s)
    b.bool(False).u8(executions - 1).u16(clone_at)
    return b.u8(2).out  # the largest budget of chunks


def chunks_seeds():
    write("fuzz_chunks", "table2-closed", chunk_case("GSS", 1000, 4, drive="closed"))
    for t in TECHNIQUES:
        write("fuzz_chunks", t + "-recursive", chunk_case(t, 10007, 7, feedback="uniform",
                                                            slowdown=[1.0, 2.0, 0.5]))
    write("fuzz_chunks", "GSS-closed-huge", chunk_case("GSS", 2**62, 1000, drive="closed"))
    write("fuzz_chunks", "GSS-closed-huge-P", chunk_case("GSS", 2**62, 2**20, drive="closed"))
    write("fuzz_chunks", "TAP-closed-huge", chunk_case("TAP", 2**62, 4, drive="closed"))
    write("fuzz_chunks", "FAC2-closed-capped", chunk_case("FAC2", 65536, 3, drive="closed",
                                                           min_chunk=13, max_chunk=400))
    write("fuzz_chunks", "FAC-closed-extreme-cv", chunk_case("FAC", 2**40, 1, drive="closed",
                                                              sigma=1e9, mu=1e-3))
    write("fuzz_chunks", "TSS-closed-capped", chunk_case("TSS", 10**9, 16, drive="closed",
                                                          max_chunk=10**6))
    write("fuzz_chunks", "WF-split-weights", chunk_case("WF", 10**6, 4, drive="split",
                                                         weights=[1.0, 3.0, 0.25, 2.0]))
    write("fuzz_chunks", "AF-split", chunk_case("AF", 10**6, 5, drive="split"))
    write("fuzz_chunks", "AWF-B-clone-huge", chunk_case("AWF-B", 2**62 - 5, 3, clone_at=50,
                                                         slowdown=[1.0, 4.0]))
    write("fuzz_chunks", "AWF-time-steps", chunk_case("AWF", 100000, 4, executions=3,
                                                       slowdown=[1.0, 3.0]))
    write("fuzz_chunks", "AWF-E-random-feedback", chunk_case("AWF-E", 5000, 3, feedback="random"))
    write("fuzz_chunks", "FISS-many-batches", chunk_case("FISS", 10**7, 8, fiss_b=60, drive="closed"))
    write("fuzz_chunks", "VISS-tiny-x", chunk_case("VISS", 10**6, 4, viss_x=1e-300, drive="closed"))
    write("fuzz_chunks", "PLS-swr-0", chunk_case("PLS", 10**6, 4, swr=0.0, drive="closed"))
    write("fuzz_chunks", "RND-paper004", chunk_case("RND", 10**8, 16, rnd004=True, drive="closed"))
    write("fuzz_chunks", "simulated-closed", chunk_case("TFSS", 10**6, 4, drive="simulated",
                                                         form_closed=True, slowdown=[1.0, 2.0]))
    write("fuzz_chunks", "invalid-sigma", chunk_case("FSC", 1000, 4, sigma=0.0))
    write("fuzz_chunks", "invalid-weights", chunk_case("WF", 1000, 2, weights=[1.0, -1.0]))


# ---- fuzz_capi (check_capi.cpp) -------------------------------------------------
METHODS = [0, 1, 2, 3, 4, 5, 7, 8, 9, 10, 11, 12, 13, 14, 100, 101, 102, 103, 104, 105, 106]
(CONFIGURE, MODE_OF, SETUP, NUM_LOOPS, START_LOOP, TERMINATED, START_CHUNK, END_CHUNK,
 END_CHUNK3, END_LOOP, START_MLOOPS, MTERMINATED, TARGET, END_MLOOPS, FINALIZE, FINISH,
 SET_VARIABLE) = range(17)


class Calls(Bytes):
    def handle(self, which=0):
        return self.u8(0).u8(which)

    def setup(self, which=0, min_chunk=1):
        self.u8(SETUP).handle(which).u8(0)  # sel 0: MPI_COMM_WORLD, numProcs 1, no extremes
        return self.take_in(-2, 64, -1).take_in(-2, 64, -1).take_in(-1, 16, min_chunk)

    def method(self, m):
        return self.u8(0).u8(METHODS.index(m))

    def small_range(self, first, n):
        return self.u8(0).take_in(-100, 100, first).take_in(0, 64, n)

    def start_loop(self, m, first, n, which=0):
        return self.u8(START_LOOP).handle(which).method(m).small_range(first, n)

    def finish(self, which=0, three=False):
        return self.u8(FINISH).u8(which).bool(three)

    def end_loop(self, which=0):
        return self.u8(END_LOOP).handle(which).bool(False)

    def start_mloops(self, loops, which=0):
        self.u8(START_MLOOPS).handle(which)
        for i in range(8):
            m, first, n = loops[i] if i < len(loops) else (0, 0, 0)
            self.method(m).small_range(first, n)
        return self.u8(1)  # not NULL

    def end_mloops(self, which=0):
        return self.u8(END_MLOOPS).handle(which).bool(False)


def capi_seeds():
    seq = Calls().setup()
    for m in [4, 7, 13, 14, 106]:
        seq.start_loop(m, 5, 60).finish().end_loop()
    write("fuzz_capi", "loops-in-sequence", seq.u8(FINALIZE).handle().out)
    for mode in [1, 2]:
        seq = Calls().u8(CONFIGURE).take_in(-1, 3, mode).setup(min_chunk=3)
        seq.start_loop(9, 0, 64).finish(three=True).end_loop().start_loop(9, 0, 64).finish().end_loop()
        write("fuzz_capi", "mode-%d-time-steps" % mode, seq.out)
    seq = Calls().u8(NUM_LOOPS).handle().take_in(-2, 6, 3).setup()
    seq.start_mloops([(4, 0, 50), (14, -20, 64), (1, 7, 0)]).finish().end_mloops()
    write("fuzz_capi", "several-loops", seq.out)
    seq = Calls().setup().u8(NUM_LOOPS).handle().take_in(-2, 6, 2)
    seq.start_mloops([(8, 0, 30), (106, 0, 64)]).u8(TARGET).handle().take_in(-2, 8, 1)
    seq.u8(START_CHUNK).handle().u8(1).u8(END_CHUNK).handle().u8(END_MLOOPS).handle().bool(True)
    write("fuzz_capi", "mloops-end-early", seq.out)
    seq = Calls().setup().start_loop(1, 0, 10).u8(TERMINATED).handle().u8(START_CHUNK).handle().u8(1)
    seq.u8(END_CHUNK).handle().end_loop()
    write("fuzz_capi", "endloop-early", seq.out)
    write("fuzz_capi", "chunk-outside-loop", Calls().setup().u8(START_CHUNK).handle().u8(1).out)
    write("fuzz_capi", "start-before-setup", Calls().start_loop(4, 0, 10).out)
    write("fuzz_capi", "bad-method", Calls().setup().u8(START_LOOP).handle().u8(7).i32(42).small_range(0, 5).out)
    write("fuzz_capi", "bad-mode", Calls().u8(CONFIGURE).take_in(-1, 3, 3).setup().start_loop(4, 0, 5).out)
    seq = Calls().setup().u8(START_LOOP).handle().method(0).u8(3).take_in(INT_MIN, 0, 0)
    seq.take_in(INT_MAX - 1000, INT_MAX, INT_MAX - 1).finish().end_loop()
    write("fuzz_capi", "int-max-iterations", seq.out)
    seq = Calls().u8(SET_VARIABLE).u8(0).bool(True).u8(1).setup().start_loop(10, 0, 64).finish().end_loop()
    write("fuzz_capi", "env-dca-rma", seq.out)
    write("fuzz_capi", "two-handles", Calls().setup(0).setup(1).start_loop(4, 0, 20, 1).finish(1).end_loop(1)
          .start_loop(1, 0, 9, 0).finish(0).end_loop(0).u8(FINALIZE).handle(1).out)
    write("fuzz_capi", "stranger-handle", Calls().u8(TERMINATED).u8(7).u64(0xDEADBEEF).out)


if __name__ == "__main__":
    options_seeds()
    chunks_seeds()
    capi_seeds()
