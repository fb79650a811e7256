// SPDX-License-Identifier: Apache-2.0
// `fa2bench sweep`: its flags into SweepArgs, app::run_sweep, the outcome printed; and the flags
// it shares with tune.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <utility>

#include "app/sweep.h"
#include "cli/commands.h"
#include "cli/numeric_flags.h"
#include "cli/sweep_printout.h"
#include "core/backend_catalog.h"
#include "io/json_input.h"

namespace fa2b {
namespace {

// A week: longer is a typo, and seconds beyond ~9e15 overflow the milliseconds of the deadline.
constexpr double kMaxCaseTimeoutSeconds = 7 * 24 * 3600;

int run_sweep_command(SweepArgs a) {
  const app::SweepOutcome outcome = app::run_sweep(std::move(a), {}, model_step_table());
  print_sweep_outcome(outcome);
  return outcome.exit_code;  // the outcome (the --out lock, the clocks) is released after it
}

}  // namespace

void add_target_options(CLI::App* cmd, std::string& target, int& device) {
  cmd->add_option("--target", target,
                  "auto: the GPU when there is one, else the CPU target; cuda; cpu")
      ->check(CLI::IsMember({"auto", "cuda", "cpu"}))
      ->capture_default_str();
  cmd->add_option("--device", device, "CUDA device index")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
}

void add_isolate_flags(CLI::App* cmd, int& isolate) {
  cmd->add_flag_callback(
      "--isolate", [&isolate] { isolate = 1; },
      "Run the cases in a worker process apart from this one, replaced after a crash, a "
      "timeout or a sticky device error (default on the cuda target)");
  cmd->add_flag_callback(
      "--no-isolate", [&isolate] { isolate = 0; },
      "Run every case in this process (default on the cpu target)");
}

void add_sweep_command(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<SweepArgs>();
  args->out.clear();  // "out" unless --out or --resume say otherwise
  CLI::App* cmd = app.add_subcommand(
      "sweep",
      "Run a sweep: every case on the GPU (or the CPU target), verified against a float64\n"
      "reference, timed with CUDA events; then the config's checks. Writes results.json,\n"
      "results.csv, summary.md and results.jsonl (case by case) to --out.\n"
      "Without --config the built-in quickstart sweep runs. Exit 1 when a check fails, or\n"
      "when any case ends in error/timeout (unless the config says \"allow_case_errors\":\n"
      "true) or an ok case has no usable median, even if no check selects it.\n\n"
      "Examples:\n"
      "  fa2bench sweep --config configs/seed_notebook.json --out results/run1\n"
      "  fa2bench sweep --config configs/seed_article.json --backends fa2 --set grid.T=[4096]\n"
      "  fa2bench sweep --resume results/run1      (continue an interrupted sweep)\n"
      "  fa2bench sweep --target cpu --quiet");
  cmd->add_option("--config,-c", args->config, "Sweep config (JSON); default: built-in quickstart")
      ->check(CLI::ExistingFile);
  cmd->add_option("--out,-o", args->out, "Directory for the reports (default: out)");
  cmd->add_option(
         "--backends", args->backends,
         fmt::format("Replace every sweep's backends ({})", fmt::join(known_backend_names(), ", ")))
      ->delimiter(',');
  cmd->add_option(
      "--set", args->set,
      "Override a config value: grid.T=[1024,2048], measure.max_samples=5 (repeatable)");
  add_target_options(cmd, args->target, args->device);
  cmd->add_option("--devices", args->devices,
                  "Run on several GPUs at once, one worker process per device: all, or 0,1,...");
  cmd->add_option("--filter", args->filter, "Run only cases whose id matches this regex");
  cmd->add_option("--shard", args->shard,
                  "Run only the cases whose index (after --filter) is I mod N: I/N, 0-based");
  cmd->add_option("--resume", args->resume,
                  "Continue the sweep whose --out was DIR: keep its finished cases, run the rest "
                  "with its config and measuring options (refused if one given differs)");
  cmd->add_flag("--overwrite", args->overwrite,
                "Start a new sweep in an --out that holds an earlier one: its files move to "
                "--out/previous-<time>/ first");
  add_isolate_flags(cmd, args->isolate);
  cmd->add_option("--case-timeout", args->case_timeout,
                  "Kill a case still running after this many seconds and record status timeout "
                  "(0: none; implies --isolate)")
      ->check(finite_in(0, kMaxCaseTimeoutSeconds));
  cmd->add_option("--cpu-workers", args->cpu_workers,
                  "Testing aid: N isolated CPU workers at once (--target cpu)")
      // CLI11 leaves a hidden option's name out of its message: the check says it.
      ->check(CLI::Validator(
          [](std::string& text) -> std::string {
            return CLI::Range(0, 256)(text).empty()
                       ? std::string()
                       : "--cpu-workers " + clip_echo(text, 40) + ": expected 0 to 256";
          },
          "INT in [0, 256]"))
      ->group("");
  cmd->add_option("--inputs", args->inputs,
                  "Input distribution for every case: normal, uniform, large or nan")
      ->check(CLI::IsMember({"normal", "uniform", "large", "nan"}));
  cmd->add_option("--dump", args->dump,
                  "Write Q, K, V, O and the reference rows of the cases --dump-filter selects as "
                  ".npy files below DIR (at most 1 GiB per case)");
  cmd->add_option("--dump-filter", args->dump_filter,
                  "Which cases --dump writes: a regex on the case id (default: all)");
  cmd->add_option("--junit", args->junit, "Also write the check verdicts as JUnit XML here");
  cmd->add_option("--summary-md", args->summary_md, "Also write the Markdown summary here");
  cmd->add_option("--memory-budget", args->memory_budget,
                  "Treat allocations beyond this size as out of memory (e.g. 24GiB), to emulate "
                  "a smaller card. Units: b, kB/MB/GB/TB/PB/EB (powers of 1000), KiB/MiB/GiB/... "
                  "(1024), case-insensitive, the b optional")
      ->type_name("SIZE");
  cmd->add_option("--baseline", args->baseline,
                  "Backend the summary's speedups and memory reductions are relative to")
      ->capture_default_str();
  cmd->add_flag("--profile-once", args->profile_once,
                "Run each selected case once for a profiler (ncu, nsys): no warm-ups, no "
                "verification, one timed sample; the results say \"profile_once\": true");
  cmd->add_option("--lock-clocks", args->lock_clocks_mhz,
                  "Lock the GPU's SM clock at MHZ through NVML for the sweep (needs root or an "
                  "administrator's grant; given back at the end); where not permitted the sweep "
                  "runs at the GPU's own clocks. results.json's \"clocks\" says which")
      ->type_name("MHZ")
      ->check(CLI::Range(100, 5000));
  cmd->add_flag("--quiet,-q", args->quiet, "No progress on stderr");
  cmd->callback([args, cmd, &exit_code] {
    args->case_timeout_given = cmd->count("--case-timeout") > 0;
    exit_code = run_sweep_command(*args);
  });
}

}  // namespace fa2b
