// SPDX-License-Identifier: Apache-2.0
// One function per command; main.cpp only wires them to CLI11.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "app/exit_codes.h"
#include "app/parse_size.h"
#include "app/sweep_args.h"

namespace fa2b {

void add_sweep_command(CLI::App& app, int& exit_code);
// The options sweep and tune share. The references must outlive `cmd` (the commands keep their
// args alive in their callback).
void add_target_options(CLI::App* cmd, std::string& target, int& device);  // --target, --device
// --isolate sets `isolate` to 1, --no-isolate to 0; without either it keeps its default.
void add_isolate_flags(CLI::App* cmd, int& isolate);
// Hidden: the isolated worker process that runs case after case (see runner/worker_process.h).
void add_run_worker_command(CLI::App& app, int& exit_code);

void add_plan_command(CLI::App& app, int& exit_code);
void add_check_command(CLI::App& app, int& exit_code);
void add_validate_command(CLI::App& app, int& exit_code);
void add_devices_command(CLI::App& app, int& exit_code);
void add_backends_command(CLI::App& app, int& exit_code);
void add_compare_command(CLI::App& app, int& exit_code);
void add_merge_command(CLI::App& app, int& exit_code);
void add_tune_command(CLI::App& app, int& exit_code);
void add_export_command(CLI::App& app, int& exit_code);

}  // namespace fa2b
