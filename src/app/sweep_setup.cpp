// SPDX-License-Identifier: Apache-2.0
#include "app/sweep_setup.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <set>

#include "app/out_dir.h"
#include "runner/worker_pool.h"
#include "runtime/device_info.h"

namespace fa2b {
namespace {

// "all" or "0,1,3" against the visible GPUs; prints the problem and returns empty on error.
std::vector<int> parse_devices(const std::string& text, std::size_t n_gpus) {
  std::vector<int> out;
  if (text == "all") {
    for (std::size_t i = 0; i < n_gpus; ++i) out.push_back(static_cast<int>(i));
    return out;
  }
  std::set<int> seen;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const std::string item = text.substr(start, comma - start);
    const bool digits =
        !item.empty() && item.size() < 6 &&
        std::all_of(item.begin(), item.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (!digits) {
      fmt::print(stderr, "fa2bench: --devices {}: expected \"all\" or device indices like 0,1,3\n",
                 text);
      return {};
    }
    const int d = std::stoi(item);
    if (d >= static_cast<int>(n_gpus)) {
      fmt::print(stderr, "fa2bench: --devices {}: device {} does not exist ({} CUDA device(s))\n",
                 text, d, n_gpus);
      return {};
    }
    if (!seen.insert(d).second) {
      fmt::print(stderr, "fa2bench: --devices {}: device {} is listed twice\n", text, d);
      return {};
    }
    out.push_back(d);
    start = comma + 1;
  }
  return out;
}

}  // namespace

bool SweepExecution::create_work_dir() {
  if (work_dir.empty()) return true;
  std::error_code ec;
  std::filesystem::create_directories(work_dir, ec);
  if (ec) {
    fmt::print(stderr, "fa2bench: cannot create {} for isolated cases: {}\n", work_dir,
               ec.message());
    return false;
  }
  return true;
}

SweepExecution::~SweepExecution() {
  if (!work_dir.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(work_dir, ec);
  }
}

std::unique_ptr<SweepExecution> set_up_execution(const SweepArgs& a, std::int64_t budget,
                                                 const DumpOptions& dump, int& exit_code) {
  exit_code = kExitUsage;
  const bool wants_pool = a.cpu_workers > 0 || !a.devices.empty();
  if (a.isolate == 0 && (wants_pool || a.case_timeout > 0)) {
    fmt::print(stderr,
               "fa2bench: --no-isolate cannot be combined with {}: those run the cases in "
               "worker processes\n",
               a.cpu_workers > 0    ? "--cpu-workers"
               : !a.devices.empty() ? "--devices"
                                    : "--case-timeout");
    return nullptr;
  }
  if (a.case_timeout < 0) {
    fmt::print(stderr, "fa2bench: --case-timeout {}: expected seconds >= 0 (0: none)\n",
               a.case_timeout);
    return nullptr;
  }
  if (a.cpu_workers > 0 && a.target != "cpu") {
    fmt::print(stderr, "fa2bench: --cpu-workers (a testing aid) needs --target cpu\n");
    return nullptr;
  }

  std::string why;
  std::vector<GpuInfo> gpus;
  if (a.target != "cpu") gpus = list_gpus(&why);
  std::string target = "cpu";
  if (a.target != "cpu") {
    if (!gpus.empty() && (a.device < 0 || a.device >= static_cast<int>(gpus.size()))) {
      why = fmt::format("--device {} does not exist ({} CUDA device(s) found)", a.device,
                        gpus.size());
      gpus.clear();
    }
    if (!gpus.empty()) {
      target = "cuda";
    } else if (a.target == "cuda") {
      fmt::print(stderr, "fa2bench: --target cuda but {}\n", why);
      exit_code = kExitRuntime;
      return nullptr;
    } else if (a.devices.empty()) {
      fmt::print(stderr, "fa2bench: {}; running on the CPU target (cpu-naive, cpu-flash)\n", why);
    }
  }
  if (!a.devices.empty() && target != "cuda") {
    fmt::print(stderr, "fa2bench: --devices {}: needs CUDA devices, and {}\n", a.devices,
               a.target == "cpu" ? "the target is cpu" : why);
    return nullptr;
  }

  auto ex = std::make_unique<SweepExecution>();
  ex->target.target = target;
  ex->isolated =
      a.isolate == 1 || wants_pool || a.case_timeout > 0 || (a.isolate == -1 && target == "cuda");
  if (!ex->isolated) {
    if (target == "cuda") {
      ex->platform = make_cuda_platform(a.device, budget, &why);
      if (!ex->platform) {
        if (a.target == "cuda") {
          fmt::print(stderr, "fa2bench: --target cuda but {}\n", why);
          exit_code = kExitRuntime;
          return nullptr;
        }
        fmt::print(stderr, "fa2bench: {}; running on the CPU target (cpu-naive, cpu-flash)\n", why);
      }
    }
    if (!ex->platform) ex->platform = make_host_platform();
    ex->platform->tracker().set_budget(budget);
    ex->target = {ex->platform->target(), with_capacity(ex->platform->device_block(), budget)};
    ex->executor = make_in_process_executor(*ex->platform, dump);
    exit_code = kExitOk;
    return ex;
  }

  std::vector<int> slots;
  if (target == "cuda") {
    slots = a.devices.empty() ? std::vector<int>{a.device} : parse_devices(a.devices, gpus.size());
    if (slots.empty()) return nullptr;
    ex->target.device_block = to_json(gpus[static_cast<std::size_t>(slots.front())]);
  } else {
    slots.assign(static_cast<std::size_t>(std::max(1, a.cpu_workers)), -1);
    ex->target.device_block = cpu_device_block();
  }
  ex->target.device_block = with_capacity(std::move(ex->target.device_block), budget);
  std::error_code ec;
  const auto out = std::filesystem::absolute(a.out, ec);  // children may run elsewhere
  ex->work_dir =
      ((ec ? std::filesystem::path(a.out) : out) / (kWorkDirPrefix + std::to_string(getpid())))
          .string();
  WorkerSpec spec;
  spec.target = target;
  spec.memory_budget = budget;
  spec.timeout_s = a.case_timeout;
  spec.dump = dump;
  ex->workers = static_cast<int>(slots.size());
  ex->executor = make_worker_pool(std::move(spec), std::move(slots));
  exit_code = kExitOk;
  return ex;
}

}  // namespace fa2b
