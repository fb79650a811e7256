// SPDX-License-Identifier: Apache-2.0
// `fa2bench run-worker` (hidden): the sweep's isolated worker. Reads case requests from the
// socket on --channel-fd, runs each in this process and answers with its result, one JSON line
// each way (runner/worker_protocol.h), until the sweep closes the socket. Platforms, backends
// and the CUDA context live across cases; a context poisoned by a sticky error is reported in
// the response, and the sweep replaces the worker.
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "cli/commands.h"
#include "runner/case_session.h"
#include "runner/executor.h"
#include "runner/worker_protocol.h"

namespace fa2b {
namespace {

struct RunWorkerArgs {
  int channel_fd = 3;
  std::string target = "cpu", dump_dir;
  int device = 0;
  std::int64_t memory_budget = 0;
  std::int64_t dump_max_bytes = kDefaultDumpMaxBytes;
};

// Reads the next line from `fd` into `line` (without its '\n'); false at end of file.
bool read_line(int fd, std::string& pending, std::string& line) {
  char chunk[65536];
  while (true) {
    const std::size_t end = pending.find('\n');
    if (end != std::string::npos) {
      line = pending.substr(0, end);
      pending.erase(0, end + 1);
      return true;
    }
    const ssize_t n = read(fd, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    pending.append(chunk, static_cast<std::size_t>(n));
  }
}

bool write_all(int fd, const std::string& text) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

int run_worker(const RunWorkerArgs& a) {
  CaseSession session(a.target, a.device, a.memory_budget);
  const DumpRequest dump{a.dump_dir, a.dump_max_bytes};
  std::string pending, line;
  while (read_line(a.channel_fd, pending, line)) {
    WorkerRequest request;
    try {
      request = parse_request(line);
    } catch (const std::exception& e) {
      fmt::print(stderr, "fa2bench run-worker: {}\n", e.what());
      return kExitUsage;
    }
    WorkerResponse response;
    response.result = session.run(request.c, request.dump && !a.dump_dir.empty() ? &dump : nullptr);
    std::string why;
    if (session.broken(&why)) response.poisoned = why;
    if (!write_all(a.channel_fd, response_line(response))) {
      fmt::print(stderr, "fa2bench run-worker: cannot answer the sweep: {}\n",
                 std::strerror(errno));
      return kExitRuntime;
    }
    if (!response.poisoned.empty()) return kExitRuntime;  // no further case could run here
  }
  return kExitOk;
}

}  // namespace

void add_run_worker_command(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<RunWorkerArgs>();
  CLI::App* cmd = app.add_subcommand(
      "run-worker", "Internal: run the cases a sweep sends over a socket (its isolated worker)");
  cmd->group("");  // hidden from --help
  cmd->add_option("--channel-fd", args->channel_fd, "The socket to the sweep")->required();
  cmd->add_option("--target", args->target)->check(CLI::IsMember({"cuda", "cpu"}));
  cmd->add_option("--device", args->device);
  cmd->add_option("--memory-budget", args->memory_budget, "Bytes; 0: none");
  cmd->add_option("--dump-dir", args->dump_dir);
  cmd->add_option("--dump-max-bytes", args->dump_max_bytes);
  cmd->callback([args, &exit_code] { exit_code = run_worker(*args); });
}

}  // namespace fa2b
