// Mandelbrot-like set of z <- z^4 + c (`001` Listing 3): the kernel of the
// mandelbrot app. Pure functions, no MPI.
//
// Loop iteration i in [0, W^2) is the point (x, y) = (i / W, i % W) of a W x W
// grid over the window [x_min, x_max) x [y_min, y_max) of the complex plane:
//   c = (x_min + x/W (x_max - x_min)) + (y_min + y/W (y_max - y_min)) i.
// Its result is the number of steps z <- z^4 + c (z0 = 0) taken until |z| >= 2
// or `threshold` steps: `threshold` for points of the set, small counts for
// points far from it. A loop's parameters are a value of Params, so several
// loops with their own parameters can share the kernel.
#pragma once
#include <cstdint>
#include <span>

#include "lb4mpi/types.hpp"

namespace lb4mpi::apps::mandelbrot {

struct Params {
  Index width = 512;                 ///< W: the grid is W x W, the loop has W^2 iterations
  std::int32_t threshold = 1000;     ///< CT: the most steps of z <- z^4 + c per point
  double x_min = -2.0, x_max = 2.0;  ///< real axis of the window
  double y_min = -2.0, y_max = 2.0;  ///< imaginary axis of the window

  /// Throws lb4mpi::Error naming the bad parameter.
  void validate() const;
  /// W^2, the number of iterations of the loop.
  [[nodiscard]] Index iterations() const { return width * width; }
};

/// Steps of z <- z^4 + c from z = 0 until |z| >= 2 or `threshold` steps.
std::int32_t escape_count(double c_re, double c_im, std::int32_t threshold);

/// The point c of iteration i.
struct Point {
  double re, im;
};
Point point_of(const Params& p, Index i);

/// The result of iteration i: escape_count at point_of(p, i).
std::int32_t iteration(const Params& p, Index i);

/// Results of iterations [begin, begin + out.size()) into `out`.
void compute_range(const Params& p, Index begin, std::span<std::int32_t> out);

/// The work model of an iteration in the simulation build
/// (apps/common/work.hpp, docs/EXPERIMENTS.md "Work models"): its time on
/// the machine the constants were measured on, from its result (the steps of
/// z <- z^4 + c taken). bench/bench_kernels.cpp measures them.
inline constexpr double kSecondsPerPoint = 3.7e-9;  ///< a point that escapes after its first step
inline constexpr double kSecondsPerStep = 4.9e-9;   ///< every further step of z <- z^4 + c
inline double modelled_seconds(std::int32_t count) {
  return kSecondsPerPoint + kSecondsPerStep * static_cast<double>(count > 1 ? count - 1 : 0);
}

/// The three loops of a time step of `003` §5.2 (`--loops 3`): the same
/// W x W grid and threshold, three windows centred on `base`'s centre.
///   loop 0: `base` in every step -- constant imbalance;
///   loop 1: half-width h(f) = h_min + (h_base - h_min) f with
///           f = (step + 0.5) / steps: zooms out from h_min towards h_base
///           over the steps -- increasing imbalance;
///   loop 2: h(1 - f): zooms in -- decreasing imbalance (loop 1 backwards).
/// h_base is base's half-width along each axis; h_min is given for the real
/// axis and scaled alike for the imaginary one. Close to the origin every point
/// is in the set and costs `threshold` steps (balanced); zoomed out, the
/// cheap points around the set take over and the costs vary more and more.
Params three_loop_params(const Params& base, double h_min, int loop, int step, int steps);

/// Colours a grid of results (counts[i] for i in [0, W^2)) as an RGB image,
/// W x W, real axis to the right, imaginary axis up: points of the set black,
/// the others by log(count) / log(threshold).
void colour_image(const Params& p, std::span<const std::int32_t> counts,
                  std::span<std::uint8_t> rgb);

}  // namespace lb4mpi::apps::mandelbrot
