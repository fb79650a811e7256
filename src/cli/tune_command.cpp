// SPDX-License-Identifier: Apache-2.0
// `fa2bench tune`'s flags and its printout (the pieces are app/tune.cpp): the config's fa2 (or
// fa3) cases, one per fa2-dev (fa3-dev) variant, through the ordinary sweep, then ranked per
// shape (docs/tuning.md).
#include "cli/tune_command.h"

#include <fmt/format.h>

#include <memory>
#include <string>

#include "app/exit_codes.h"
#include "app/tune.h"
#include "cli/commands.h"
#include "cli/numeric_flags.h"
#include "cli/sweep_printout.h"

namespace fa2b {

int run_tune_command(const TuneArgs& t) {
  int rc = kExitOk;
  std::string out;
  std::string tuned_path;
  {  // the sweep's outcome (its --out lock) goes once printed, before the ranking, as it did
    const app::TuneSweep run = app::run_tune_sweep(t);
    print_sweep_outcome(run.sweep);
    if (!run.reports_written) return run.sweep.exit_code;
    rc = run.sweep.exit_code;
    out = run.out;
    tuned_path = run.tuned_path;
  }
  const auto rows = app::rank_tune_run(out);
  if (!rows) return kExitRuntime;
  fmt::print("\nAll variants:\n{}\nWinners:\n{}", tune_all_md(*rows), tune_winners_md(*rows));
  if (!app::write_tune_md(out, *rows, tuned_path)) return kExitRuntime;
  fmt::print("wrote {}/tune.md\n", out);
  return rc;
}

void add_tune_command(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<TuneArgs>();
  CLI::App* cmd = app.add_subcommand(
      "tune",
      "Rank the tile/pipeline variants of our fa2 (or, with --backend fa3, fa3) forward: each\n"
      "fa2 case of a config (fp16/bf16, its forward) becomes one fa2-dev case per variant\n"
      "(0 = the shipped kernel), run as an ordinary sweep\n"
      "(tracked memory, verification against the float64 reference, timing, isolation) with\n"
      "its reports in --out; then per shape the variants by median time, their speed-up over\n"
      "variant 0 and the winner, printed and written to --out/tune.md. Variants beyond 0 need\n"
      "a CUDA build with -DFA2BENCH_DEV_KERNELS=ON (exit 2 otherwise). See docs/tuning.md.\n\n"
      "Examples:\n"
      "  fa2bench tune --config configs/perf_fwd.json --out results/h200/tune_perf_fwd "
      "--filter D128\n"
      "  fa2bench tune --backend fa3 --config configs/perf_fwd.json --out results/h200/tune_fa3");
  cmd->add_option("--config,-c", args->config, "Sweep config (JSON); its fa2 cases are tuned")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option_function<std::string>(
         "--backend,-b",
         [args](const std::string& b) {
           args->role = b;
           args->dev_backend = b + "-dev";
         },
         "Whose variants to rank: fa2 (default; the config's fa2 cases through fa2-dev) or fa3 "
         "(its fa3 cases through fa3-dev, sm_90 only)")
      ->check(CLI::IsMember({"fa2", "fa3"}));
  cmd->add_option("--out,-o", args->out,
                  "Directory for the sweep's reports and tune.md (default: out)");
  cmd->add_option("--set", args->set, "Override a config value (as in sweep; repeatable)");
  cmd->add_option("--filter", args->filter,
                  "Run only the tune cases whose id (fa2-dev/B1-H32-T2048-D128/fp16/causal/v3) "
                  "matches this regex");
  add_target_options(cmd, args->target, args->device);
  add_isolate_flags(cmd, args->isolate);
  cmd->add_option("--case-timeout", args->case_timeout,
                  "Kill a case still running after this many seconds (0: none; implies "
                  "--isolate)")
      ->check(finite_in(0, 7 * 24 * 3600));
  cmd->add_flag("--overwrite", args->overwrite,
                "Move an earlier sweep's files in --out to --out/previous-<time>/ first");
  cmd->add_flag("--quiet,-q", args->quiet, "No progress on stderr");
  cmd->callback([args, &exit_code] { exit_code = run_tune_command(*args); });
}

}  // namespace fa2b
