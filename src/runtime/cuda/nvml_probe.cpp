// SPDX-License-Identifier: Apache-2.0
// NVML loaded with dlopen, so builds and machines without it still run (the results then say
// why their gpu_state is absent). Only the few calls below, declared here with NVML's stable C
// ABI (nvml.h is not part of the CUDA toolkit everywhere).
#include <dlfcn.h>
#include <fmt/format.h>

#include <cstdint>

#include "runtime/gpu_state_probe.h"

namespace fa2b {
namespace {

using NvmlDevice = struct NvmlDeviceOpaque*;
using NvmlReturn = int;  // nvmlReturn_t; 0 is NVML_SUCCESS
constexpr NvmlReturn kNvmlSuccess = 0;
constexpr int kClockSm = 1, kClockMem = 2;  // nvmlClockType_t
constexpr int kTemperatureGpu = 0;          // nvmlTemperatureSensors_t

struct NvmlApi {
  NvmlReturn (*Init)();
  const char* (*ErrorString)(NvmlReturn);
  NvmlReturn (*HandleByPciBusId)(const char*, NvmlDevice*);
  NvmlReturn (*ClockInfo)(NvmlDevice, int, unsigned*);
  NvmlReturn (*PowerUsage)(NvmlDevice, unsigned*);
  NvmlReturn (*Temperature)(NvmlDevice, int, unsigned*);
  NvmlReturn (*TotalEnergy)(NvmlDevice, unsigned long long*);
  NvmlReturn (*ThrottleReasons)(NvmlDevice, unsigned long long*);
  NvmlReturn (*MaxClockInfo)(NvmlDevice, int, unsigned*);
  NvmlReturn (*PowerLimit)(NvmlDevice, unsigned*);
  NvmlReturn (*SetLockedClocks)(NvmlDevice, unsigned, unsigned);
  NvmlReturn (*ResetLockedClocks)(NvmlDevice);
};

template <class F>
bool load(void* lib, const char* name, F& f) {
  f = reinterpret_cast<F>(dlsym(lib, name));
  return f != nullptr;
}

// Loaded and initialised once per process; null with the reason when that failed.
const NvmlApi* nvml(std::string* why) {
  static std::string failure;
  static const NvmlApi* api = []() -> const NvmlApi* {
    void* lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (lib == nullptr) {
      failure = fmt::format("libnvidia-ml.so.1 not loaded ({})", dlerror());
      return nullptr;
    }
    static NvmlApi a{};
    const bool ok = load(lib, "nvmlInit_v2", a.Init) &&
                    load(lib, "nvmlErrorString", a.ErrorString) &&
                    load(lib, "nvmlDeviceGetHandleByPciBusId_v2", a.HandleByPciBusId) &&
                    load(lib, "nvmlDeviceGetClockInfo", a.ClockInfo) &&
                    load(lib, "nvmlDeviceGetPowerUsage", a.PowerUsage) &&
                    load(lib, "nvmlDeviceGetTemperature", a.Temperature);
    if (!ok) {
      failure = "libnvidia-ml.so.1 lacks a required function";
      return nullptr;
    }
    // Optional: older drivers or GPUs without them leave the energy or reasons unknown.
    (void)load(lib, "nvmlDeviceGetTotalEnergyConsumption", a.TotalEnergy);
    (void)load(lib, "nvmlDeviceGetMaxClockInfo", a.MaxClockInfo);
    (void)load(lib, "nvmlDeviceGetEnforcedPowerLimit", a.PowerLimit);
    (void)load(lib, "nvmlDeviceSetGpuLockedClocks", a.SetLockedClocks);
    (void)load(lib, "nvmlDeviceResetGpuLockedClocks", a.ResetLockedClocks);
    if (!load(lib, "nvmlDeviceGetCurrentClocksEventReasons", a.ThrottleReasons))
      (void)load(lib, "nvmlDeviceGetCurrentClocksThrottleReasons", a.ThrottleReasons);
    const NvmlReturn r = a.Init();
    if (r != kNvmlSuccess) {
      failure = fmt::format("nvmlInit failed: {}", a.ErrorString(r));
      return nullptr;
    }
    return &a;
  }();
  if (api == nullptr && why != nullptr) *why = failure;
  return api;
}

class NvmlProbe final : public GpuStateProbe {
 public:
  NvmlProbe(const NvmlApi& api, NvmlDevice dev) : api_(api), dev_(dev) {}
  // Maxima and the power limit, beside a reading (for `devices`, not per sample).
  GpuStatus status() {
    GpuStatus s;
    s.now = read();
    unsigned v = 0;
    if (api_.MaxClockInfo != nullptr && api_.MaxClockInfo(dev_, kClockSm, &v) == kNvmlSuccess)
      s.max_sm_mhz = static_cast<int>(v);
    if (api_.MaxClockInfo != nullptr && api_.MaxClockInfo(dev_, kClockMem, &v) == kNvmlSuccess)
      s.max_mem_mhz = static_cast<int>(v);
    if (api_.PowerLimit != nullptr && api_.PowerLimit(dev_, &v) == kNvmlSuccess)
      s.power_limit_w = v / 1000.0;
    return s;
  }
  GpuReading read() override {
    GpuReading g;
    unsigned v = 0;
    if (api_.ClockInfo(dev_, kClockSm, &v) == kNvmlSuccess) g.sm_mhz = static_cast<int>(v);
    if (api_.ClockInfo(dev_, kClockMem, &v) == kNvmlSuccess) g.mem_mhz = static_cast<int>(v);
    if (api_.PowerUsage(dev_, &v) == kNvmlSuccess) g.power_w = v / 1000.0;
    if (api_.Temperature(dev_, kTemperatureGpu, &v) == kNvmlSuccess) g.temp_c = static_cast<int>(v);
    unsigned long long x = 0;
    if (api_.TotalEnergy != nullptr && api_.TotalEnergy(dev_, &x) == kNvmlSuccess)
      g.energy_j = static_cast<double>(x) / 1000.0;
    if (api_.ThrottleReasons != nullptr && api_.ThrottleReasons(dev_, &x) == kNvmlSuccess) {
      g.throttle = x;
      g.throttle_known = true;
    }
    return g;
  }

  GpuReading read_sample() override {
    GpuReading g;
    unsigned v = 0;
    if (api_.ClockInfo(dev_, kClockSm, &v) == kNvmlSuccess) g.sm_mhz = static_cast<int>(v);
    if (api_.PowerUsage(dev_, &v) == kNvmlSuccess) g.power_w = v / 1000.0;
    unsigned long long x = 0;
    if (api_.ThrottleReasons != nullptr && api_.ThrottleReasons(dev_, &x) == kNvmlSuccess) {
      g.throttle = x;
      g.throttle_known = true;
    }
    return g;
  }

 private:
  const NvmlApi& api_;
  NvmlDevice dev_;
};

}  // namespace

namespace {

NvmlDevice open_device(const NvmlApi& api, const std::string& pci_bus, std::string* why) {
  NvmlDevice dev = nullptr;
  const NvmlReturn r = api.HandleByPciBusId(pci_bus.c_str(), &dev);
  if (r != kNvmlSuccess) {
    if (why) *why = fmt::format("NVML has no device at PCI {}: {}", pci_bus, api.ErrorString(r));
    return nullptr;
  }
  return dev;
}

std::unique_ptr<NvmlProbe> open_probe(const std::string& pci_bus, std::string* why) {
  const NvmlApi* api = nvml(why);
  if (api == nullptr) return nullptr;
  NvmlDevice dev = open_device(*api, pci_bus, why);
  if (dev == nullptr) return nullptr;
  return std::make_unique<NvmlProbe>(*api, dev);
}

// Runs one of the clock setters on the device at pci_bus; false with NVML's reason (most often
// "Insufficient Permissions": locking needs root or an administrator's grant).
template <class Call>
bool set_clocks(const std::string& pci_bus, std::string* why, const char* what, Call call) {
  const NvmlApi* api = nvml(why);
  if (api == nullptr) return false;
  if (api->SetLockedClocks == nullptr || api->ResetLockedClocks == nullptr) {
    if (why) *why = "this NVML cannot lock clocks (no nvmlDeviceSetGpuLockedClocks)";
    return false;
  }
  NvmlDevice dev = open_device(*api, pci_bus, why);
  if (dev == nullptr) return false;
  const NvmlReturn r = call(*api, dev);
  if (r != kNvmlSuccess) {
    if (why) *why = fmt::format("{}: {}", what, api->ErrorString(r));
    return false;
  }
  return true;
}

}  // namespace

std::unique_ptr<GpuStateProbe> make_nvml_probe(const std::string& pci_bus, std::string* why) {
  return open_probe(pci_bus, why);
}

bool lock_sm_clock(const std::string& pci_bus, int mhz, std::string* why) {
  const auto m = static_cast<unsigned>(mhz);
  return set_clocks(
      pci_bus, why, "nvmlDeviceSetGpuLockedClocks",
      [m](const NvmlApi& api, NvmlDevice dev) { return api.SetLockedClocks(dev, m, m); });
}

bool reset_sm_clock(const std::string& pci_bus, std::string* why) {
  return set_clocks(pci_bus, why, "nvmlDeviceResetGpuLockedClocks",
                    [](const NvmlApi& api, NvmlDevice dev) { return api.ResetLockedClocks(dev); });
}

bool read_gpu_status(const std::string& pci_bus, GpuStatus& out, std::string* why) {
  const std::unique_ptr<NvmlProbe> probe = open_probe(pci_bus, why);
  if (!probe) return false;
  out = probe->status();
  return true;
}

}  // namespace fa2b
