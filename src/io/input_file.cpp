// SPDX-License-Identifier: Apache-2.0
#include "io/input_file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>

namespace fa2b {
namespace {

const char* type_name(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

std::string size_text(std::size_t bytes) {
  return bytes % (std::size_t{1} << 20) == 0 ? fmt::format("{} MiB", bytes >> 20)
                                             : fmt::format("{} bytes", bytes);
}

[[noreturn]] void fail(const std::string& path, const std::string& why) {
  throw InputFileError(fmt::format("{}: {}", path, why));
}

// Closes the descriptor on every path out.
struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

std::string read_input_file(const std::string& path, const InputFileOptions& options) {
  // O_NONBLOCK: opening a FIFO for reading otherwise waits for a writer, forever.
  const Fd file{::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC)};
  if (file.fd < 0) fail(path, fmt::format("cannot open: {}", std::strerror(errno)));
  struct stat st {};
  if (::fstat(file.fd, &st) != 0) fail(path, fmt::format("cannot stat: {}", std::strerror(errno)));
  if (!S_ISREG(st.st_mode)) {
    fail(path, fmt::format("is {}; fa2bench reads only regular files (copy it to a file first)",
                           type_name(st.st_mode)));
  }
  const std::size_t cap = options.max_bytes;
  if (static_cast<std::uint64_t>(st.st_size) > cap) {
    fail(path, fmt::format("is {} bytes, more than the {} fa2bench reads of one input file",
                           static_cast<std::uint64_t>(st.st_size), size_text(cap)));
  }
  // A regular file's reads never block; clear O_NONBLOCK anyway so a read is a plain read.
  ::fcntl(file.fd, F_SETFL, ::fcntl(file.fd, F_GETFL) & ~O_NONBLOCK);
  std::string text;
  text.resize(static_cast<std::size_t>(st.st_size) + 1);  // +1: sees a file that grew
  std::size_t got = 0;
  while (true) {
    if (got == text.size()) {
      if (text.size() > cap) break;
      text.resize(std::min(cap + 1, text.size() * 2));
    }
    const ssize_t n = ::read(file.fd, &text[got], text.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail(path, fmt::format("cannot read: {}", std::strerror(errno)));
    if (n == 0) break;
    got += static_cast<std::size_t>(n);
  }
  if (got > cap) {
    fail(path, fmt::format("grew beyond the {} fa2bench reads of one input file while being read",
                           size_text(cap)));
  }
  text.resize(got);
  if (options.refuse_nul) {
    const std::size_t nul = text.find('\0');
    if (nul != std::string::npos) {
      fail(path, fmt::format("holds a NUL byte at byte offset {} (a text file has none; a reader "
                             "would ignore what follows it)",
                             nul));
    }
  }
  return text;
}

}  // namespace fa2b
