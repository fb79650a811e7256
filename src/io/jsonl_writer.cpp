// SPDX-License-Identifier: Apache-2.0
// Streaming results: one compact JSON line per finished case, written at once.
#include "io/jsonl_writer.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "io/json_detail.h"

namespace fa2b {

JsonlWriter::JsonlWriter(const std::string& path)
    : path_(path), fd_(::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644)) {
  if (fd_ < 0)
    throw std::runtime_error(path + ": cannot open for appending: " + std::strerror(errno));
}

JsonlWriter::~JsonlWriter() {
  if (fd_ >= 0) ::close(fd_);
}

void JsonlWriter::append(const CaseResult& r) {
  const std::string line = json_detail::ordered_json_of(r).dump(
                               -1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) +
                           "\n";
  struct stat st {};
  const bool sized = ::fstat(fd_, &st) == 0;
  std::size_t done = 0;
  while (done < line.size()) {
    const ssize_t n = ::write(fd_, line.data() + done, line.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int err = n < 0 ? errno : EIO;
      // A full disk took part of the line: cut it off, so the file holds whole lines only.
      if (done > 0 && sized && ::ftruncate(fd_, st.st_size) != 0) {
        throw std::runtime_error(
            path_ + ": cannot append: " + std::strerror(err) +
            " (and the partial line could not be removed: " + std::strerror(errno) + ")");
      }
      throw std::runtime_error(path_ + ": cannot append: " + std::strerror(err));
    }
    done += static_cast<std::size_t>(n);
  }
}

}  // namespace fa2b
