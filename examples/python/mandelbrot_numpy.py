"""The kernel of lb4mpi-mandelbrot (apps/mandelbrot/mandelbrot_kernel.*) in NumPy,
vectorised over a range of iterations, and the apps' checksum
(apps/common/mix.hpp), so that a Python run and the C++ app give the same
checksum for the same width and threshold.

Iteration i in [0, W^2) is the point (x, y) = (i // W, i % W) of a W x W grid
over [x_min, x_max) x [y_min, y_max): c = x_min + x/W (x_max - x_min) +
(y_min + y/W (y_max - y_min)) i. Its result is the number of steps
z <- z^4 + c (z0 = 0, computed as (z^2)^2) until |z| >= 2 or `threshold` steps.
Every floating-point operation is the C++ kernel's, in the same order, so
the counts are bit for bit the same.

The checksum of a run is the sum, mod 2^64, of mix_result(i, count_i) over
all iterations: it does not depend on which rank ran which iteration.
"""
from dataclasses import dataclass

import numpy as np

_U64 = np.uint64


@dataclass(frozen=True)
class Params:
    width: int = 512          # W: the loop has W^2 iterations
    threshold: int = 1000     # CT: the most steps of z <- z^4 + c per point
    x_min: float = -2.0
    x_max: float = 2.0
    y_min: float = -2.0
    y_max: float = 2.0

    def validate(self):
        if self.width < 1:
            raise ValueError(f"mandelbrot: width must be >= 1, got {self.width}")
        if self.threshold < 1:
            raise ValueError(f"mandelbrot: threshold must be >= 1, got {self.threshold}")
        if not (self.x_min < self.x_max and self.y_min < self.y_max):
            raise ValueError("mandelbrot: empty window")

    @property
    def iterations(self):
        return self.width * self.width


def escape_counts(p, begin, end):
    """The results of iterations [begin, end), as an int32 array: all points of
    the range step together, and those that escaped leave the arrays. Every
    operation writes into a buffer of its own (out=): a NumPy call costs a
    microsecond or more whatever the array's length, and this loop makes up
    to `threshold` rounds of them."""
    i = np.arange(begin, end, dtype=np.int64)
    w = float(p.width)
    c_re = p.x_min + (i // p.width).astype(np.float64) / w * (p.x_max - p.x_min)
    c_im = p.y_min + (i % p.width).astype(np.float64) / w * (p.y_max - p.y_min)
    counts = np.full(i.size, p.threshold, dtype=np.int32)
    where = np.arange(i.size)          # positions of the points still stepping
    zr, zi = np.zeros(i.size), np.zeros(i.size)
    zr2, zi2, t = np.empty(i.size), np.empty(i.size), np.empty(i.size)
    inside = np.empty(i.size, dtype=bool)
    mul, add, sub = np.multiply, np.add, np.subtract
    for k in range(p.threshold):
        mul(zr, zr, out=zr2)
        mul(zi, zi, out=zi2)
        add(zr2, zi2, out=t)
        np.less(t, 4.0, out=inside)
        if not inside.all():           # these escaped after k steps
            counts[where[~inside]] = k
            where, zr, zi, c_re, c_im = where[inside], zr[inside], zi[inside], c_re[inside], c_im[inside]
            n = where.size
            if n == 0:
                break
            zr2, zi2, t, inside = zr2[:n], zi2[:n], t[:n], inside[:n]
            mul(zr, zr, out=zr2)
            mul(zi, zi, out=zi2)
        sub(zr2, zi2, out=zr2)         # z^2: re = zr^2 - zi^2 (in zr2)
        mul(zr, 2.0, out=t)
        mul(t, zi, out=zi)             #      im = (2 zr) zi (in zi)
        mul(zr2, zr2, out=zr)          # (z^2)^2 + c: re = re^2 - im^2 + c_re
        mul(zi, zi, out=t)
        sub(zr, t, out=zr)
        add(zr, c_re, out=zr)
        mul(zr2, 2.0, out=t)           #              im = (2 re) im + c_im
        mul(t, zi, out=zi)
        add(zi, c_im, out=zi)
    return counts


def _fmix64(z):
    z = (z ^ (z >> _U64(30))) * _U64(0xbf58476d1ce4e5b9)
    z = (z ^ (z >> _U64(27))) * _U64(0x94d049bb133111eb)
    return z ^ (z >> _U64(31))


def checksum(begin, results):
    """Sum mod 2^64 of mix_result(i, results[i - begin]) over i in [begin, begin + len(results))
    (apps/common/mix.hpp), as a Python int."""
    with np.errstate(over="ignore"):
        i = np.arange(begin, begin + len(results), dtype=np.int64).astype(_U64)
        r = np.asarray(results).astype(np.int64).astype(_U64)
        terms = _fmix64(_fmix64(i ^ _U64(0x5851f42d4c957f2d)) + r * _U64(0x9e3779b97f4a7c15)
                        + _U64(0x632be59bd9b4e019))
        return int(terms.sum(dtype=_U64))


def hex64(v):
    """The apps' form of a checksum: "0x" and 16 hex digits."""
    return f"0x{v % 2**64:016x}"
