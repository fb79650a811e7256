// SPDX-License-Identifier: Apache-2.0
// fa2bench: benchmark exact attention kernels (naive vs FlashAttention-2 and peers).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <CLI/CLI.hpp>

#include "build_info.h"
#include "cli/commands.h"
#include "core/backend_catalog.h"
#include "io/atomic_file.h"

int main(int argc, char** argv) {
  CLI::App app{
      fmt::format(
          "fa2bench: how fast, how much memory, how exact? FlashAttention-2 against standard\n"
          "attention on your GPU (or the CPU target when there is none).\n\n"
          "Backends: {} (fa2bench backends says what each is).\n\n"
          "Exit codes: 0 every check passed (deferred shard checks and checks skipped because\n"
          "their premise does not hold on this device included); 1 a check failed\n"
          "or the results cannot be trusted (incomplete, a case in error/timeout); 2 usage or\n"
          "config error (nothing ran); 3 runtime failure (no usable device, a CUDA error that\n"
          "aborted the sweep); 130 sweep interrupted by SIGINT/SIGTERM (continue with "
          "--resume).\n\n"
          "Start with:  fa2bench sweep            (built-in quickstart sweep)\n"
          "             fa2bench plan --config configs/seed_notebook.json",
          fmt::join(fa2b::known_backend_names(), ", ")),
      "fa2bench"};
  app.set_version_flag("--version", fmt::format("fa2bench {} (git {}, {})", FA2BENCH_VERSION,
                                                FA2BENCH_GIT, FA2BENCH_BUILD_TYPE));
  app.require_subcommand(1);
  int exit_code = fa2b::kExitOk;
  fa2b::add_sweep_command(app, exit_code);
  fa2b::add_plan_command(app, exit_code);
  fa2b::add_check_command(app, exit_code);
  fa2b::add_validate_command(app, exit_code);
  fa2b::add_devices_command(app, exit_code);
  fa2b::add_backends_command(app, exit_code);
  fa2b::add_compare_command(app, exit_code);
  fa2b::add_merge_command(app, exit_code);
  fa2b::add_run_worker_command(app, exit_code);
  fa2b::add_tune_command(app, exit_code);
  fa2b::add_export_command(app, exit_code);
  // Whatever went to stdout (tables, --help, export and compare without -o) must have arrived:
  // a CI step reading a truncated table or JSON after exit 0 would trust it.
  const auto finish = [](int code) {
    const std::string why = fa2b::stdout_failure();
    if (why.empty()) return code;
    fmt::print(stderr, "fa2bench: writing stdout failed: {}\n", why);
    return code > fa2b::kExitRuntime ? code : fa2b::kExitRuntime;  // 130 (interrupted) stays
  };
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return finish(app.exit(e));
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return finish(fa2b::kExitUsage);
  } catch (const std::exception& e) {
    fmt::print(stderr, "fa2bench: {}\n", e.what());
    return finish(fa2b::kExitRuntime);
  }
  return finish(exit_code);
}
