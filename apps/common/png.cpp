#include "png.hpp"

#include <zlib.h>

#include <array>
#include <fstream>
#include <stdexcept>

namespace lb4mpi::apps {
namespace {

void put_u32_be(std::vector<std::uint8_t>& out, std::uint32_t v) {
  out.push_back(static_cast<std::uint8_t>(v >> 24U));
  out.push_back(static_cast<std::uint8_t>(v >> 16U));
  out.push_back(static_cast<std::uint8_t>(v >> 8U));
  out.push_back(static_cast<std::uint8_t>(v));
}

// A PNG chunk: length, type, data, CRC-32 of type and data.
void put_chunk(std::vector<std::uint8_t>& out, const char (&type)[5],
               std::span<const std::uint8_t> data) {
  put_u32_be(out, static_cast<std::uint32_t>(data.size()));
  const std::size_t type_at = out.size();
  out.insert(out.end(), type, type + 4);
  out.insert(out.end(), data.begin(), data.end());
  uLong crc = crc32(0L, Z_NULL, 0);
  crc = crc32(crc, out.data() + type_at, static_cast<uInt>(4 + data.size()));
  put_u32_be(out, static_cast<std::uint32_t>(crc));
}

}  // namespace

std::vector<std::uint8_t> encode_png_rgb(std::uint32_t width, std::uint32_t height,
                                         std::span<const std::uint8_t> rgb) {
  if (width == 0 || height == 0) throw std::invalid_argument("PNG: empty image");
  const std::size_t row = 3ULL * width;
  if (rgb.size() != row * height)
    throw std::invalid_argument("PNG: pixel buffer does not match the size");

  // Scanlines, each preceded by filter type 0 (none).
  std::vector<std::uint8_t> raw;
  raw.reserve((row + 1) * height);
  for (std::uint32_t y = 0; y < height; ++y) {
    raw.push_back(0);
    const auto line = rgb.subspan(y * row, row);
    raw.insert(raw.end(), line.begin(), line.end());
  }
  uLongf packed_size = compressBound(static_cast<uLong>(raw.size()));
  std::vector<std::uint8_t> packed(packed_size);
  if (compress2(packed.data(), &packed_size, raw.data(), static_cast<uLong>(raw.size()),
                Z_DEFAULT_COMPRESSION) != Z_OK)
    throw std::invalid_argument("PNG: zlib compression failed");
  packed.resize(packed_size);

  std::vector<std::uint8_t> out = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  std::vector<std::uint8_t> header;
  put_u32_be(header, width);
  put_u32_be(header, height);
  header.insert(header.end(),
                {8, 2, 0, 0, 0});  // bit depth 8, colour type RGB, deflate, filter 0, no interlace
  put_chunk(out, "IHDR", header);
  put_chunk(out, "IDAT", packed);
  put_chunk(out, "IEND", {});
  return out;
}

void write_png_rgb(const std::string& path, std::uint32_t width, std::uint32_t height,
                   std::span<const std::uint8_t> rgb) {
  const auto bytes = encode_png_rgb(width, height, rgb);
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  f.close();
  if (!f) throw std::runtime_error("cannot write " + path);
}

}  // namespace lb4mpi::apps
