// SPDX-License-Identifier: Apache-2.0
#include "runner/worker_process.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <thread>
#include <vector>

#include "runner/worker_protocol.h"

namespace fa2b {
namespace {

// The worker's end of the socket, as `run-worker --channel-fd` names it.
constexpr int kChannelFd = 3;

}  // namespace

std::string describe_wait_status(int status) {
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    const char* name = strsignal(sig);
    return fmt::format("was killed by signal {} ({})", sig, name ? name : "unknown");
  }
  if (WIFEXITED(status)) return fmt::format("exited with status {}", WEXITSTATUS(status));
  return fmt::format("ended with wait status {}", status);
}

WorkerProcess::WorkerProcess(const WorkerSpec& spec, int device) : spec_(&spec) {
  std::vector<std::string> args = {spec.exe,          "run-worker",
                                   "--channel-fd",    std::to_string(kChannelFd),
                                   "--target",        spec.target,
                                   "--device",        std::to_string(device < 0 ? 0 : device),
                                   "--memory-budget", std::to_string(spec.memory_budget)};
  if (!spec.dump.dir.empty()) {
    args.push_back("--dump-dir");
    args.push_back(spec.dump.dir);
    args.push_back("--dump-max-bytes");
    args.push_back(std::to_string(spec.dump.max_bytes));
  }
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);

  // Close-on-exec on both ends: no other worker inherits this one's socket, so a crash here
  // reaches the sweep as end-of-file at once. The child's copy on fd 3 is made without it.
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
    start_error_ =
        fmt::format("cannot start a worker process: socketpair: {}", std::strerror(errno));
    return;
  }
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) {
    start_error_ = fmt::format("cannot start a worker process: fork: {}", std::strerror(errno));
    ::close(sv[0]);
    ::close(sv[1]);
    return;
  }
  if (pid == 0) {
    // Own process group: a terminal's Ctrl-C reaches the sweep, which decides; the worker dies
    // with the sweep even when that one is killed outright.
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);
    if (sv[1] == kChannelFd) {
      fcntl(kChannelFd, F_SETFD, 0);
    } else if (dup2(sv[1], kChannelFd) < 0) {
      _exit(127);
    }
    execv(argv[0], argv.data());
    _exit(127);
  }
  setpgid(pid, pid);  // also here, so a kill of the group right away finds it
  ::close(sv[1]);
  pid_ = pid;
  fd_ = sv[0];
}

WorkerProcess::~WorkerProcess() {
  kill_now();
}

bool WorkerProcess::send(const Case& c, std::size_t index) {
  case_ = c;
  index_ = index;
  if (!start_error_.empty()) {  // poll() reports it as this case's result
    busy_ = true;
    return true;
  }
  int st = 0;
  if (pid_ < 0 || waitpid(pid_, &st, WNOHANG) != 0) {  // it died while idle
    if (pid_ > 0 && fd_ >= 0) ::close(fd_);
    pid_ = -1;
    fd_ = -1;
    usable_ = false;
    return false;
  }
  const std::string line = request_line(WorkerRequest{c, spec_->dump.wants(c)});
  std::size_t sent = 0;
  while (sent < line.size()) {
    const ssize_t n = ::send(fd_, line.data() + sent, line.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      kill_now();
      usable_ = false;
      return false;
    }
    sent += static_cast<std::size_t>(n);
  }
  busy_ = true;
  deadline_ = std::chrono::steady_clock::now() +
              std::chrono::milliseconds(static_cast<std::int64_t>(spec_->timeout_s * 1000));
  return true;
}

bool WorkerProcess::read_available(bool& eof) {
  eof = false;
  char chunk[65536];
  while (true) {
    const ssize_t n = recv(fd_, chunk, sizeof chunk, MSG_DONTWAIT);
    if (n > 0) {
      buffer_.append(chunk, static_cast<std::size_t>(n));
      continue;
    }
    if (n == 0) eof = true;
    if (n < 0 && errno == EINTR) continue;
    break;  // EAGAIN: nothing more now
  }
  return buffer_.find('\n') != std::string::npos;
}

std::optional<CaseResult> WorkerProcess::poll() {
  if (!busy_) return std::nullopt;
  if (!start_error_.empty()) {
    busy_ = false;
    usable_ = false;
    return result_without_run(case_, spec_->target, Status::error, start_error_);
  }
  bool eof = false;
  if (read_available(eof)) {
    const std::size_t end = buffer_.find('\n');
    const std::string line = buffer_.substr(0, end);
    buffer_.erase(0, end + 1);
    busy_ = false;
    try {
      WorkerResponse response = parse_response(line);
      if (!response.poisoned.empty()) usable_ = false;  // the pool replaces it
      return std::move(response.result);
    } catch (const std::exception& e) {
      kill_now();
      usable_ = false;
      return result_without_run(
          case_, spec_->target, Status::error,
          fmt::format("the case's worker process wrote an unusable result ({})", e.what()));
    }
  }
  if (eof) {
    busy_ = false;
    const int st = reap(true);
    const std::string how =
        st == -1 ? std::string("could not be waited for") : describe_wait_status(st);
    std::string reason = fmt::format("the case's worker process {} before writing a result", how);
    if (st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 127)
      reason += fmt::format(" (could {} be executed?)", spec_->exe);
    return result_without_run(case_, spec_->target, Status::error, reason);
  }
  if (spec_->timeout_s > 0 && std::chrono::steady_clock::now() >= deadline_) {
    kill_now();
    busy_ = false;
    return result_without_run(
        case_, spec_->target, Status::timeout,
        fmt::format("no result after {:g} s (--case-timeout): the case's worker process was killed",
                    spec_->timeout_s));
  }
  return std::nullopt;
}

int WorkerProcess::reap(bool wait_briefly) {
  usable_ = false;
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  if (pid_ < 0) return -1;
  int st = 0;
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(1);
  while (wait_briefly && std::chrono::steady_clock::now() < give_up) {
    const pid_t got = waitpid(pid_, &st, WNOHANG);
    if (got == pid_) {
      pid_ = -1;
      return st;
    }
    if (got < 0 && errno != EINTR) {
      pid_ = -1;
      return -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  kill(-pid_, SIGKILL);
  kill(pid_, SIGKILL);
  pid_t got;
  while ((got = waitpid(pid_, &st, 0)) < 0 && errno == EINTR) {
  }
  pid_ = -1;
  return got < 0 ? -1 : st;
}

void WorkerProcess::close() {
  reap(true);  // end-of-file on its socket: the worker exits
}

void WorkerProcess::kill_now() {
  reap(false);
  busy_ = false;
}

}  // namespace fa2b
