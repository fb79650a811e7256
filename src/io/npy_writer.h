// SPDX-License-Identifier: Apache-2.0
// NumPy .npy files (format version 1.0): what `sweep --dump` writes tensors as.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace fa2b {

// The header of a C-order array: magic, version 1.0, the dict padded so the data starts at a
// multiple of 64 bytes. `descr` is a NumPy type string: "<f4", "<f8", "<u2", "<i8".
std::string npy_header(const std::string& descr, const std::vector<std::int64_t>& shape);
// Writes header and `bytes` bytes of data (which must match descr and shape); throws
// std::runtime_error naming the file on failure. Written to "<path>.tmp", then renamed.
void write_npy(const std::string& path, const std::string& descr,
               const std::vector<std::int64_t>& shape, const void* data, std::size_t bytes);

}  // namespace fa2b
