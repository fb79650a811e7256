// SPDX-License-Identifier: Apache-2.0
#include <cuda_runtime.h>
#include <fmt/format.h>

#include "runtime/cuda/cudnn_api.h"
#include "runtime/device_info.h"

namespace fa2b {

static std::string version_string(int v) {
  return fmt::format("{}.{}", v / 1000, (v % 1000) / 10);
}

std::vector<GpuInfo> list_gpus(std::string* why) {
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess || count == 0) {
    (void)cudaGetLastError();
    if (why) {
      *why = err != cudaSuccess ? fmt::format("no usable CUDA device ({})", cudaGetErrorString(err))
                                : "no CUDA device found";
    }
    return {};
  }
  int driver = 0, runtime = 0;
  cudaDriverGetVersion(&driver);
  cudaRuntimeGetVersion(&runtime);
  std::vector<GpuInfo> gpus;
  for (int i = 0; i < count; ++i) {
    cudaDeviceProp p{};
    if (cudaGetDeviceProperties(&p, i) != cudaSuccess) continue;
    GpuInfo g;
    g.index = i;
    g.name = p.name;
    g.cc_major = p.major;
    g.cc_minor = p.minor;
    g.sms = p.multiProcessorCount;
    g.memory_bytes = static_cast<std::int64_t>(p.totalGlobalMem);
    g.l2_bytes = p.l2CacheSize;
    g.smem_per_block_optin = static_cast<std::int64_t>(p.sharedMemPerBlockOptin);
    int clock = 0, mem_clock = 0;
    cudaDeviceGetAttribute(&clock, cudaDevAttrClockRate, i);
    cudaDeviceGetAttribute(&mem_clock, cudaDevAttrMemoryClockRate, i);
    g.sm_clock_mhz = clock / 1000;
    g.mem_clock_mhz = mem_clock / 1000;
    g.mem_bus_bits = p.memoryBusWidth;
    g.driver = version_string(driver);
    g.runtime = version_string(runtime);
    g.pci_bus = fmt::format("{:04x}:{:02x}:{:02x}", p.pciDomainID, p.pciBusID, p.pciDeviceID);
    g.cudnn = cudnn_version_string();
    gpus.push_back(g);
  }
  return gpus;
}

}  // namespace fa2b
