// SPDX-License-Identifier: Apache-2.0
#include "app/out_dir.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>

namespace fa2b {

namespace fs = std::filesystem;

std::unique_ptr<OutDirLock> OutDirLock::acquire(const fs::path& dir, std::string* why) {
  const std::string path = (dir / kOutLockName).string();
  // O_CLOEXEC: the isolated cases' processes must not hold the lock after this one is gone.
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) {
    *why = fmt::format("cannot open the lock file {}: {}", path, std::strerror(errno));
    return nullptr;
  }
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    char buf[32] = {};
    const ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
    ::close(fd);
    if (err != EWOULDBLOCK) {
      *why = fmt::format("cannot lock {}: {}", path, std::strerror(err));
      return nullptr;
    }
    std::string pid = n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : "";
    while (!pid.empty() && (pid.back() == '\n' || pid.back() == ' ')) pid.pop_back();
    *why = fmt::format(
        "{} is in use by another sweep ({}); two sweeps in one --out would mix their results. "
        "Wait for it to finish or choose another --out",
        dir.string(), pid.empty() ? "its pid is not written yet" : "pid " + pid);
    return nullptr;
  }
  // The holder's pid, for the message of a sweep refused above.
  const std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd, 0) != 0 ||
      ::pwrite(fd, pid.data(), pid.size(), 0) != static_cast<ssize_t>(pid.size())) {
    *why = fmt::format("cannot write {}: {}", path, std::strerror(errno));
    ::close(fd);
    return nullptr;
  }
  return std::unique_ptr<OutDirLock>(new OutDirLock(fd));
}

OutDirLock::~OutDirLock() {
  ::close(fd_);
}

const std::vector<std::string>& sweep_output_names() {
  static const std::vector<std::string> names = {"sweep.json", "results.jsonl", "results.json",
                                                 "results.csv", "summary.md"};
  return names;
}

std::vector<std::string> existing_sweep_outputs(const fs::path& dir) {
  std::vector<std::string> out;
  for (const auto& name : sweep_output_names()) {
    std::error_code ec;
    if (fs::exists(dir / name, ec)) out.push_back(name);
  }
  return out;
}

fs::path move_sweep_outputs_aside(const fs::path& dir) {
  char stamp[32];
  const std::time_t now = std::time(nullptr);
  std::tm local{};
  localtime_r(&now, &local);
  std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &local);
  fs::path aside = dir / (std::string("previous-") + stamp);
  for (int n = 1; fs::exists(aside); ++n) {
    aside = dir / fmt::format("previous-{}-{}", stamp, n);
  }
  fs::create_directory(aside);
  for (const auto& name : existing_sweep_outputs(dir)) fs::rename(dir / name, aside / name);
  return aside;
}

void remove_reports(const fs::path& dir, const std::vector<std::string>& extra) {
  std::error_code ec;
  for (const char* name : {"results.json", "results.csv", "summary.md"}) {
    fs::remove(dir / name, ec);
  }
  for (const auto& path : extra) {
    if (!path.empty()) fs::remove(path, ec);
  }
}

void remove_stale_work_dirs(const fs::path& dir) {
  std::error_code ec;
  std::vector<fs::path> stale;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(kWorkDirPrefix, 0) == 0 && entry.is_directory(ec)) stale.push_back(entry.path());
  }
  for (const auto& p : stale) fs::remove_all(p, ec);
}

std::unique_ptr<OutDirLock> claim_out_dir(const std::string& out, bool resuming, bool overwrite,
                                          const std::vector<std::string>& extra_reports,
                                          int& exit_code) {
  const fs::path dir(out);
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) {
    // The same class as a read-only --out (refused at its lock file): a --out that cannot be
    // used is the caller's to fix, exit 2 either way.
    fmt::print(stderr, "fa2bench: cannot use --out {}: {}\n", out, ec.message());
    exit_code = 2;  // kExitUsage
    return nullptr;
  }
  // From here until it exits this process owns --out: a second sweep or resume is refused.
  std::string why_locked;
  auto lock = OutDirLock::acquire(dir, &why_locked);
  if (!lock) {
    fmt::print(stderr, "fa2bench: --out {}\n", why_locked);
    exit_code = 2;  // kExitUsage
    return nullptr;
  }
  if (!resuming) {
    const auto earlier = existing_sweep_outputs(dir);
    if (!earlier.empty() && !overwrite) {
      fmt::print(stderr,
                 "fa2bench: --out {} holds the files of an earlier sweep ({}); continue it with "
                 "--resume {}, move them aside with --overwrite, or choose another --out\n",
                 out, fmt::join(earlier, ", "), out);
      exit_code = 2;
      return nullptr;
    }
    if (!earlier.empty()) {
      try {
        const auto aside = move_sweep_outputs_aside(dir);
        fmt::print(stderr, "fa2bench: --overwrite: moved the earlier sweep's files to {}\n",
                   aside.string());
      } catch (const std::exception& e) {
        fmt::print(stderr, "fa2bench: --overwrite: {}\n", e.what());
        exit_code = 3;
        return nullptr;
      }
    }
  }
  // No report may outlive the run it describes: a sweep killed before writing its own leaves
  // none (results.jsonl and sweep.json say what it did).
  remove_reports(dir, extra_reports);
  remove_stale_work_dirs(dir);
  return lock;
}

}  // namespace fa2b
