// SPDX-License-Identifier: Apache-2.0
#include "io/npy_writer.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>

namespace fa2b {

std::string npy_header(const std::string& descr, const std::vector<std::int64_t>& shape) {
  std::string dict = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    dict += std::to_string(shape[i]);
    if (shape.size() == 1 || i + 1 < shape.size()) dict += ",";
    if (i + 1 < shape.size()) dict += " ";
  }
  dict += "), }";
  const std::size_t prefix = 10;  // magic (6), version (2), header length (2)
  std::size_t total = prefix + dict.size() + 1;
  const std::size_t padded = (total + 63) / 64 * 64;
  dict.append(padded - total, ' ');
  dict += '\n';
  const std::size_t len = dict.size();
  std::string h = "\x93NUMPY";
  h += '\x01';
  h += '\x00';
  h += static_cast<char>(len & 0xFF);
  h += static_cast<char>((len >> 8) & 0xFF);
  return h + dict;
}

void write_npy(const std::string& path, const std::string& descr,
               const std::vector<std::int64_t>& shape, const void* data, std::size_t bytes) {
  const std::string header = npy_header(descr, shape);
  const std::string tmp = path + ".tmp";
  std::FILE* f = std::fopen(tmp.c_str(), "wb");
  if (!f) throw std::runtime_error(tmp + ": cannot create: " + std::strerror(errno));
  bool ok = std::fwrite(header.data(), 1, header.size(), f) == header.size();
  ok = ok && (bytes == 0 || std::fwrite(data, 1, bytes, f) == bytes);
  const int err = errno;
  ok = (std::fclose(f) == 0) && ok;
  if (!ok || std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    throw std::runtime_error(path + ": cannot write: " + std::strerror(err ? err : errno));
  }
}

}  // namespace fa2b
