// SPDX-License-Identifier: Apache-2.0
// The .npy writer behind `sweep --dump`.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "io/npy_writer.h"

namespace fa2b {
namespace {

TEST(Npy, HeaderIsVersion1PaddedTo64Bytes) {
  for (const auto& shape :
       std::vector<std::vector<std::int64_t>>{{3}, {2, 3}, {1, 32, 4097, 128}, {}}) {
    const std::string h = npy_header("<f4", shape);
    ASSERT_GE(h.size(), 10u);
    EXPECT_EQ(h.substr(0, 6), "\x93NUMPY");
    EXPECT_EQ(h[6], '\x01');
    EXPECT_EQ(h[7], '\x00');
    EXPECT_EQ(h.size() % 64, 0u);
    const std::size_t len =
        static_cast<unsigned char>(h[8]) | (static_cast<unsigned char>(h[9]) << 8);
    EXPECT_EQ(len + 10, h.size());
    EXPECT_EQ(h.back(), '\n');
  }
  EXPECT_NE(npy_header("<u2", {3}).find("'shape': (3,)"), std::string::npos);
  EXPECT_NE(npy_header("<u2", {2, 3}).find("'shape': (2, 3)"), std::string::npos);
  EXPECT_NE(npy_header("<f8", {2, 3}).find("'descr': '<f8', 'fortran_order': False"),
            std::string::npos);
}

TEST(Npy, FileHoldsHeaderThenTheData) {
  const auto path = std::filesystem::temp_directory_path() / "fa2bench_test_npy.npy";
  const float data[6] = {1, 2, 3, 4, 5, 6};
  write_npy(path.string(), "<f4", {2, 3}, data, sizeof data);
  std::ifstream in(path, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string h = npy_header("<f4", {2, 3});
  ASSERT_EQ(bytes.size(), h.size() + sizeof data);
  EXPECT_EQ(bytes.substr(0, h.size()), h);
  EXPECT_EQ(std::memcmp(bytes.data() + h.size(), data, sizeof data), 0);
  EXPECT_THROW(write_npy("/nonexistent/dir/x.npy", "<f4", {1}, data, 4), std::runtime_error);
}

}  // namespace
}  // namespace fa2b
