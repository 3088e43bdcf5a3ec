#include "pallasbench/check/npy.hpp"

#include <gtest/gtest.h>

#include "npy_writer.hpp"

namespace pallasbench {
namespace {

using testing::npy_bytes;
using testing::raw;
using testing::temp_dir;
using testing::write_file;

npy_array write_and_open(const temp_dir& dir, const std::string& bytes) {
  const auto path = dir / "a.npy";
  write_file(path, bytes);
  return npy_array::open(path);
}

TEST(Npy, ReadsFloat32Matrix) {
  temp_dir dir;
  const auto a = write_and_open(dir, npy_bytes("<f4", {2, 3}, raw(std::vector<float>{1, 2, 3, 4, 5, -6})));
  EXPECT_EQ(a.type(), dtype::float32);
  EXPECT_EQ(a.shape(), (std::vector<std::int64_t>{2, 3}));
  ASSERT_EQ(a.size(), 6u);
  EXPECT_FLOAT_EQ(a.as<float>()[5], -6.0f);
}

TEST(Npy, ReadsIntegerBoolAndScalar) {
  temp_dir dir;
  EXPECT_EQ(write_and_open(dir, npy_bytes("<i4", {2}, raw(std::vector<std::int32_t>{7, -1}))).as<std::int32_t>()[1],
            -1);
  EXPECT_EQ(write_and_open(dir, npy_bytes("|u1", {3}, raw(std::vector<std::uint8_t>{0, 3, 2}))).type(), dtype::uint8);
  EXPECT_EQ(write_and_open(dir, npy_bytes("|b1", {1}, raw(std::vector<std::uint8_t>{1}))).type(), dtype::boolean);
  const auto scalar = write_and_open(dir, npy_bytes("<f8", {}, raw(std::vector<double>{2.5})));
  EXPECT_TRUE(scalar.shape().empty());
  EXPECT_EQ(scalar.size(), 1u);
}

TEST(Npy, ConvertsHalfPrecision) {
  temp_dir dir;
  // 1.0, -2.0, 65504 (max), smallest subnormal
  const auto a =
      write_and_open(dir, npy_bytes("<f2", {4}, raw(std::vector<std::uint16_t>{0x3c00, 0xc000, 0x7bff, 0x0001})));
  const auto h = a.as<half>();
  EXPECT_FLOAT_EQ(static_cast<float>(h[0]), 1.0f);
  EXPECT_FLOAT_EQ(static_cast<float>(h[1]), -2.0f);
  EXPECT_FLOAT_EQ(static_cast<float>(h[2]), 65504.0f);
  EXPECT_FLOAT_EQ(static_cast<float>(h[3]), 5.9604645e-8f);
}

TEST(Npy, ReadsVersion2Header) {
  temp_dir dir;
  auto bytes = npy_bytes("<f4", {1}, raw(std::vector<float>{3}));
  // Rewrite as version 2.0: 4-byte header length, header padded to keep the data aligned.
  const std::string header = bytes.substr(10, bytes.size() - 14);
  std::string v2 = "\x93NUMPY";
  v2 += '\x02';
  v2 += '\x00';
  std::string padded = header.substr(0, header.size() - 1);
  padded.append(64 - (12 + padded.size() + 1) % 64, ' ');
  padded += '\n';
  for (int i = 0; i < 4; ++i) v2 += static_cast<char>((padded.size() >> (8 * i)) & 0xff);
  v2 += padded + raw(std::vector<float>{3});
  EXPECT_FLOAT_EQ(write_and_open(dir, v2).as<float>()[0], 3.0f);
}

struct malformed_case {
  std::string name;
  std::string bytes;
  std::string expected;
};

class NpyMalformed : public ::testing::TestWithParam<malformed_case> {};

TEST_P(NpyMalformed, IsRefusedWithReason) {
  temp_dir dir;
  try {
    (void)write_and_open(dir, GetParam().bytes);
    FAIL() << "accepted a malformed file";
  } catch (const npy_error& e) {
    EXPECT_NE(std::string(e.what()).find(GetParam().expected), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("a.npy"), std::string::npos) << "message names the file";
  }
}

const std::string four_floats = raw(std::vector<float>{1, 2, 3, 4});

INSTANTIATE_TEST_SUITE_P(
    Files, NpyMalformed,
    ::testing::Values(malformed_case{"empty", "", "magic"},
                      malformed_case{"bad_magic", "NOTNUMPY" + std::string(100, ' '), "magic"},
                      malformed_case{"truncated_data", npy_bytes("<f4", {2, 3}, four_floats), "data holds 16 bytes"},
                      malformed_case{"extra_data", npy_bytes("<f4", {1}, four_floats), "data holds 16 bytes"},
                      malformed_case{"fortran", npy_bytes("<f4", {2, 2}, four_floats, true), "Fortran"},
                      malformed_case{"big_endian", npy_bytes(">f4", {4}, four_floats), "big-endian"},
                      malformed_case{"complex", npy_bytes("<c8", {2}, four_floats), "unsupported dtype"},
                      malformed_case{"object", npy_bytes("|O", {2}, four_floats), "unsupported dtype"},
                      malformed_case{"bad_shape", npy_bytes("<f4", {4}, four_floats).replace(60, 3, "x, "), "shape"},
                      malformed_case{"header_past_end", npy_bytes("<f4", {4}, four_floats).substr(0, 40),
                                     "header runs past"},
                      malformed_case{"version", npy_bytes("<f4", {4}, four_floats).replace(6, 1, "\x07"), "version 7"}),
    [](const auto& info) { return info.param.name; });

TEST(Npy, MissingFileNamesIt) { EXPECT_THROW((void)npy_array::open("/nonexistent/x.npy"), npy_error); }

TEST(Npy, MappingOutlivesUnlink) {
  temp_dir dir;
  const auto path = dir / "r.npy";
  write_file(path, npy_bytes("<f4", {4}, four_floats));
  const auto a = npy_array::open(path);
  std::filesystem::remove(path);
  EXPECT_FLOAT_EQ(a.as<float>()[3], 4.0f);
}

}  // namespace
}  // namespace pallasbench
