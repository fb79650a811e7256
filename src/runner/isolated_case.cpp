#include "runner/isolated_case.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "io/atomic_file.h"
#include "io/json_input.h"
#include "io/results_json.h"

namespace fa2b {

std::string describe_wait_status(int status) {
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    const char* name = strsignal(sig);
    return fmt::format("was killed by signal {} ({})", sig, name ? name : "unknown");
  }
  if (WIFEXITED(status)) return fmt::format("exited with status {}", WEXITSTATUS(status));
  return fmt::format("ended with wait status {}", status);
}

ChildCase::ChildCase(const ChildSpec& spec, const Case& c, std::size_t index, int device)
    : spec_(&spec), case_(c), index_(index) {
  const std::filesystem::path dir(spec.work_dir);
  case_file_ = (dir / fmt::format("case-{}.json", index)).string();
  result_file_ = (dir / fmt::format("result-{}.json", index)).string();
  std::remove(result_file_.c_str());
  try {
    CaseResult skeleton;
    skeleton.c = c;
    write_text_file_atomic(case_file_, to_json(skeleton).dump() + "\n");
  } catch (const std::exception& e) {
    start_error_ = e.what();
    return;
  }

  std::vector<std::string> args = {spec.exe,          "run-case",
                                   "--case-json",     case_file_,
                                   "--result-json",   result_file_,
                                   "--target",        spec.target,
                                   "--device",        std::to_string(device < 0 ? 0 : device),
                                   "--memory-budget", std::to_string(spec.memory_budget)};
  if (spec.dump.wants(c)) {
    args.push_back("--dump-dir");
    args.push_back(spec.dump.dir);
    args.push_back("--dump-max-bytes");
    args.push_back(std::to_string(spec.dump.max_bytes));
  }
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);

  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) {
    start_error_ = fmt::format("cannot start the case's process: fork: {}", std::strerror(errno));
    return;
  }
  if (pid == 0) {
    // Own process group: a terminal's Ctrl-C reaches the sweep, which decides; the child dies
    // with the sweep even when that one is killed outright.
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);
    execv(argv[0], argv.data());
    _exit(127);
  }
  setpgid(pid, pid);  // also here, so a kill of the group right away finds it
  pid_ = pid;
  deadline_ = std::chrono::steady_clock::now() +
              std::chrono::milliseconds(static_cast<std::int64_t>(spec.timeout_s * 1000));
}

ChildCase::ChildCase(ChildCase&& o) noexcept {
  *this = std::move(o);
}

ChildCase& ChildCase::operator=(ChildCase&& o) noexcept {
  if (this != &o) {
    abandon();
    spec_ = o.spec_;
    case_ = std::move(o.case_);
    index_ = o.index_;
    pid_ = o.pid_;
    case_file_ = std::move(o.case_file_);
    result_file_ = std::move(o.result_file_);
    start_error_ = std::move(o.start_error_);
    deadline_ = o.deadline_;
    o.pid_ = -1;
    o.case_file_.clear();
    o.result_file_.clear();
  }
  return *this;
}

ChildCase::~ChildCase() {
  abandon();
}

void ChildCase::abandon() {
  if (pid_ > 0) {
    kill(-pid_, SIGKILL);
    kill(pid_, SIGKILL);
    int st = 0;
    while (waitpid(pid_, &st, 0) < 0 && errno == EINTR) {
    }
    pid_ = -1;
  }
  cleanup_files();
}

void ChildCase::cleanup_files() {
  if (!case_file_.empty()) std::remove(case_file_.c_str());
  if (!result_file_.empty()) std::remove(result_file_.c_str());
}

std::optional<CaseResult> ChildCase::poll() {
  if (!spec_) return std::nullopt;
  if (pid_ < 0) {
    CaseResult r = result_without_run(case_, spec_->target, Status::error,
                                      start_error_.empty() ? "not run" : start_error_);
    spec_ = nullptr;
    cleanup_files();
    return r;
  }
  int st = 0;
  const pid_t got = waitpid(pid_, &st, WNOHANG);
  if (got == 0) {
    if (spec_->timeout_s > 0 && std::chrono::steady_clock::now() >= deadline_) {
      abandon();
      CaseResult r = result_without_run(
          case_, spec_->target, Status::timeout,
          fmt::format("no result after {:g} s (--case-timeout): the case's process was killed",
                      spec_->timeout_s));
      spec_ = nullptr;
      return r;
    }
    return std::nullopt;
  }
  if (got < 0 && errno == EINTR) return std::nullopt;
  pid_ = -1;
  CaseResult r = finish(got < 0 ? -1 : st);
  spec_ = nullptr;
  cleanup_files();
  return r;
}

CaseResult ChildCase::finish(int wait_status) {
  std::ifstream in(result_file_);
  if (in) {
    std::stringstream ss;
    ss << in.rdbuf();
    try {
      return case_result_from_json(parse_json_input(ss.str(), result_file_));
    } catch (const std::exception& e) {
      return result_without_run(
          case_, spec_->target, Status::error,
          fmt::format("the case's process wrote an unusable result ({}) and {}", e.what(),
                      describe_wait_status(wait_status)));
    }
  }
  const std::string how = wait_status == -1 ? std::string("could not be waited for")
                                            : describe_wait_status(wait_status);
  std::string reason = fmt::format("the case's process {} before writing a result", how);
  if (WIFEXITED(wait_status) && WEXITSTATUS(wait_status) == 127)
    reason += fmt::format(" (could {} be executed?)", spec_->exe);
  return result_without_run(case_, spec_->target, Status::error, reason);
}

}  // namespace fa2b
