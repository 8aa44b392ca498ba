#include "mandelbrot_kernel.hpp"

#include <algorithm>
#include <cmath>
#include <string>

namespace lb4mpi::apps::mandelbrot {

void Params::validate() const {
  if (width < 1) throw Error("mandelbrot: width must be >= 1, got " + std::to_string(width));
  // W^2 must fit in a 64-bit index and W^2 results in memory for the image.
  if (width > 3037000499) throw Error("mandelbrot: width too large, got " + std::to_string(width));
  if (threshold < 1)
    throw Error("mandelbrot: threshold must be >= 1, got " + std::to_string(threshold));
  if (!(x_min < x_max) || !(y_min < y_max)) throw Error("mandelbrot: empty window");
}

std::int32_t escape_count(double c_re, double c_im, std::int32_t threshold) {
  double zr = 0.0;
  double zi = 0.0;
  std::int32_t k = 0;
  while (k < threshold && zr * zr + zi * zi < 4.0) {
    // z^2, then (z^2)^2, then + c.
    const double sr = zr * zr - zi * zi;
    const double si = 2.0 * zr * zi;
    zr = sr * sr - si * si + c_re;
    zi = 2.0 * sr * si + c_im;
    ++k;
  }
  return k;
}

Point point_of(const Params& p, Index i) {
  const Index x = i / p.width;
  const Index y = i % p.width;
  const double w = static_cast<double>(p.width);
  return {p.x_min + static_cast<double>(x) / w * (p.x_max - p.x_min),
          p.y_min + static_cast<double>(y) / w * (p.y_max - p.y_min)};
}

std::int32_t iteration(const Params& p, Index i) {
  const Point c = point_of(p, i);
  return escape_count(c.re, c.im, p.threshold);
}

void compute_range(const Params& p, Index begin, std::span<std::int32_t> out) {
  for (std::size_t k = 0; k < out.size(); ++k) out[k] = iteration(p, begin + static_cast<Index>(k));
}

Params three_loop_params(const Params& base, double h_min, int loop, int step, int steps) {
  if (loop < 0 || loop > 2) throw Error("mandelbrot: three_loop_params: loop must be 0, 1 or 2");
  if (steps < 1 || step < 0 || step >= steps)
    throw Error("mandelbrot: three_loop_params: step out of range");
  const double hx = 0.5 * (base.x_max - base.x_min);
  if (!(h_min > 0.0) || !(h_min <= hx))
    throw Error("mandelbrot: --min-half-width must be in (0, " + std::to_string(hx) + "]");
  if (loop == 0) return base;
  const double f = (static_cast<double>(step) + 0.5) / static_cast<double>(steps);
  const double g = loop == 1 ? f : 1.0 - f;
  const double scale = (h_min + (hx - h_min) * g) / hx;  // in (0, 1]
  const double cx = 0.5 * (base.x_min + base.x_max);
  const double cy = 0.5 * (base.y_min + base.y_max);
  const double hy = 0.5 * (base.y_max - base.y_min);
  Params p = base;
  p.x_min = cx - hx * scale;
  p.x_max = cx + hx * scale;
  p.y_min = cy - hy * scale;
  p.y_max = cy + hy * scale;
  return p;
}

void colour_image(const Params& p, std::span<const std::int32_t> counts,
                  std::span<std::uint8_t> rgb) {
  const auto w = static_cast<std::size_t>(p.width);
  if (counts.size() != w * w || rgb.size() != 3 * w * w)
    throw Error("mandelbrot: image buffers of the wrong size");
  const double log_t = std::log(static_cast<double>(std::max(p.threshold, 2)));
  for (std::size_t x = 0; x < w; ++x) {
    for (std::size_t y = 0; y < w; ++y) {
      const std::int32_t k = counts[x * w + y];
      // Row 0 of the picture is the top: the largest imaginary part.
      std::uint8_t* px = &rgb[3 * ((w - 1 - y) * w + x)];
      if (k >= p.threshold) {
        px[0] = px[1] = px[2] = 0;
        continue;
      }
      const double t = std::clamp(std::log(static_cast<double>(std::max(k, 1))) / log_t, 0.0, 1.0);
      px[0] = static_cast<std::uint8_t>(255.0 * t * t);
      px[1] = static_cast<std::uint8_t>(255.0 * t);
      px[2] = static_cast<std::uint8_t>(96.0 + 159.0 * t);
    }
  }
}

}  // namespace lb4mpi::apps::mandelbrot
