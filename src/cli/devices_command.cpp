#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/tables.h"
#include "runtime/device_info.h"

namespace fa2b {
namespace {

int run_devices(bool json) {
  std::string why;
  const auto gpus = list_gpus(&why);
  if (json) {
    nlohmann::json out = {{"host", host_block()}, {"gpus", nlohmann::json::array()}};
    for (const GpuInfo& g : gpus) out["gpus"].push_back(to_json(g));
    if (gpus.empty()) out["why_no_gpu"] = why;
    fmt::print("{}\n", out.dump(2));
    return kExitOk;
  }
  if (gpus.empty()) {
    fmt::print("no CUDA device: {}\nCPU target: {} threads\n", why, cpu_threads());
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
  }
  return kExitOk;
}

}  // namespace

void add_devices_command(CLI::App& app, int& exit_code) {
  auto json = std::make_shared<bool>(false);
  CLI::App* cmd = app.add_subcommand("devices", "List the CUDA devices fa2bench can use.");
  cmd->add_flag("--json", *json, "Print as JSON");
  cmd->callback([json, &exit_code] { exit_code = run_devices(*json); });
}

}  // namespace fa2b
