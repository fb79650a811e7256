// SPDX-License-Identifier: Apache-2.0
#include "io/atomic_file.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>

namespace fa2b {

void write_text_file_atomic(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp";
  auto fail = [&](const std::string& what, int err) {
    std::remove(tmp.c_str());
    throw std::runtime_error(path + ": cannot " + what + ": " + std::strerror(err));
  };
  std::FILE* f = std::fopen(tmp.c_str(), "wb");
  if (!f) fail("create " + tmp, errno);
  const bool wrote = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  const int write_err = errno;
  const bool flushed = std::fflush(f) == 0;
  const int flush_err = errno;
  const bool closed = std::fclose(f) == 0;
  const int close_err = errno;
  if (!wrote) fail("write " + tmp, write_err);
  if (!flushed) fail("write " + tmp, flush_err);
  if (!closed) fail("close " + tmp, close_err);
  if (std::rename(tmp.c_str(), path.c_str()) != 0) fail("rename " + tmp, errno);
}

}  // namespace fa2b
