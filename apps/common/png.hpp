// A minimal PNG encoder (8-bit RGB, zlib-compressed, no interlace). No MPI.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace lb4mpi::apps {

/// Encodes a width x height RGB image (`rgb` holds 3 * width * height bytes,
/// row by row from the top) as the bytes of a PNG file.
/// Throws std::invalid_argument on a size mismatch or a zlib failure.
std::vector<std::uint8_t> encode_png_rgb(std::uint32_t width, std::uint32_t height,
                                         std::span<const std::uint8_t> rgb);

/// encode_png_rgb, written to `path`. Throws std::runtime_error when the file
/// cannot be written.
void write_png_rgb(const std::string& path, std::uint32_t width, std::uint32_t height,
                   std::span<const std::uint8_t> rgb);

}  // namespace lb4mpi::apps
