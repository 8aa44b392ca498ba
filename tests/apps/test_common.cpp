#include <gtest/gtest.h>
#include <zlib.h>

#include <cstdint>
#include <set>
#include <vector>

#include "common/mix.hpp"
#include "common/png.hpp"

namespace apps = lb4mpi::apps;

namespace {
std::uint32_t be32(const std::vector<std::uint8_t>& b, std::size_t at) {
  return (std::uint32_t{b[at]} << 24U) | (std::uint32_t{b[at + 1]} << 16U) |
         (std::uint32_t{b[at + 2]} << 8U) | std::uint32_t{b[at + 3]};
}
}  // namespace

TEST(Png, RoundTrip) {
  const std::uint32_t w = 5, h = 3;
  std::vector<std::uint8_t> rgb(3 * w * h);
  for (std::size_t k = 0; k < rgb.size(); ++k) rgb[k] = static_cast<std::uint8_t>(k * 7);
  const auto png = apps::encode_png_rgb(w, h, rgb);
  ASSERT_GT(png.size(), 8U + 25 + 12 + 12);
  const std::vector<std::uint8_t> sig = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  EXPECT_TRUE(std::equal(sig.begin(), sig.end(), png.begin()));

  // Walk the chunks, checking every CRC; collect IDAT.
  std::size_t at = 8;
  std::vector<std::string> types;
  std::vector<std::uint8_t> idat;
  while (at < png.size()) {
    const std::uint32_t len = be32(png, at);
    const std::string type(png.begin() + static_cast<long>(at) + 4,
                           png.begin() + static_cast<long>(at) + 8);
    types.push_back(type);
    const auto crc = crc32(crc32(0L, Z_NULL, 0), png.data() + at + 4, len + 4);
    EXPECT_EQ(be32(png, at + 8 + len), static_cast<std::uint32_t>(crc)) << type;
    if (type == "IHDR") {
      EXPECT_EQ(be32(png, at + 8), w);
      EXPECT_EQ(be32(png, at + 12), h);
    }
    if (type == "IDAT")
      idat.insert(idat.end(), png.begin() + static_cast<long>(at) + 8,
                  png.begin() + static_cast<long>(at + 8 + len));
    at += 12 + len;
  }
  EXPECT_EQ(at, png.size());
  EXPECT_EQ(types, (std::vector<std::string>{"IHDR", "IDAT", "IEND"}));

  std::vector<std::uint8_t> raw((3 * w + 1) * h);
  uLongf raw_len = raw.size();
  ASSERT_EQ(uncompress(raw.data(), &raw_len, idat.data(), static_cast<uLong>(idat.size())), Z_OK);
  ASSERT_EQ(raw_len, raw.size());
  for (std::uint32_t y = 0; y < h; ++y) {
    EXPECT_EQ(raw[y * (3 * w + 1)], 0);  // filter: none
    for (std::uint32_t k = 0; k < 3 * w; ++k)
      EXPECT_EQ(raw[y * (3 * w + 1) + 1 + k], rgb[y * 3 * w + k]);
  }
}

TEST(Png, RejectsBadSizes) {
  std::vector<std::uint8_t> rgb(10);
  EXPECT_THROW(apps::encode_png_rgb(2, 2, rgb), std::invalid_argument);
  EXPECT_THROW(apps::encode_png_rgb(0, 2, {}), std::invalid_argument);
}

TEST(Mix, OrderIndependentAndSensitive) {
  std::uint64_t a = 0, b = 0;
  for (std::uint64_t i = 0; i < 1000; ++i) a += apps::mix_result(i, i * i);
  for (std::uint64_t i = 1000; i-- > 0;) b += apps::mix_result(i, i * i);
  EXPECT_EQ(a, b);
  // Swapping two results changes the sum.
  std::uint64_t c = a - apps::mix_result(3, 9) - apps::mix_result(4, 16) + apps::mix_result(3, 16) +
                    apps::mix_result(4, 9);
  EXPECT_NE(a, c);
  // Uniform01 stays inside (0, 1).
  auto rng = apps::SplitMix64::stream(1, 2);
  std::set<double> seen;
  for (int k = 0; k < 10000; ++k) {
    const double u = rng.uniform01();
    EXPECT_GT(u, 0.0);
    EXPECT_LT(u, 1.0);
    seen.insert(u);
  }
  EXPECT_EQ(seen.size(), 10000U);
}
