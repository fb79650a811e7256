// SPDX-License-Identifier: Apache-2.0
#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/tables.h"
#include "core/gpu_peaks.h"
#include "runtime/device_info.h"
#include "runtime/gpu_state_probe.h"

namespace fa2b {
namespace {

// "capacity 79.6 GiB (85520809984 bytes)  peak dense bf16 989.5 TFLOP/s, fp16 989.5 TFLOP/s,
// bandwidth 3350 GB/s (H100 SXM, vendor data sheet)" or the reason there is no peak.
std::string peaks_line(const nlohmann::json& d) {
  std::string out;
  if (d.contains("capacity_bytes")) {
    const auto bytes = d["capacity_bytes"].get<std::int64_t>();
    out = fmt::format("capacity {} ({} bytes)", human_bytes(static_cast<double>(bytes)), bytes);
  }
  if (d.contains("peak_tflops") && d.contains("peak_bw_gbs")) {
    const auto& t = d["peak_tflops"];
    out +=
        fmt::format("  peak dense bf16 {} TFLOP/s, fp16 {} TFLOP/s, bandwidth {} GB/s{}",
                    t.value("bf16", 0.0), t.value("fp16", 0.0), d["peak_bw_gbs"].get<double>(),
                    d.contains("peaks_source") ? " (" + d["peaks_source"].get<std::string>() + ")"
                                               : std::string());
  } else if (d.contains("peaks_absent")) {
    out += "  peaks: " + d["peaks_absent"].get<std::string>();
  }
  return out;
}

int run_devices(bool json) {
  std::string why;
  const auto gpus = list_gpus(&why);
  if (json) {
    nlohmann::json out = {{"host", host_block()}, {"gpus", nlohmann::json::array()}};
    for (const GpuInfo& g : gpus) {
      // The memory capacity device-relative checks judge by, and the peaks normalisation
      // divides by (peak_tflops {fp16, bf16}, peak_bw_gbs; or peaks_absent).
      nlohmann::json gpu = with_capacity(with_device_peaks(to_json(g)), 0);
      GpuStatus status;
      std::string absent;
      if (read_gpu_status(g.pci_bus, status, &absent)) {
        gpu["nvml"] = gpu_status_json(status);
      } else {
        gpu["nvml_absent"] = absent;
      }
      out["gpus"].push_back(gpu);
    }
    if (gpus.empty()) out["why_no_gpu"] = why;
    fmt::print("{}\n", out.dump(2));
    return kExitOk;
  }
  if (gpus.empty()) {
    fmt::print("no CUDA device: {}\nCPU target: {} threads, {}\n", why, cpu_threads(),
               peaks_line(with_capacity(cpu_device_block(), 0)));
    return kExitOk;
  }
  for (const GpuInfo& g : gpus) {
    fmt::print(
        "[{}] {}  cc {}.{}  {} SMs  {} memory  {} L2  SM clock {} MHz  memory clock {} MHz "
        "({}-bit)  driver {}  runtime {}  bus {}{}\n",
        g.index, g.name, g.cc_major, g.cc_minor, g.sms,
        human_bytes(static_cast<double>(g.memory_bytes)),
        human_bytes(static_cast<double>(g.l2_bytes)), g.sm_clock_mhz, g.mem_clock_mhz,
        g.mem_bus_bits, g.driver, g.runtime, g.pci_bus,
        g.cc_major < 8 ? "  (our kernels need compute capability 8.0 or newer)" : "");
    // What results name for normalisation (% of peak) and what `where: fits` compares with.
    fmt::print("    {}\n", peaks_line(with_capacity(with_device_peaks(to_json(g)), 0)));
    // The state now (NVML), which the properties above do not show: a card held at its power
    // cap or throttled by heat gives slower numbers than its clocks promise.
    GpuStatus status;
    std::string absent;
    if (read_gpu_status(g.pci_bus, status, &absent)) {
      fmt::print("    now: {}\n", gpu_status_line(status));
    } else {
      fmt::print("    now: unknown, {}\n", absent);
    }
  }
  return kExitOk;
}

}  // namespace

void add_devices_command(CLI::App& app, int& exit_code) {
  auto json = std::make_shared<bool>(false);
  CLI::App* cmd = app.add_subcommand(
      "devices",
      "List the CUDA devices fa2bench can use, with their SM and memory clocks (now / max),\n"
      "power draw against the enforced limit and the throttle reasons active now (from NVML,\n"
      "loaded at run time; without it one line says why).");
  cmd->add_flag("--json", *json, "Print as JSON");
  cmd->callback([json, &exit_code] { exit_code = run_devices(*json); });
}

}  // namespace fa2b
