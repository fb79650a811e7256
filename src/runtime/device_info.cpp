// SPDX-License-Identifier: Apache-2.0
#include "runtime/device_info.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <thread>

#include "runtime/gpu_state_probe.h"

namespace fa2b {

int cpu_threads() {
#ifdef FA2BENCH_OPENMP
  if (const char* env = std::getenv("FA2BENCH_CPU_THREADS")) {
    const int n = std::atoi(env);
    if (n > 0) return n;
  }
  const unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 1 : static_cast<int>(n);
#else
  return 1;  // built without OpenMP: the CPU backends' parallel_for runs on one thread
#endif
}

static std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) return line.substr(colon + 2);
    }
  }
  return "unknown";
}

nlohmann::json host_block() {
  char host[256] = {0};
  gethostname(host, sizeof host - 1);
  utsname u{};
  uname(&u);
  return {{"hostname", host},
          {"os", std::string(u.sysname) + " " + u.release},
          {"arch", u.machine},
          {"cpu", cpu_model()},
          {"cpu_threads", cpu_threads()}};
}

nlohmann::json cpu_device_block() {
  return {{"kind", "cpu"}, {"name", cpu_model()}, {"threads", cpu_threads()}};
}

std::int64_t host_memory_bytes() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? static_cast<std::int64_t>(pages) * page : 0;
}

nlohmann::json with_capacity(nlohmann::json device, std::int64_t memory_budget) {
  const bool gpu = device.value("kind", std::string()) == "cuda";
  std::int64_t memory = 0;
  if (gpu && device.contains("memory_bytes") && device["memory_bytes"].is_number_integer())
    memory = device["memory_bytes"].get<std::int64_t>();
  if (!gpu) memory = host_memory_bytes();
  if (memory_budget > 0) {
    device["capacity_bytes"] = memory > 0 ? std::min(memory_budget, memory) : memory_budget;
    device["capacity_source"] = "memory_budget";
  } else if (memory > 0) {
    device["capacity_bytes"] = memory;
    device["capacity_source"] = gpu ? "device_memory" : "host_memory";
  }
  return device;
}

TargetInfo cpu_target_info() {
  TargetInfo t;
  t.cuda = false;
  t.cpu_threads = cpu_threads();
  return t;
}

nlohmann::json to_json(const GpuInfo& g) {
  nlohmann::json j = {{"kind", "cuda"},
                      {"index", g.index},
                      {"name", g.name},
                      {"cc", std::to_string(g.cc_major) + "." + std::to_string(g.cc_minor)},
                      {"sms", g.sms},
                      {"memory_bytes", g.memory_bytes},
                      {"l2_bytes", g.l2_bytes},
                      {"sm_clock_mhz", g.sm_clock_mhz},
                      {"mem_clock_mhz", g.mem_clock_mhz},
                      {"mem_bus_bits", g.mem_bus_bits},
                      {"driver", g.driver},
                      {"cuda_runtime", g.runtime},
                      {"pci_bus", g.pci_bus}};
  if (!g.cudnn.empty()) j["cudnn"] = g.cudnn;
  return j;
}

TargetInfo target_info(const GpuInfo& g) {
  TargetInfo t;
  t.cuda = true;
  t.cc_major = g.cc_major;
  t.cc_minor = g.cc_minor;
  t.memory_bytes = g.memory_bytes;
  t.smem_per_block_optin = g.smem_per_block_optin;
  t.sms = g.sms;
  t.cpu_threads = cpu_threads();
  return t;
}

#ifndef FA2BENCH_WITH_CUDA
std::vector<GpuInfo> list_gpus(std::string* why) {
  if (why) *why = "this build of fa2bench has no CUDA support";
  return {};
}

// NVML is read in runtime/cuda/nvml_probe.cpp, built with the CUDA target only.
bool read_gpu_status(const std::string&, GpuStatus&, std::string* why) {
  if (why) *why = "this build of fa2bench has no CUDA support, so no NVML";
  return false;
}

bool lock_sm_clock(const std::string&, int, std::string* why) {
  if (why) *why = "this build of fa2bench has no CUDA support, so no NVML";
  return false;
}

bool reset_sm_clock(const std::string&, std::string* why) {
  if (why) *why = "this build of fa2bench has no CUDA support, so no NVML";
  return false;
}
#endif

}  // namespace fa2b
