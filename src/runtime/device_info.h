// SPDX-License-Identifier: Apache-2.0
// What fa2bench knows about the machine it runs on: GPUs (when built with CUDA) and the host.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "runtime/target_info.h"

namespace fa2b {

struct GpuInfo {
  int index = 0;
  std::string name;
  int cc_major = 0, cc_minor = 0;
  int sms = 0;
  std::int64_t memory_bytes = 0;
  std::int64_t l2_bytes = 0;
  std::int64_t smem_per_block_optin = 0;  // cudaDevAttrMaxSharedMemoryPerBlockOptin, bytes
  int sm_clock_mhz = 0, mem_clock_mhz = 0, mem_bus_bits = 0;
  std::string driver, runtime;  // "13.0"
  std::string pci_bus;
  std::string cudnn;  // the cuDNN the cudnn backend loads ("9.19.0", "not found"); empty: omitted
};

// Empty when built without CUDA or when no device is visible; `why` says which.
std::vector<GpuInfo> list_gpus(std::string* why);
nlohmann::json to_json(const GpuInfo& g);
nlohmann::json host_block();        // hostname, os, cpu model, threads
nlohmann::json cpu_device_block();  // device block for the CPU target
// Threads of the CPU target: FA2BENCH_CPU_THREADS, else hardware_concurrency; 1 without OpenMP.
int cpu_threads();
TargetInfo target_info(const GpuInfo& g);
// Physical memory of the host, bytes; 0 when unknown.
std::int64_t host_memory_bytes();
// A device block with the memory its cases must fit: capacity_bytes and capacity_source
// ("memory_budget" when `memory_budget` > 0 (the smaller of it and the device's memory), else
// "device_memory" (memory_bytes) on a GPU, "host_memory" on the CPU target). Device-relative
// checks (`where: fits/exceeds`) judge by it, so `check` re-judges from the file alike.
nlohmann::json with_capacity(nlohmann::json device, std::int64_t memory_budget);
TargetInfo cpu_target_info();

}  // namespace fa2b
