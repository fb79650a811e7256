// SPDX-License-Identifier: Apache-2.0
#include "io/atomic_file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace fa2b {
namespace {

[[noreturn]] void fail(const std::string& path, const std::string& what, int err) {
  throw OutputError(fmt::format("{}: cannot {}: {}", path, what, std::strerror(err)));
}

// Writes all of `text` to `fd` (short writes and EINTR retried); the errno of a failure, or 0.
int write_all(int fd, std::string_view text) {
  while (!text.empty()) {
    const ssize_t n = ::write(fd, text.data(), text.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno;
    if (n == 0) return EIO;
    text.remove_prefix(static_cast<std::size_t>(n));
  }
  return 0;
}

// Whole or not at all: a temporary beside `path`, synced, then renamed over it.
void replace_regular(const std::string& path, std::string_view text) {
  const std::string tmp = path + ".tmp";
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) fail(path, "create " + tmp, errno);
  int err = write_all(fd, text);
  // Without the sync a full disk on delayed allocation may only show after the rename.
  if (err == 0 && ::fsync(fd) != 0 && errno != EINVAL && errno != EROFS) err = errno;
  if (::close(fd) != 0 && err == 0) err = errno;
  if (err != 0) {
    ::unlink(tmp.c_str());
    fail(path, "write " + tmp, err);
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    err = errno;
    ::unlink(tmp.c_str());
    fail(path, "rename " + tmp + " to it", err);
  }
}

// A FIFO, a device, anything but a regular file: opened as it is and written through.
void write_through(const std::string& path, std::string_view text) {
  // O_CREAT: a dangling link gets its target created, as the shell's ">" does.
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) fail(path, "open for writing", errno);
  int err = write_all(fd, text);
  if (::close(fd) != 0 && err == 0) err = errno;
  if (err != 0) fail(path, "write", err);
}

}  // namespace

void write_output_file(const std::string& path, std::string_view text) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) {
    if (errno != ENOENT) fail(path, "inspect", errno);
    replace_regular(path, text);  // a new file
    return;
  }
  if (S_ISREG(st.st_mode)) {
    replace_regular(path, text);
    return;
  }
  if (S_ISLNK(st.st_mode)) {
    // Renaming over the link would replace the link itself; replace what it points to.
    char* real = ::realpath(path.c_str(), nullptr);
    if (real) {
      const std::string target(real);
      std::free(real);
      struct stat target_st {};
      if (::stat(target.c_str(), &target_st) == 0 && S_ISREG(target_st.st_mode)) {
        replace_regular(target, text);
        return;
      }
    }
    // A dangling link or one to a FIFO or device: as the shell's ">" would.
    write_through(path, text);
    return;
  }
  if (S_ISDIR(st.st_mode)) fail(path, "write", EISDIR);
  write_through(path, text);
}

void write_stdout(std::string_view text) {
  const bool wrote = std::fwrite(text.data(), 1, text.size(), stdout) == text.size();
  const int write_err = errno;
  if (!wrote) fail("stdout", "write", write_err);
  if (std::fflush(stdout) != 0) fail("stdout", "write", errno);
}

std::string stdout_failure() {
  errno = 0;
  if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
    return errno != 0 ? std::strerror(errno) : "an earlier write failed";
  }
  return "";
}

}  // namespace fa2b
